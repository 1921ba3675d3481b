"""The stream statistics the cost-based optimizer plans a run with (sga/cost/statistics.py,
thesis 6.3.1 and 6.4.2), from what can be read before the first edge is pushed.

- `--stats FILE` (written by `sgq stats`): read as it is.
- An edge file or a directory written by `sgq prepare`: its first `sample` edges, read ahead
  and read again by the run (a file and a prepared directory can both be opened twice; a
  bad line is skipped here, and the run reports it by its own `--on-error`).
- stdin and `--follow`: nothing can be read ahead (stdin cannot be read twice; a followed
  input is still being written, and its first edges need not be there yet). The run keeps
  today's plan (the canonical plan after the rewrite passes), and `note` says why, for the
  command's log. The same when the sample holds no edge.

The optimizer is never an error: without statistics, today's plan runs.
"""

from __future__ import annotations

import os
from itertools import chain

import attrs

from .base.errors import UserError
from .sga.cost.statistics import StreamStatistics, collect, loads

#: input edges read ahead for statistics when no statistics file is given
DEFAULT_SAMPLE = 20_000


@attrs.frozen
class Sampled:
    """The statistics to plan with (None: keep today's plan) and where they come from, or why
    there are none (`note`, one phrase for a log line)."""

    statistics: StreamStatistics | None
    note: str


def _skip_bad_line(error, text) -> None:
    """A malformed line is no statistic; the run itself reports it (`--on-error`)."""


def _until_unreadable(items):
    """`items` (edges or blocks of them) up to a point where the input cannot be read on (a
    truncated .gz): the sample is what came before; the run reports the error where it
    reaches it."""
    from .stream_io import StreamError

    try:
        yield from items
    except StreamError:
        return


def read_statistics(path: str) -> StreamStatistics:
    """A statistics file of `sgq stats`; a UserError when it cannot be read or is none."""
    try:
        with open(path, encoding="utf-8") as handle:
            return loads(handle.read(), path)
    except OSError as exc:
        raise UserError(f"cannot read statistics file '{path}': {exc.strerror}") from None
    except ValueError as exc:
        raise UserError(str(exc)) from None


def sample_input(
    source: str | None,
    fmt: str | None = None,
    columns=None,
    *,
    sample: int = DEFAULT_SAMPLE,
    follow: bool = False,
) -> Sampled:
    """The statistics of the first `sample` edges of the input `source` (an edge file, a
    prepared directory, `-` for stdin, or None for no input), or why there are none."""
    from .parquet_input import is_prepared, read_prepared
    from .stream_io import read_blocks

    if sample < 1:
        raise UserError(f"--sample: must be a positive integer, not {sample}")
    if source is None:
        return Sampled(None, "no input to sample (give --input EDGES or --stats FILE)")
    if source == "-":
        return Sampled(None, "stdin cannot be read ahead for statistics (give --stats FILE)")
    if follow:
        return Sampled(
            None, "a followed input is still being written (give --stats FILE to optimize)"
        )
    if is_prepared(source):
        edges = _until_unreadable(read_prepared(source))
    elif os.path.isfile(source):
        blocks = read_blocks(source, fmt, columns, on_error=_skip_bad_line)
        edges = chain.from_iterable(block.edges for block in _until_unreadable(blocks))
    else:
        return Sampled(None, f"'{source}' is no edge file to sample")
    stats = collect(edges, sample)
    if stats.edges == 0:
        return Sampled(None, f"the first edges of '{source}' hold no insertion to sample")
    return Sampled(stats, f"statistics of the first {stats.edges:,} edges of '{source}'")
