"""A finished file's edges a chunk at a time: the reader of `sgq run -i FILE` and `read_edges`.

Reading a line at a time (stream_io.DelimitedParser.lines) costs a split, four strips, an
`int` and a generator step per edge, as much as the engine spends on an edge of a light query.
A chunk of a finished CSV/TSV file (FileLines.chunks, about a megabyte of whole lines) is read
whole when it is *plain*: no quote, comment, blank line or whitespace but its line breaks (and
the TSV tab), every line with as many delimiters as the columns need. Then its fields are one
split of the chunk, its columns slices of that list, its times one `map(int, ...)`: loops in C,
no bytecode per edge. Any other chunk, or one whose fields would not make edges (an empty
vertex, a time that is not one or out of range, an unknown op), is read by the line reader, so errors,
`--on-error skip`, quoting and comments are exactly its own; so is a file's first line (a
header, or the line that fixes the number of columns).

A block is an `EdgeBlock`: its edges `(src, trg, label, ts, op)` (with a sixth field, the dict
of the line's properties, where the input has property columns), their times, and each edge's
line number (the order check's messages, reorder.ordered_blocks). Given the labels a program
reads, a plain chunk makes no edge of any other label (`EdgeBlock.kept`): on a stream whose
labels are mostly unread, most of its lines then cost only their split. A bad line stops the
input as it does line by line: the block of the edges before it comes first, then the error.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Container, Iterable, Iterator
from itertools import compress, repeat

from .base.errors import UserError
from .property_values import present, typed_column

INT64_MIN = -(1 << 63)  # the range of a time (specs/semantics.md §1)
INT64_MAX = (1 << 63) - 1

#: what `str.strip()` removes besides the line break: a plain chunk has none of it (nor `"`
#: nor `#`), so its fields need neither stripping nor the csv module
_WHITESPACE = (
    "\t\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
_ASCII_NOT_PLAIN = '"#' + "".join(c for c in _WHITESPACE if c < "\x80")
_OPS = frozenset(("+", "-", ""))


class EdgeBlock:
    """Edges read together: `edges[i]` has time `times[i]` and was read on line `lines[i]`.
    Where the reader was given the labels the program reads, a plain chunk's edges of other
    labels are left out of `edges` (no tuple is made for them): `times` and `lines` are still
    every line's, and `kept[i]` says whether line `lines[i]`'s edge is in `edges` (None: all
    are)."""

    __slots__ = ("edges", "times", "lines", "kept")

    def __init__(self, edges: list, times: list, lines: range | list, kept=None) -> None:
        self.edges = edges
        self.times = times
        self.lines = lines
        self.kept = kept

    @property
    def left_out(self) -> int:
        """How many of the block's edges are left out of `edges` (labels no rule reads)."""
        return len(self.times) - len(self.edges)

    def edges_before(self, i: int) -> list:
        """The edges of the block's lines before its `i`-th."""
        return self.edges[: i if self.kept is None else sum(self.kept[:i])]


def counting_left_out(
    blocks: Iterable[EdgeBlock], count: Callable[[int], None]
) -> Iterator[EdgeBlock]:
    """`blocks` as they come, `count` told how many edges each one left out (labels no rule
    reads): such edges are read and ignored, and the engine would only have counted them."""
    for block in blocks:
        if block.kept is not None:
            count(block.left_out)
        yield block


def edge_blocks(
    chunks: Iterable[str | list],
    read_lines: Callable[..., Iterator],
    parser=None,
    start: int = 0,
    labels: Container[str] | None = None,
) -> Iterator[EdgeBlock]:
    """The edges of `chunks` (FileLines.chunks: a text of whole lines, or a list of lines),
    line `start + 1` first. `read_lines(lines, position, start)` is the line reader;
    `parser`, a DelimitedParser (its `lines` being `read_lines`), reads plain chunks whole
    once it knows the columns (`settled`); without it every chunk goes line by line (JSON
    Lines). `labels`: the labels the program reads, when a plain chunk may leave out the
    edges of others (`EdgeBlock.kept`); the line reader gives every edge."""
    lineno = start
    for chunk in chunks:
        if type(chunk) is not str:
            yield from _by_lines(read_lines, chunk, lineno)
            lineno += len(chunk)
            continue
        if parser is not None:
            while chunk and not parser.settled():  # the first line: the line reader's
                cut = chunk.index("\n")
                yield from _by_lines(read_lines, (chunk[:cut],), lineno)
                lineno += 1
                chunk = chunk[cut + 1 :]
        if not chunk:
            continue
        block = _plain(chunk, parser, lineno + 1, labels) if parser is not None else None
        if block is None:
            lines = chunk.split("\n")
            lines.pop()  # the empty text after the last newline
            yield from _by_lines(read_lines, lines, lineno)
            lineno += len(lines)
        else:
            yield block
            lineno += len(block.times)


