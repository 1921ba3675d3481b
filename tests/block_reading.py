"""Test support: a finished file read a block at a time (sgq/edge_blocks.py) against the line
reader, chunks ending anywhere."""

from __future__ import annotations

import io
from collections.abc import Callable

from sgq.stream_io import StreamError, parse_lines


class Pieces(io.BytesIO):
    """A file whose `read1` returns at most `piece` bytes: chunks end anywhere."""

    def __init__(self, blob: bytes, piece: int) -> None:
        super().__init__(blob)
        self.piece = piece

    def read1(self, size: int = -1) -> bytes:
        return super().read1(self.piece)


def read_all(
    lines,
    fmt: str,
    columns,
    skip: bool,
    form: Callable = lambda edge: edge,
    properties: bool = True,
):
    """(edges, as `form` shows them, with their lines; bad lines reported; the error that
    stopped the input). `properties`: read the property columns."""
    position = [0]
    bad: list = []
    got: list = []
    on_error = (lambda exc, line: bad.append((str(exc), line))) if skip else None
    read = parse_lines(lines, fmt, columns, "in", on_error, position, properties=properties)
    try:
        for edge in read:
            got.append((form(edge), position[0]))
    except StreamError as exc:
        return got, bad, str(exc)
    return got, bad, None
