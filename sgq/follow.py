"""Inputs that grow: the sources of `sgq run --follow`.

`FileTail` reads a file like `tail -F`: whole lines as they are appended, across rotation (the
path renamed away and a new file created: the old file is read to its end first, then the new
one from its start) and truncation (`copytruncate`: read again from the start). `LandingDir`
reads a directory into which `sgq prepare` outputs land, one subdirectory per job, in name
order, each once its `_PREPARED.json` exists (the job finished). When a source has nothing
more for now it yields `TICK` (sgq/stream_io.py) and, asked again, waits a little: the run
loop (sgq/live.py) flushes, keeps its idle timer and hears stop requests on ticks.

Each source can say where it is (`mark()`: a plain dict, saved with a checkpoint) and start
there again (`resume=`), so a resumed run reads on from the line after the last one it had.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator

from .base.errors import UserError
from .parquet_input import is_prepared, read_prepared
from .stream_io import TICK, _header_columns, decoded_lines, parse_lines

POLL_SECONDS = 0.05  # how long a source waits before looking for more input
_CHUNK = 1 << 16


class FileTail:
    """The lines of the file at `path`, read as it grows (see the module docstring).

    `lines()` gives the lines (bytes, with their newline) of one file, the *generation*
    the path names now; it ends when the path has been replaced and the old file is read to
    its end. `next_generation()` then opens the new file. A line without its newline yet is
    held back until it is complete (the writer is still writing it)."""

    def __init__(self, path: str, resume: dict | None = None, poll: float = POLL_SECONDS):
        self.path = path
        self.poll = poll
        self.handle = None
        self.ident: tuple[int, int] | None = None  # (device, inode) of the open file
        self.offset = 0  # bytes of the file handed out as lines
        self.header: bytes | None = None  # a header line to hand out again (resumed)
        if resume is None:
            self._open_path()
        else:
            self._resume(resume)

    # ---- where it is
    def mark(self) -> dict:
        """The position after the last line handed out."""
        return {"device": self.ident[0], "inode": self.ident[1], "offset": self.offset}

    def _resume(self, mark: dict) -> None:
        ident = (mark["device"], mark["inode"])
        name = self._find(ident)
        if name is None:
            raise UserError(
                f"cannot resume following '{self.path}': the file the checkpoint was reading "
                "is gone (rotated away and deleted); delete the checkpoint to start over"
            )
        self._open(name)
        size = os.fstat(self.handle.fileno()).st_size
        if size < mark["offset"]:
            print(
                f"sgq run: warning: '{name}' is shorter than when the checkpoint was written "
                "(truncated); reading it from the start",
                file=sys.stderr,
            )
            return
        self.header = _first_line(self.handle) if mark["offset"] else None
        self.handle.seek(mark["offset"])
        self.offset = mark["offset"]

    def _find(self, ident: tuple[int, int]) -> str | None:
        """The path, or a file beside it (where rotation renames it), that is `ident`."""
        if _ident(self.path) == ident:
            return self.path
        folder = os.path.dirname(self.path) or "."
        for name in sorted(os.listdir(folder)):
            full = os.path.join(folder, name)
            if _ident(full) == ident:
                return full
        return None

    # ---- reading
    def _open_path(self) -> None:
        if not os.path.isfile(self.path):
            raise UserError(f"input file '{self.path}' does not exist")
        self._open(self.path)

    def _open(self, name: str) -> None:
        if self.handle is not None:
            self.handle.close()
        try:
            self.handle = open(name, "rb")
        except OSError as exc:
            raise UserError(f"cannot read input file '{name}': {exc.strerror or exc}") from None
        st = os.fstat(self.handle.fileno())
        self.ident = (st.st_dev, st.st_ino)
        self.offset = 0
        self.header = None

    def lines(self) -> Iterator[bytes]:
        """The lines of the current file, then TICKs while it does not grow; ends once the
        path names another file and this one is read to its end."""
        if self.header is not None:
            yield self.header  # a resumed reader's parser meets the header first again
            self.header = None
        held = b""
        while True:
            chunk = self.handle.read(_CHUNK)
            if chunk:
                parts = (held + chunk).split(b"\n")
                held = parts.pop()
                for part in parts:
                    self.offset += len(part) + 1
                    yield part + b"\n"
                continue
            if self._truncated(len(held)):
                self.handle.seek(0)
                self.offset, held = 0, b""
                print(
                    f"sgq run: warning: '{self.path}' was truncated; reading it from the start",
                    file=sys.stderr,
                )
                return
            if self._replaced():
                rest = self.handle.read()  # written between the last read and the rename
                parts = (held + rest).split(b"\n")
                for part in parts:
                    if part:
                        self.offset += len(part) + 1
                        yield part + b"\n"
                return
            yield TICK
            time.sleep(self.poll)

    def _truncated(self, held: int) -> bool:
        try:
            size = os.fstat(self.handle.fileno()).st_size
        except OSError:
            return False
        return size < self.offset + held

    def _replaced(self) -> bool:
        now = _ident(self.path)
        return now is not None and now != self.ident

    def next_generation(self) -> None:
        """Go on with the file the path names now (after `lines()` ended)."""
        if _ident(self.path) != self.ident:
            self._open_path()

    def close(self) -> None:
        if self.handle is not None:
            self.handle.close()


def _ident(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def _first_line(handle) -> bytes | None:
    handle.seek(0)
    line = handle.readline()
    return line if line.endswith(b"\n") else None


def tail_edges(
    tail: FileTail,
    fmt: str,
    columns,
    on_error,
    position: list[int],
    start: int = 0,
    names: tuple[str, ...] | None = None,
) -> Iterator:
    """Edges of a followed file and TICKs, generation after generation; each generation
    is parsed as a file of its own (its header, its line numbers). `start`: lines already
    read of the first generation (a resumed run); `names`: the input's property names (a
    resumed JSON Lines reader does not meet its first record again)."""
    while True:
        header = tail.header
        if header is not None and (fmt == "jsonl" or _header_columns(_fields(header, fmt)) is None):
            tail.header = header = None  # no header: nothing to hand out again
        lines = decoded_lines(tail.lines(), tail.path)
        first = start - 1 if header is not None else start
        yield from parse_lines(
            lines, fmt, columns, tail.path, on_error, position, first, names=names
        )
        tail.next_generation()
        start = 0


def _fields(line: bytes, fmt: str) -> list[str]:
    text = line.decode("utf-8", errors="replace").rstrip("\r\n")
    return text.split("\t" if fmt == "tsv" else ",")


class LandingDir:
    """The edges of the `sgq prepare` outputs that land in `path`: its subdirectories, in name
    order, each read once its manifest is there (a subdirectory without one is waited for: its
    job may still be running). A subdirectory that lands with a name before the last one read
    is never read (name them by time, e.g. `2024-05-01T10`)."""

    def __init__(self, path: str, resume: dict | None = None, poll: float = POLL_SECONDS):
        check_landing_dir(path)
        self.path = path
        self.poll = poll
        self.current: str | None = None  # the subdirectory being read, or the last one read
        self.rows = 0  # its rows handed out
        self.finished = True  # whether `current` has been read to its end
        if resume is not None:
            self.current, self.rows, self.finished = (
                resume["part"],
                resume["rows"],
                resume["finished"],
            )

    def mark(self) -> dict:
        return {"part": self.current, "rows": self.rows, "finished": self.finished}

    def edges(self, position: list[int]) -> Iterator:
        """Edges and TICKs; `position[0]` counts the rows of the subdirectory being read."""
        while True:
            if self.finished:
                name = self._next()
                if name is None:
                    yield TICK
                    time.sleep(self.poll)
                    continue
                self.current, self.rows, self.finished = name, 0, False
            skip, self.rows = self.rows, 0
            for edge in read_prepared(os.path.join(self.path, self.current)):
                self.rows += 1
                position[0] = self.rows
                if self.rows > skip:
                    yield edge
            self.finished = True

    def _next(self) -> str | None:
        """The first subdirectory after `current`, if its job has finished."""
        names = landed(self.path, self.current, limit=1)
        return names[0] if names else None


def check_landing_dir(path: str) -> None:
    """A UserError unless `path` is a directory sgq prepare outputs can land in."""
    if is_prepared(path):
        raise UserError(
            f"--follow: '{path}' is one finished sgq prepare output, which never grows; "
            "follow the directory such outputs land in"
        )
    if not os.path.isdir(path):
        raise UserError(f"input directory '{path}' does not exist")


def landed(path: str, after: str | None, limit: int | None = None) -> list[str]:
    """The subdirectories of the landing directory `path` that `LandingDir` reads next after
    `after` (None: from the first), in name order, up to the first whose job has not
    finished (no manifest yet) and at most `limit`. Shared with the Spark engine's streaming
    source (sgq/spark_landing.py), so both read a landing directory alike."""
    try:
        names = sorted(
            n
            for n in os.listdir(path)
            if not n.startswith((".", "_")) and os.path.isdir(os.path.join(path, n))
        )
    except OSError as exc:
        raise UserError(f"cannot list '{path}': {exc.strerror or exc}") from None
    out: list[str] = []
    for name in names:
        if after is not None and name <= after:
            continue
        if not is_prepared(os.path.join(path, name)) or len(out) == limit:
            break
        out.append(name)
    return out
