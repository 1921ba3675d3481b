"""What every converter yields, and writing it in sgq's stream format.

A converter turns one source file into rows `(src, trg, label, ts, *properties)`, sorted by
`ts` (ties in the order the source gives them), with `ts` an integer in the dataset's
documented unit. The properties (a flight's delay and distance, a contact's roles) follow the
fixed fields in the order of the dataset's `properties` names. sgq's input has no property
columns yet (the edge properties issue, 67), so `write_stream` writes the four fixed fields
only; once properties land it can write the named columns after them, and no converter has to
change.
"""

from __future__ import annotations

import csv
import gzip
import io
import os
import sys
from collections.abc import Callable, Iterable
from typing import TextIO

from ..base.errors import UserError

HEADER = ("src", "trg", "label", "ts")
_CHUNK = 8192


def by_time(rows: list[tuple]) -> list[tuple]:
    """`rows` sorted by their time (field 3); a stable sort, so rows of one instant keep the
    source's order. O(n log n), O(1) for rows already in order (timsort's run detection)."""
    rows.sort(key=lambda row: row[3])
    return rows


def write_stream(
    rows: Iterable[tuple],
    out: str | os.PathLike | TextIO,
    progress: Callable[[int], None] | None = None,
) -> tuple[int, int | None, int | None]:
    """Write `rows` as CSV `src,trg,label,ts` to a path (`.gz` compresses, `-` is stdout) or
    an open text file; return `(rows, first ts, last ts)`.

    Raises UserError if a row's time is smaller than the one before it: a converter must hand
    rows over in time order (specs/semantics.md §1), and a file that breaks it must not be left
    looking complete.
    """
    if hasattr(out, "write"):
        return _write(rows, out, progress)
    path = os.fspath(out)
    if path == "-":
        result = _write(rows, sys.stdout, progress)
        sys.stdout.flush()
        return result
    try:
        if not path.endswith(".gz"):
            with open(path, "w", encoding="utf-8", newline="\n") as text:
                return _write(rows, text, progress)
        with open(path, "wb") as raw:
            with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz:
                with io.TextIOWrapper(gz, encoding="utf-8", newline="\n") as text:
                    return _write(rows, text, progress)
    except (FileNotFoundError, IsADirectoryError, PermissionError) as exc:
        raise UserError(f"cannot write '{path}': {exc.strerror}") from None


def _write(
    rows: Iterable[tuple], out: TextIO, progress: Callable[[int], None] | None
) -> tuple[int, int | None, int | None]:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(HEADER)
    n = 0
    first = last = None
    chunk: list[tuple] = []
    for row in rows:
        ts = row[3]
        if last is not None and ts < last:
            raise UserError(f"converter bug: row {n + 1} has time {ts} after time {last}")
        if first is None:
            first = ts
        last = ts
        chunk.append(row[:4])
        n += 1
        if len(chunk) == _CHUNK:
            writer.writerows(chunk)
            chunk.clear()
            if progress is not None:
                progress(n)
    writer.writerows(chunk)
    if progress is not None:
        progress(n)
    return n, first, last