def _by_lines(read_lines: Callable[..., Iterator], lines, lineno: int) -> Iterator[EdgeBlock]:
    """One block of what the line reader makes of `lines`; at a bad line that stops the
    input, the block of the edges before it, then the error."""
    position = [lineno]
    edges: list = []
    numbers: list = []
    try:
        for edge in read_lines(lines, position, lineno):
            edges.append(edge)
            numbers.append(position[0])
    except UserError:
        if edges:
            yield EdgeBlock(edges, [e[3] for e in edges], numbers)
        raise
    if edges:
        yield EdgeBlock(edges, [e[3] for e in edges], numbers)


#: per delimiter, a character that makes a chunk not plain (a non-ASCII chunk's search)
_NOT_PLAIN = {
    d: re.compile("[" + re.escape('"#\ufeff' + _WHITESPACE.replace(d, "")) + "]")
    for d in (",", "\t")
}


def _plain(text: str, parser, first: int, labels=None) -> EdgeBlock | None:
    """The edges of `text` (whole lines, the first being line `first`) read at once, or None
    when it is not plain (see the module docstring): then the line reader reads it. With
    `labels`, only the edges of those labels are made (`EdgeBlock.kept`)."""
    d = parser.delimiter
    ascii = text.isascii()
    if ascii:
        for c in _ASCII_NOT_PLAIN:
            if c in text and c != d:
                return None
    elif _NOT_PLAIN[d].search(text):
        return None
    width = len(parser.order)
    lines = text.split("\n")
    lines.pop()  # the empty text after the last newline
    if "" in lines:  # a blank line
        return None
    if set(map(str.count, lines, repeat(d))) != {width - 1}:
        return None  # a line with more or fewer fields than the columns
    n = len(lines)
    fields = text.replace("\n", d).split(d)
    fields.pop()  # the empty text after the last newline
    i_src, i_trg, i_label, i_ts, i_op = parser.at
    src, trg, label = fields[i_src::width], fields[i_trg::width], fields[i_label::width]
    if "" in src or "" in trg or "" in label:
        return None
    stamps = fields[i_ts::width]
    try:
        times = list(map(int, stamps))
    except ValueError:
        return None
    # `int` takes more than times (stream_io.time_of): a `+`, a `_`, digits of other scripts
    # (whitespace: not in a plain chunk); the column is checked only if the chunk has them
    if not ascii or "_" in text or "+" in text:
        joined = "".join(stamps)
        if not joined.isascii() or "_" in joined or "+" in joined:
            return None
    if times and (max(times) > INT64_MAX or ("-" in text and min(times) < INT64_MIN)):
        return None
    if i_op is None:
        ops = repeat("+", n)
    else:
        ops = fields[i_op::width]
        kinds = set(ops)
        if not kinds <= _OPS:
            return None
        if "" in kinds:
            ops = [op or "+" for op in ops]
    columns = [src, trg, label, times, ops]
    if parser.names is not None:
        columns.append(_properties(fields, parser, width))
    kept = None if labels is None else list(map(labels.__contains__, label))
    if kept is not None and not all(kept):  # each column cut in C, then tuples of the rest
        edges = list(zip(*(compress(column, kept) for column in columns)))
        return EdgeBlock(edges, times, range(first, first + n), kept)
    return EdgeBlock(list(zip(*columns)), times, range(first, first + n))


def _properties(fields: list[str], parser, width: int) -> list[dict]:
    """Each line's properties (property_values.present) of a plain chunk's `fields`: a column
    at a time, typed as the line reader types an unquoted field (none is quoted here)."""
    names = parser.names
    columns = [typed_column(fields[i::width]) for i in parser.props]
    if len(columns) == 1:  # (one property, the common case: a dict display per line)
        name, column = names[0], columns[0]
        if None in column:
            return [{} if value is None else {name: value} for value in column]
        return [{name: value} for value in column]
    rows = zip(*columns)
    if any(None in column for column in columns):
        return [present(names, values) for values in rows]
    return [dict(zip(names, values)) for values in rows]
