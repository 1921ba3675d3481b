"""The rejects file of `sgq run` (CSV `line,reason,text`): bad lines skipped with
`--on-error skip` and edges dropped as too late (specs/semantics.md §7)."""

from __future__ import annotations

import argparse
import csv
import sys

from .base.durable import cut_back, durable_size
from .checkpoint import Position
from .stream_io import open_output


def rejects_path(args: argparse.Namespace) -> str:
    """`--rejects`, else OUT.rejects.csv, else sgq-rejects.csv (output on stdout)."""
    if args.rejects:
        return args.rejects
    if args.output != "-":
        return args.output + ".rejects.csv"
    return "sgq-rejects.csv"


class Rejects:
    """The rejects file, opened on the first rejected line.

    Resuming from a checkpoint, the file is cut back to the checkpoint's length. A run that
    reads its input again from the start (`replay`) meets the first `skipped + dropped`
    reports again: they are already in the file, so they are counted but not written again;
    a run that goes on where the checkpoint's reader stopped (`sgq run --follow`) does not.
    """

    def __init__(self, path: str, resume: Position | None = None, replay: bool = True):
        self.path = path
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
            if replay:
                self._replay = resume.skipped + resume.dropped
            else:
                self.skipped, self.dropped = resume.skipped, resume.dropped

    def _write(self, line: int, reason: str, text: str) -> None:
        if self._replay:
            self._replay -= 1
            return
        if self._out is None:
            self._out = open_output(self.path, "a" if self._base else "w", "rejects file")
            self._csv = csv.writer(self._out, lineterminator="\n")
            if not self._base:
                self._csv.writerow(("line", "reason", "text"))
        self._csv.writerow((line, reason, text))

    def bad_line(self, err, text: str) -> None:
        """A line `--on-error skip` skips (`err` a StreamError)."""
        self.skipped += 1
        self._write(err.line, err.reason, text)

    def late_edge(self, err, edge) -> None:
        """An edge dropped as too late; the first three are also warned about on stderr."""
        self.dropped += 1
        if self.dropped <= 3 and not self._replay:
            print(f"sgq run: warning: {err}", file=sys.stderr)
        self._write(err.line, err.reason, ",".join(map(str, edge)))

    def flush(self) -> None:
        if self._out is not None:
            self._out.flush()

    def durable(self) -> tuple[int, int, int]:
        """`(bytes, skipped, dropped)` with the file flushed and fsync'd (for a checkpoint)."""
        size = durable_size(self._out) if self._out is not None else self._base
        return size, self.skipped, self.dropped

    def close(self) -> None:
        if self._out is not None:
            self._out.close()
