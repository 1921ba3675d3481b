"""`write_csv(rows, path_or_file)`: an edge stream to CSV with the header `src,trg,label,ts,op`.

The format `sgq run` reads (sgq/stream_io.py). Lines are written in chunks, so memory stays
bounded however long the stream; a chunk is checked once for characters that need CSV quoting
(generated ids never do) and only then goes through the csv module. `-` is stdout; a name
ending in `.gz` is gzip-compressed with a fixed header (no name, mtime 0), so a seed still gives
the same bytes.
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

HEADER = "src,trg,label,ts,op\n"
_CHUNK = 8192


def write_csv(
    rows: Iterable[tuple],
    out: str | os.PathLike | TextIO,
    progress: Callable[[int], None] | None = None,
) -> int:
    """Write `(src, trg, label, ts, op)` rows with a header; return the number of rows.

    `progress(rows_so_far)` is called after every chunk of 8192 rows.
    """
    if hasattr(out, "write"):
        return _write(rows, out, progress)
    path = os.fspath(out)
    if path == "-":
        n = _write(rows, sys.stdout, progress)
        sys.stdout.flush()
        return n
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


def _write(rows: Iterable[tuple], out: TextIO, progress: Callable[[int], None] | None) -> int:
    write = out.write
    write(HEADER)
    buf: list[tuple] = []
    append = buf.append
    n = 0
    for row in rows:
        append(row)
        if len(buf) == _CHUNK:
            write(_render(buf))
            buf.clear()
            n += _CHUNK
            if progress is not None:
                progress(n)
    if buf:
        write(_render(buf))
        n += len(buf)
        if progress is not None:
            progress(n)
    return n


def _render(rows: list[tuple]) -> str:
    """The chunk as CSV text; with quoting only if some field holds `,` `"` or a line break."""
    text = "".join([f"{s},{t},{l},{ts},{op}\n" for s, t, l, ts, op in rows])
    k = len(rows)
    if text.count(",") == 4 * k and text.count("\n") == k and '"' not in text and "\r" not in text:
        return text
    sink = io.StringIO()
    csv.writer(sink, lineterminator="\n").writerows(rows)
    return sink.getvalue()
