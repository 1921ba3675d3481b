"""`sgq run`: evaluate a `.dl` program incrementally over an edge stream.

Edges are read in bounded memory, pushed to the engine one timestamp at a time, and the
results written as they are produced: interval tuples `src,trg,label,ts,exp[,path]` or the
delta view `time,op,src,trg,label` (specs/semantics.md §5). Because every result is written as
soon as the inputs up to its time have been consumed, a crash loses nothing already written.

The input is an edge file (or stdin) or a directory written by `sgq prepare` (Parquet, read a
record batch at a time); with `--follow`, a file that grows or a directory prepared outputs
land in, read until SIGINT/SIGTERM (sgq/live.py). With `--checkpoint DIR` the run saves its
state every `--checkpoint-every` edges and at the end of the input (sgq/checkpoint.py);
running the same command again after a crash resumes there and the output ends up as if
nothing had happened. `--metrics-port` / `--metrics-file` publish its counters
(sgq/metrics.py, docs/metrics.md).
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
from collections.abc import Iterator

from ..api import Query
from ..base.durable import text_digest
from ..base.errors import UserError
from ..checkpoint import DEFAULT_EVERY, Checkpoints, edge_digest
from ..edge_blocks import counting_left_out
from ..evaluation import batches, block_batches, properties_kept
from ..live import check_arguments as check_follow_arguments
from ..live import follow_input, follow_properties
from ..parquet_input import manifest, prepared_properties, read_prepared
from ..reorder import ordered, ordered_blocks
from ..run_job import RunJob, output_format
from ..stream_io import (
    FileLines,
    InputHead,
    StreamError,
    blamed,
    decoded_lines,
    file_head,
    guess_format,
    parse_blocks,
    parse_columns,
    parse_lines,
    peek_head,
)
from . import run_spark
from .common import (
    add_input_arguments,
    add_optimizer_arguments,
    add_plan_arguments,
    add_window_arguments,
    compile_for_input,
    duration_arg,
    seconds_arg,
    window_overrides,
)

NAME = "run"
HELP = "run a .dl program incrementally over an edge stream"


def _positive(text: str) -> int:
    try:
        value = int(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not an integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {text}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("program", metavar="FILE.dl", help="the query")
    add_input_arguments(
        parser,
        "edge file (csv, tsv, jsonl; .gz ok), a directory written by sgq prepare, or - for stdin",
    )
    add_window_arguments(parser)
    parser.add_argument(
        "--emit",
        choices=("intervals", "deltas"),
        default="intervals",
        help="interval tuples (default) or deltas time,op,src,trg,label",
    )
    parser.add_argument(
        "--paths", action="store_true", help="add a witness path column to interval output"
    )
    add_plan_arguments(parser)
    add_optimizer_arguments(parser)
    parser.add_argument(
        "--output",
        "-o",
        metavar="OUT",
        default="-",
        help="result file (CSV; JSON Lines if it ends in .jsonl); default stdout. With --engine "
        "spark, a directory (OUT/ or an existing one): each batch's rows written by Spark as "
        "OUT/batch=<id>/part-*.csv (read back in order: sgq results OUT/)",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    parser.add_argument(
        "--on-error",
        choices=("fail", "skip"),
        default="fail",
        help="on a malformed line: stop with FILE:LINE: reason (default), "
        "or write it to the rejects file and go on",
    )
    parser.add_argument(
        "--rejects",
        metavar="FILE",
        default=None,
        help="where skipped and dropped lines go (CSV line,reason,text); "
        "default OUT.rejects.csv, or sgq-rejects.csv when writing to stdout",
    )
    parser.add_argument(
        "--max-lateness",
        type=duration_arg,
        metavar="D",
        default=None,
        help="reorder edges up to D time units late; drop (and report) later ones",
    )
    parser.add_argument(
        "--checkpoint",
        metavar="DIR",
        default=None,
        help="save the run's state in DIR (every --checkpoint-every edges and at "
        "the end of the input); the same command run again after a crash "
        "resumes from it, and the output ends up byte-identical to an "
        "uninterrupted run's. Needs an input file and --output FILE, and does "
        "not go with --paths; the interval rows of one instant are then "
        "written sorted by src,trg,label",
    )
    parser.add_argument(
        "--checkpoint-every",
        type=_positive,
        metavar="N",
        default=DEFAULT_EVERY,
        help=f"input edges between checkpoints (default {DEFAULT_EVERY:,})",
    )
    # crash tests only (sgq/checkpoint.py KillSwitch): SIGKILL at the K-th kill point
    parser.add_argument("--kill-at", metavar="K[:KIND]", default=None, help=argparse.SUPPRESS)
    _add_live_arguments(parser)
    run_spark.add_arguments(parser)


def _add_live_arguments(parser: argparse.ArgumentParser) -> None:
    """--follow, --idle-flush and the metrics flags."""
    parser.add_argument(
        "--follow",
        "-F",
        action="store_true",
        help="keep reading the input as it grows, like tail -F (a file, across rotation, or "
        "a directory sgq prepare outputs land in), writing results as time advances, until "
        "SIGINT/SIGTERM (with --checkpoint: a final checkpoint to resume from)",
    )
    parser.add_argument(
        "--idle-flush",
        type=seconds_arg,
        metavar="S",
        default=None,
        help="with --follow: after S of wall clock without a new edge (e.g. 5s, 500ms, 2m), "
        "take the stream as complete up to the last time read and write every result and "
        "expiry up to it; an edge that comes later with a time at or before it is dropped "
        "as late (to the rejects file)",
    )
    parser.add_argument(
        "--metrics-port",
        metavar="[HOST:]PORT",
        default=None,
        help="serve Prometheus metrics on http://HOST:PORT/metrics (every interface unless "
        "HOST; port 0 picks a free one, printed on stderr); names in docs/metrics.md",
    )
    parser.add_argument(
        "--metrics-file",
        metavar="FILE",
        default=None,
        help="append the same metrics to FILE as JSON lines, one per --metrics-interval and "
        "one at the end",
    )
    parser.add_argument(
        "--metrics-interval",
        type=seconds_arg,
        metavar="S",
        default=10.0,
        help="seconds between two lines of --metrics-file (default 10s)",
    )


class _Source:
    """The input edges (not yet time-ordered) of a file, stdin or a prepared directory, with
    what the progress bar needs (`done()` of `total`: bytes, or rows of a directory)."""

    def __init__(
        self,
        args: argparse.Namespace,
        columns,
        position: list[int],
        on_error,
        stdin=None,
        properties: bool = True,
        labels=None,
    ) -> None:
        """`stdin`: the lines of stdin, where some were read already (`peek_head`);
        `properties`: read a CSV/TSV input's property columns; `labels`: those the program
        reads, where `blocks` may leave out the edges of others (`EdgeBlock.kept`)."""
        self.handle = None
        self.total: int | None = None
        self._counter: FileLines | None = None
        self._position = position
        self.prepared = False
        #: a finished file's edges in blocks (sgq/edge_blocks.py), read instead of `edges`
        #: where no edge needs handling of its own (no lateness buffer, no resume)
        self.blocks = None
        if args.input == "-":
            self.name = "<stdin>"
            lines = stdin if stdin is not None else decoded_lines(sys.stdin.buffer, "<stdin>")
        else:
            self.name = args.input
            if not os.path.exists(args.input):
                raise UserError(f"input file '{args.input}' does not exist")
            if os.path.isdir(args.input):
                if args.format or args.columns:
                    raise UserError(
                        "--format and --columns do not apply to a directory "
                        "prepared by sgq prepare (its columns are fixed)"
                    )
                info = manifest(args.input)  # a clean error if it is not a prepared dir
                self.prepared = True
                written = info.get("written")
                self.total = written if isinstance(written, int) else None
                self.edges = self._rows(args.input)
                return
            if args.input.endswith(".gz"):
                import gzip

                self.handle = gzip.open(args.input, "rb")
            else:
                try:
                    self.handle = open(args.input, "rb")
                except OSError as exc:
                    raise UserError(
                        f"cannot read input file '{args.input}': {exc.strerror or exc}"
                    ) from None
                self.total = os.path.getsize(args.input)
            lines = self._counter = FileLines(self.handle, args.input)
        fmt = args.format or guess_format(args.input)
        self.edges = parse_lines(
            lines,
            fmt,
            columns,
            self.name,
            on_error=on_error,
            position=position,
            properties=properties,
        )
        if self._counter is not None:
            self.blocks = parse_blocks(
                self._counter,
                fmt,
                columns,
                self.name,
                on_error,
                properties=properties,
                labels=labels,
            )

    def _rows(self, path: str) -> Iterator[tuple]:
        position = self._position
        for i, edge in enumerate(read_prepared(path), start=1):
            position[0] = i
            yield edge

    def done(self) -> int | None:
        if self.prepared:
            return self._position[0]
        return self._counter.done if self._counter is not None else None

    @property
    def measured(self) -> bool:
        return self.prepared or self._counter is not None

    def close(self) -> None:
        if self.handle is not None:
            self.handle.close()


def _settings(args: argparse.Namespace, query: Query, columns, out_fmt: str) -> dict:
    """What a checkpoint must agree on with the command resuming it."""
    return {
        "program_sha256": text_digest(query.source),
        **query.options.as_dict(),
        **window_overrides(args),
        "emit": args.emit,
        "paths": bool(args.paths),
        "columns": list(columns) if columns else None,
        "format": None if os.path.isdir(args.input) else (args.format or guess_format(args.input)),
        "max_lateness": args.max_lateness,
        "on_error": args.on_error,
        "output_format": out_fmt,
    }


def _skip(edges: Iterator, count: int, digest: int) -> None:
    """Consume the first `count` edges (those a checkpoint already holds) and check that they
    are the ones it consumed."""
    crc = 0
    got = 0
    for edge in itertools.islice(edges, count):
        crc = edge_digest((edge,), crc)
        got += 1
    if got < count:
        raise UserError(
            f"the input has {got:,} edges, fewer than the {count:,} the checkpoint "
            "consumed; is it the same input? (delete the checkpoint to start over)"
        )
    if crc != digest:
        raise UserError(
            f"the input's first {count:,} edges differ from those the checkpoint "
            "consumed; is it the same input? (delete the checkpoint to start over)"
        )


def run(args: argparse.Namespace) -> int:
    run_spark.check_arguments(args)
    if args.engine == "spark":
        return run_spark.run(args, compile_for_input(args, NAME))
    check_follow_arguments(args)
    query = compile_for_input(args, NAME)
    columns = parse_columns(args.columns) if args.columns else None
    ckpt = _checkpoints(args, query, columns)  # (its refusals before stdin is read)
    stdin = None
    if args.follow:
        properties = follow_properties(args, columns)
    else:
        head, stdin = _input_head(args, columns)
        properties = properties_kept(query, head)
    job = RunJob(args, query, ckpt, live=args.follow, properties=properties)
    try:
        job.start_metrics(args.program)
        if args.follow:
            follow_input(job, args, columns)
        else:
            _read_finished_input(job, args, columns, stdin, properties is not None)
    finally:
        job.close()
    print(job.summary(), file=sys.stderr)
    return 0


def _input_head(args: argparse.Namespace, columns) -> tuple[InputHead, Iterator | None]:
    """The head of a finished input (its property names, whether it has an op column; specs/
    semantics.md §1), read before the engine is built; and, for stdin, its lines, those read
    for that included (None for a file or directory, which is read again)."""
    if args.input == "-":
        fmt = args.format or "csv"
        lines = decoded_lines(sys.stdin.buffer, "<stdin>")
        return peek_head(lines, fmt, columns, "<stdin>")
    if os.path.isdir(args.input):
        names = None if args.format or args.columns else prepared_properties(args.input)
        return InputHead(names, True), None
    return file_head(args.input, args.format, columns), None


def _checkpoints(args: argparse.Namespace, query, columns) -> Checkpoints | None:
    """The run's checkpoint directory, if `--checkpoint`; refused where a run cannot resume."""
    if not args.checkpoint:
        return None
    if args.input == "-":
        raise UserError("--checkpoint needs --input FILE: stdin cannot be read again to resume")
    if args.output == "-":
        raise UserError(
            "--checkpoint needs --output FILE: stdout cannot be cut back to "
            "the last checkpoint to resume"
        )
    if args.paths and args.emit != "deltas":
        # the engine picks a key's witness among its derivations in an order that depends
        # on string hashing and on set history, which a resumed run does not rebuild:
        # its paths (and path-renewal rows) could differ from an uninterrupted run's
        raise UserError(
            "--checkpoint does not go with --paths: the witness paths of a "
            "resumed run could differ from an uninterrupted run's; drop one "
            "of the two"
        )
    if not os.path.exists(args.input):
        raise UserError(f"input file '{args.input}' does not exist")
    settings = _settings(args, query, columns, output_format(args))
    return Checkpoints(args.checkpoint, settings, kill_at=args.kill_at)


