"""`sgq run`: evaluate a `.dl` program incrementally over an edge stream.

Edges are read in bounded memory, pushed to the engine one timestamp at a time, and the
results written as they are produced: interval tuples `src,trg,label,ts,exp[,path]` or the
delta view `time,op,src,trg,label` (specs/semantics.md §5). Because every result is written as soon
as the inputs up to its time have been consumed, a crash loses nothing already written.

The input is an edge file (or stdin) or a directory written by `sgq prepare` (Parquet, read a
record batch at a time). With `--checkpoint DIR` the run saves its state every
`--checkpoint-every` edges and at the end of the input (sgq/checkpoint.py); running the same
command again after a crash resumes there and the output ends up as if nothing had happened.
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
from collections.abc import Iterator

from ..api import Query
from ..checkpoint import (
    DEFAULT_EVERY,
    Checkpoints,
    Position,
    cut_back,
    durable_size,
    edge_digest,
    program_digest,
)
from ..errors import UserError
from ..parquet_input import manifest, read_prepared
from ..progress import Progress, human
from ..reorder import ordered
from ..stream_io import (
    DELTA_FIELDS,
    INTERVAL_FIELDS,
    ResultWriter,
    decoded_lines,
    guess_format,
    parse_columns,
    parse_lines,
)
from .common import (
    add_input_arguments,
    add_plan_arguments,
    add_window_arguments,
    compile_program,
    duration_arg,
    plan_options,
    window_overrides,
)

NAME = "run"
HELP = "run a .dl program incrementally over an edge stream"

BATCH_EDGES = 4096  # at most this many edges of one timestamp per engine batch


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
    parser.add_argument(
        "--output",
        "-o",
        metavar="OUT",
        default="-",
        help="result file (CSV; JSON Lines if it ends in .jsonl); default stdout",
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


class _ByteCounter:
    """Iterates a binary file's lines, counting bytes for the progress bar."""

    def __init__(self, handle):
        self.handle, self.done = handle, 0

    def __iter__(self) -> Iterator[bytes]:
        for raw in self.handle:
            self.done += len(raw)
            yield raw


