"""`sgq run`: evaluate a `.dl` program incrementally over an edge stream.

Edges are read in bounded memory, pushed to the engine one timestamp at a time, and the
results written as they are produced: interval tuples `src,trg,label,ts,exp[,path]` or the
delta view `time,op,src,trg,label` (SEMANTICS.md §5). Because every result is written as soon
as the inputs up to its time have been consumed, a crash loses nothing already written.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Iterator

from ..errors import UserError
from ..progress import Progress, human
from ..stream_io import (
    DELTA_FIELDS, FORMATS, INTERVAL_FIELDS, ResultWriter, decoded_lines, parse_columns,
    parse_lines, guess_format,
)
from ..reorder import ordered
from .common import add_window_arguments, compile_program, duration_arg

NAME = "run"
HELP = "run a .dl program incrementally over an edge stream"

BATCH_EDGES = 4096  # at most this many edges of one timestamp per engine batch


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("program", metavar="FILE.dl", help="the query")
    parser.add_argument("--input", "-i", required=True, metavar="EDGES",
                        help="edge file (csv, tsv, jsonl; .gz ok) or - for stdin")
    parser.add_argument("--format", choices=FORMATS, help="input format (default: by extension, csv)")
    parser.add_argument("--columns", metavar="COLS",
                        help="input column order, e.g. ts,src,label,trg[,op] (default src,trg,label,ts[,op] or the header)")
    add_window_arguments(parser)
    parser.add_argument("--emit", choices=("intervals", "deltas"), default="intervals",
                        help="interval tuples (default) or deltas time,op,src,trg,label")
    parser.add_argument("--paths", action="store_true",
                        help="add a witness path column to interval output")
    parser.add_argument("--output", "-o", metavar="OUT", default="-",
                        help="result file (CSV; JSON Lines if it ends in .jsonl); default stdout")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    parser.add_argument("--on-error", choices=("fail", "skip"), default="fail",
                        help="on a malformed line: stop with FILE:LINE: reason (default), "
                        "or write it to the rejects file and go on")
    parser.add_argument("--rejects", metavar="FILE", default=None,
                        help="where skipped and dropped lines go (CSV line,reason,text); "
                        "default OUT.rejects.csv, or sgq-rejects.csv when writing to stdout")
    parser.add_argument("--max-lateness", type=duration_arg, metavar="D", default=None,
                        help="reorder edges up to D time units late; drop (and report) later ones")


class _ByteCounter:
    """Iterates a binary file's lines, counting bytes for the progress bar."""

    def __init__(self, handle):
        self.handle, self.done = handle, 0

    def __iter__(self) -> Iterator[bytes]:
        for raw in self.handle:
            self.done += len(raw)
            yield raw


def _batches(edges) -> Iterator[list]:
    """Edges grouped by timestamp (a long run of one timestamp is cut every BATCH_EDGES)."""
    batch: list = []
    current = None
    for edge in edges:
        t = edge[3]
        if t != current or len(batch) >= BATCH_EDGES:
            if batch:
                yield batch
            batch = []
            current = t
        batch.append(edge)
    if batch:
        yield batch


def run(args: argparse.Namespace) -> int:
    query = compile_program(args.program, args.window, args.slide)
    columns = parse_columns(args.columns) if args.columns else None
    fmt = args.format or guess_format(args.input)

    counter = None
    total = None
    if args.input == "-":
        lines = decoded_lines(sys.stdin.buffer, "<stdin>")
        name = "<stdin>"
    else:
        if not os.path.exists(args.input):
            raise UserError(f"input file '{args.input}' does not exist")
        if os.path.isdir(args.input):
            raise UserError(f"input '{args.input}' is a directory, not an edge file")
        if args.input.endswith(".gz"):
            import gzip

            handle = gzip.open(args.input, "rb")
        else:
            handle = open(args.input, "rb")
            total = os.path.getsize(args.input)
        counter = _ByteCounter(handle)
        lines = decoded_lines(counter, args.input)
        name = args.input
    rejects = _Rejects(args)
    position = [0]
    edges = parse_lines(lines, fmt, columns, name,
                        on_error=rejects.bad_line if args.on_error == "skip" else None,
                        position=position)
    edges = ordered(edges, name, position, args.max_lateness, on_late=rejects.late_edge)

    out_fmt = "jsonl" if args.output.lower().endswith((".jsonl", ".ndjson")) else "csv"
    out = sys.stdout if args.output == "-" else open(args.output, "w", encoding="utf-8", newline="")
    deltas = args.emit == "deltas"
    if deltas:
        fields = DELTA_FIELDS
    else:
        fields = INTERVAL_FIELDS + (("path",) if args.paths else ())
    writer = ResultWriter(out, fields, out_fmt)
    engine = query.engine(paths=args.paths and not deltas, history=False)
    view = engine.delta_view() if deltas else None
    progress = Progress(total, enabled=False if args.no_progress or counter is None else None)

    def write_results() -> None:
        results = engine.drain()
        if deltas:
            for row in view.feed(results, engine.time):
                writer.write(row)
            return
        for r in results:
            if args.paths:
                path = " ".join(f"{s}-{l}->{t}" for s, t, l in (r.path or ()))
                writer.write((r.src, r.trg, r.label, r.ts, r.exp, path))
            else:
                writer.write((r.src, r.trg, r.label, r.ts, r.exp))

    n = 0
    try:
        for batch in _batches(edges):
            engine.push_batch(batch)
            n += len(batch)
            write_results()
            if progress.enabled:
                stats = engine.stats()
                progress.update(counter.done if counter else None, edges=n,
                                results=writer.rows, state=stats.get("state", 0))
        engine.close()
        write_results()
        if deltas:
            for row in view.close():
                writer.write(row)
    finally:
        progress.done()
        rejects.close()
        writer.flush()
        if out is not sys.stdout:
            out.close()
        if counter is not None:
            counter.handle.close()
    stats = engine.stats()
    rate = n / progress.elapsed if progress.elapsed > 0 else 0.0
    extra = ""
    if rejects.skipped or rejects.dropped:
        extra = (f", {rejects.skipped:,} bad lines skipped, {rejects.dropped:,} late edges "
                 f"dropped (see {rejects.path})")
    unmatched = stats.get("unmatched_deletions", 0)
    if unmatched:
        extra += f", {unmatched:,} deletions matched nothing"
    print(
        f"sgq run: {n:,} edges, {writer.rows:,} {'deltas' if deltas else 'results'} "
        f"in {progress.elapsed:.2f}s ({human(rate)} edges/s), peak state "
        f"{stats.get('peak_state', stats.get('state', 0)):,}{extra}",
        file=sys.stderr,
    )
    return 0


class _Rejects:
    """The rejects file (CSV `line,reason,text`), opened on the first rejected line."""

    def __init__(self, args: argparse.Namespace):
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

    def _write(self, line: int, reason: str, text: str) -> None:
        if self._out is None:
            import csv

            self._out = open(self.path, "w", encoding="utf-8", newline="")
            self._csv = csv.writer(self._out, lineterminator="\n")
            self._csv.writerow(("line", "reason", "text"))
        self._csv.writerow((line, reason, text))

    def bad_line(self, err, text: str) -> None:
        self.skipped += 1
        self._write(err.line, err.reason, text)

    def late_edge(self, err, edge) -> None:
        self.dropped += 1
        if self.dropped <= 3:
            print(f"sgq run: warning: {err}", file=sys.stderr)
        self._write(err.line, err.reason, ",".join(map(str, edge)))

    def close(self) -> None:
        if self._out is not None:
            self._out.close()
