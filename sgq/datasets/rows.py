"""What every converter yields, and writing it in sgq's stream format.

A converter turns one source file into rows `(src, trg, label, ts, *properties)`, sorted by
`ts` (ties in the order the source gives them), with `ts` an integer in the dataset's
documented unit. The properties (a flight's delay and distance, a contact's roles) follow the
fixed fields in the order of the dataset's `properties` names; `write_stream` writes them as
the columns after the fixed fields (specs/semantics.md §1: a missing value is an empty field,
and a string that reads as a number is quoted, so that it stays a string).
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
    properties: tuple[str, ...] = (),
) -> tuple[int, int | None, int | None]:
    """Write `rows` as CSV `src,trg,label,ts` and the columns `properties` to a path (`.gz`
    compresses, `-` is stdout) or an open text file; return `(rows, first ts, last ts)`.

    Raises UserError if a row's time is smaller than the one before it: a converter must hand
    rows over in time order (specs/semantics.md §1), and a file that breaks it must not be left
    looking complete.
    """
    if hasattr(out, "write"):
        return _write(rows, out, progress, properties)
    path = os.fspath(out)
    if path == "-":
        result = _write(rows, sys.stdout, progress, properties)
        sys.stdout.flush()
        return result
    try:
        if not path.endswith(".gz"):
            with open(path, "w", encoding="utf-8", newline="\n") as text:
                return _write(rows, text, progress, properties)
        with open(path, "wb") as raw:
            with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz:
                with io.TextIOWrapper(gz, encoding="utf-8", newline="\n") as text:
                    return _write(rows, text, progress, properties)
    except (FileNotFoundError, IsADirectoryError, PermissionError) as exc:
        raise UserError(f"cannot write '{path}': {exc.strerror}") from None


def _write(
    rows: Iterable[tuple],
    out: TextIO,
    progress: Callable[[int], None] | None,
    properties: tuple[str, ...],
) -> tuple[int, int | None, int | None]:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(HEADER + properties)
    width = len(HEADER) + len(properties)
    write = writer.writerows if width == len(HEADER) else out.writelines
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
        chunk.append(row[:4] if width == 4 else _line(row[:width]))
        n += 1
        if len(chunk) == _CHUNK:
            write(chunk)
            chunk.clear()
            if progress is not None:
                progress(n)
    write(chunk)
    if progress is not None:
        progress(n)
    return n, first, last


def _line(row: tuple) -> str:
    """One CSV line of a row with property values: a missing value empty; a string quoted
    when it would read back as something else (a number, missing) or holds a separator."""
    fixed, values = row[:4], row[4:]
    cells = [_text(str(f), False) for f in fixed]
    for value in values:
        if value is None:
            cells.append("")
        elif isinstance(value, str):
            cells.append(_text(value, value == "" or _numeric(value)))
        else:
            cells.append(repr(value) if isinstance(value, float) else str(value))
    return ",".join(cells) + "\n"


def _text(text: str, quote: bool) -> str:
    if quote or any(c in text for c in ',"\n\r') or text != text.strip():
        return '"' + text.replace('"', '""') + '"'
    return text


def _numeric(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