class _Source:
    """The input edges (not yet time-ordered) of a file, stdin or a prepared directory, with
    what the progress bar needs (`done()` of `total`: bytes, or rows of a directory)."""

    def __init__(self, args: argparse.Namespace, columns, position: list[int], on_error) -> None:
        self.handle = None
        self.total: int | None = None
        self._counter: _ByteCounter | None = None
        self._position = position
        self.prepared = False
        if args.input == "-":
            self.name = "<stdin>"
            lines = decoded_lines(sys.stdin.buffer, "<stdin>")
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
            self._counter = _ByteCounter(self.handle)
            lines = decoded_lines(self._counter, args.input)
        fmt = args.format or guess_format(args.input)
        self.edges = parse_lines(
            lines, fmt, columns, self.name, on_error=on_error, position=position
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


def _batches(edges, per_instant: bool) -> Iterator[list]:
    """Edges grouped by timestamp (a long run of one timestamp is cut every BATCH_EDGES);
    unless `per_instant`, consecutive timestamps are grouped too, up to BATCH_EDGES edges (the
    engine still runs one round per timestamp, so the results are the same, but they are
    drained and written once per group). A bad line stops the input: the edges before it
    are still handed over first, so their results are written before the error."""
    batch: list = []
    current = None
    try:
        for edge in edges:
            t = edge[3]
            if (t != current and (per_instant or len(batch) >= BATCH_EDGES)) or len(
                batch
            ) >= 2 * BATCH_EDGES:
                if batch:
                    yield batch
                batch = []
            current = t
            batch.append(edge)
    except UserError:
        if batch:
            yield batch
        raise
    if batch:
        yield batch


def _settings(args: argparse.Namespace, query: Query, columns, out_fmt: str) -> dict:
    """What a checkpoint must agree on with the command resuming it."""
    return {
        "program_sha256": program_digest(query.source),
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


def _open_text(path: str, mode: str, what: str):
    """A result file opened for writing, or a UserError naming it (a missing folder, a
    directory, no permission)."""
    try:
        return open(path, mode, encoding="utf-8", newline="")
    except OSError as exc:
        raise UserError(f"cannot write the {what} '{path}': {exc.strerror or exc}") from None


def _row_key(r) -> tuple:
    return (r.src, r.trg, r.label)


def run(args: argparse.Namespace) -> int:
    query = compile_program(args.program, options=plan_options(args), **window_overrides(args))
    columns = parse_columns(args.columns) if args.columns else None
    out_fmt = "jsonl" if args.output.lower().endswith((".jsonl", ".ndjson")) else "csv"
    deltas = args.emit == "deltas"

    ckpt = None
    if args.checkpoint:
        if args.input == "-":
            raise UserError("--checkpoint needs --input FILE: stdin cannot be read again to resume")
        if args.output == "-":
            raise UserError(
                "--checkpoint needs --output FILE: stdout cannot be cut back to "
                "the last checkpoint to resume"
            )
        if args.paths and not deltas:
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
        ckpt = Checkpoints(args.checkpoint, _settings(args, query, columns, out_fmt))

    engine = query.engine(paths=args.paths and not deltas, history=False, deltas=deltas)
    # the delta view is the engine's own (its native producers write to it): one root
    roots = {"engine": engine}
    resume = ckpt.load(roots) if ckpt is not None else None
    view = engine.delta_view() if deltas else None

    rejects = _Rejects(args, resume)
    position = [0]
    source = _Source(args, columns, position, rejects.bad_line if args.on_error == "skip" else None)
    edges = ordered(
        source.edges, source.name, position, args.max_lateness, on_late=rejects.late_edge
    )

    if args.output == "-":
        out = sys.stdout
    elif resume is not None:
        cut_back(args.output, resume.output_bytes, "output file")
        out = _open_text(args.output, "a", "output file")
    else:
        out = _open_text(args.output, "w", "output file")
    if deltas:
        fields = DELTA_FIELDS
    else:
        fields = INTERVAL_FIELDS + (("path",) if args.paths else ())
    writer = ResultWriter(out, fields, out_fmt, header=resume is None)
    progress = Progress(
        source.total, enabled=False if args.no_progress or not source.measured else None
    )
    sort_rows = ckpt is not None and not deltas

    def write_results() -> None:
        results = engine.drain()
        if deltas:
            writer.write_groups(view.feed_grouped(results, engine.time))
            return
        if sort_rows:
            # one round (one instant) at a time: rows of different keys come in an order that
            # depends on string hashing; sorted, a resumed run writes the same bytes
            results.sort(key=_row_key)
        if args.paths:
            writer.write_many(
                [
                    (
                        r.src,
                        r.trg,
                        r.label,
                        r.ts,
                        r.exp,
                        " ".join(f"{s}-{l}->{t}" for s, t, l in (r.path or ())),
                    )
                    for r in results
                ]
            )
        else:
            writer.write_many([r[:5] for r in results])

    state = resume if resume is not None else Position()
    n = state.edges
    digest = state.digest
    last_saved = n

    def checkpoint() -> None:
        writer.flush()
        state.edges, state.digest, state.rows = n, digest, writer.rows
        state.output_bytes = durable_size(out)
        state.rejects_bytes, state.skipped, state.dropped = rejects.durable()
        ckpt.save(roots, state)

    try:
        if resume is not None:
            writer.rows = resume.rows
            print(
                f"sgq run: resuming from checkpoint {args.checkpoint} "
                f"({resume.edges:,} edges done)",
                file=sys.stderr,
            )
            _skip(edges, resume.edges, resume.digest)
        # with checkpoints, one batch per instant: a checkpoint's rows are those of whole
        # instants, sorted per instant in interval mode (see sort_rows)
        for batch in _batches(edges, per_instant=ckpt is not None):
            engine.push_batch(batch)
            n += len(batch)
            write_results()
            if ckpt is not None:
                digest = edge_digest(batch, digest)
                ckpt.kill.point("batch", before=writer.flush)
                if n - last_saved >= args.checkpoint_every:
                    checkpoint()
                    last_saved = n
            if progress.enabled:
                stats = engine.stats()
                progress.update(
                    source.done(), edges=n, results=writer.rows, state=stats.get("state", 0)
                )
        if ckpt is not None and (n != last_saved or state.checkpoints == 0):
            checkpoint()  # the end of the input, before close: a rerun only redoes the end
        engine.close()
        write_results()
        if deltas:
            writer.write_groups(view.close_grouped())
    finally:
        progress.done()
        rejects.close()
        writer.flush()
        if out is not sys.stdout:
            out.close()
        source.close()
    stats = engine.stats()
    rate = n / progress.elapsed if progress.elapsed > 0 else 0.0
    extra = ""
    if rejects.skipped or rejects.dropped:
        extra = (
            f", {rejects.skipped:,} bad lines skipped, {rejects.dropped:,} late edges "
            f"dropped (see {rejects.path})"
        )
    unmatched = stats.get("unmatched_deletions", 0)
    if unmatched:
        extra += f", {unmatched:,} deletions matched nothing"
    if ckpt is not None and ckpt.bytes:
        extra += (
            f", checkpoint {ckpt.bytes / 1e6:.1f} MB ({state.checkpoints:,} written, "
            f"{ckpt.seconds:.2f}s)"
        )
    print(
        f"sgq run: {n:,} edges, {writer.rows:,} {'deltas' if deltas else 'results'} "
        f"in {progress.elapsed:.2f}s ({human(rate)} edges/s), peak state "
        f"{stats.get('peak_state', stats.get('state', 0)):,}{extra}",
        file=sys.stderr,
    )
    return 0


class _Rejects:
    """The rejects file (CSV `line,reason,text`), opened on the first rejected line.

    Resuming from a checkpoint, the file is cut back to the checkpoint's length and the
    input's prefix is read again: its first `skipped + dropped` reports are already in the
    file, so they are counted but not written again.
    """

    def __init__(self, args: argparse.Namespace, resume: Position | None = None):
        if args.rejects:
            self.path = args.rejects
        elif args.output != "-":
            self.path = args.output + ".rejects.csv"
        else:
            self.path = "sgq-rejects.csv"
        self.skipped = 0
        self.dropped = 0
        self._out = None
        self._csv = None
        self._base = 0  # bytes already in the file (a resumed run)
        self._replay = 0  # reports still to count without writing (a resumed run)
        if resume is not None and resume.rejects_bytes:
            cut_back(self.path, resume.rejects_bytes, "rejects file")
            self._base = resume.rejects_bytes
        if resume is not None:
            self._replay = resume.skipped + resume.dropped

    def _write(self, line: int, reason: str, text: str) -> None:
        if self._replay:
            self._replay -= 1
            return
        if self._out is None:
            import csv

            self._out = _open_text(self.path, "a" if self._base else "w", "rejects file")
            self._csv = csv.writer(self._out, lineterminator="\n")
            if not self._base:
                self._csv.writerow(("line", "reason", "text"))
        self._csv.writerow((line, reason, text))

    def bad_line(self, err, text: str) -> None:
        self.skipped += 1
        self._write(err.line, err.reason, text)

    def late_edge(self, err, edge) -> None:
        self.dropped += 1
        if self.dropped <= 3 and not self._replay:
            print(f"sgq run: warning: {err}", file=sys.stderr)
        self._write(err.line, err.reason, ",".join(map(str, edge)))

    def durable(self) -> tuple[int, int, int]:
        """`(bytes, skipped, dropped)` with the file flushed and fsync'd (for a checkpoint)."""
        size = durable_size(self._out) if self._out is not None else self._base
        return size, self.skipped, self.dropped

    def close(self) -> None:
        if self._out is not None:
            self._out.close()