def _read_finished_input(
    job: RunJob, args: argparse.Namespace, columns, stdin=None, properties: bool = True
) -> None:
    """Read the input to its end, a batch at a time, then close: every expiry is written.
    `stdin`: stdin's lines, some already read (`_input_head`); `properties`: the edges carry
    their properties (`properties_kept`)."""
    rejects = job.open_rejects(replay=True)
    position = [0]
    on_error = rejects.bad_line if args.on_error == "skip" else None
    # the edges of labels no rule reads are left out of blocks (the engine would only count
    # them), but for a checkpoint, whose digest covers every edge
    labels = job.engine.dataflow.reads if job.ckpt is None else None
    source = _Source(args, columns, position, on_error, stdin, properties, labels)
    limit = job.evaluation.limit
    try:
        per_instant = job.ckpt is not None  # a checkpoint's rows are those of whole instants
        if source.blocks is not None and args.max_lateness is None and job.resume is None:
            blocks = counting_left_out(source.blocks, job.left_out)
            groups = block_batches(
                ordered_blocks(blocks, source.name, position, limit),
                per_instant,
                limit.windowed_slide,
            )
        else:
            edges = ordered(
                source.edges,
                source.name,
                position,
                args.max_lateness,
                on_late=rejects.late_edge,
                limit=limit,
            )
            groups = batches(edges, per_instant, limit.windowed_slide)
        job.open_output()
        job.progress.total = source.total
        if not source.measured:
            job.progress.enabled = False
        if job.resume is not None:
            job.announce_resume("")
            _skip(edges, job.resume.edges, job.resume.digest)
        _push_all(job, groups, source)
        job.final_checkpoint()
        job.close_input()
    except StreamError as exc:  # in a damaged .gz, the damage's doing: said so
        raise blamed(args.input, exc) from None
    finally:
        source.close()


def _push_all(job: RunJob, groups: Iterator[list], source: _Source) -> None:
    """Every batch to the engine: with checkpoints, one batch per instant (a checkpoint's rows
    are those of whole instants, sorted per instant in interval mode)."""
    drawing = job.progress.enabled
    for batch in groups:
        job.push(batch)
        if drawing:
            job.draw_progress(source.done())
