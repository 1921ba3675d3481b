"""Reading edge streams and writing results: the file formats of `sgq run` and `sgq verify`.

Input: one edge per line, CSV (default), TSV or JSON Lines; the columns are `src, trg, label,
ts` and optionally `op` (`+` insert, `-` delete, specs/semantics.md §1). A header line is optional;
its columns are read by name, in any order (`Source`, `time`... are aliases, `_ALIASES`);
`columns` maps a file without one (`ts,src,label,trg`). Vertex ids and labels are kept as text
(in JSON, a string or an integer); a time is an ASCII decimal integer with an optional `-`,
within int64 (`time_of`). specs/semantics.md §7 says what is refused and why.

The header's other columns, and a JSON record's other fields, are the edge's properties
(specs/semantics.md §1; values typed by sgq/property_values.py): the edges of such an input
have a sixth field, the dict of the properties present. The names are known once the header
(the first JSON record) is read: `file_head` and `peek_head` read them, and whether the input
has an op column, from the head of an input before its engine is built.

A malformed line raises `StreamError` naming the file, the line and the reason, the input text
it quotes shown by `shown` (control characters escaped, long text cut); with
`on_error="skip"` the reader reports it to a callback and goes on (specs/semantics.md §7). What
leaves no line after it readable (a header naming unknown columns, a damaged .gz) is an
`UnreadableInput`, which stops the input whatever `on_error` says.
"""

from __future__ import annotations

import csv
import itertools
import json
import os
import sys
import zlib
from collections.abc import Callable, Iterable, Iterator
from typing import NamedTuple, TextIO

from .base.errors import UserError
from .edge_blocks import INT64_MAX, INT64_MIN, EdgeBlock, edge_blocks
from .incremental.deltas import Fans, csv_plain, rows_of
from .incremental.fan_rows import FanRows, Pairs, Sources
from .property_values import field_values, json_value, present, quoted_fields

Edge = tuple  # (src, trg, label, ts, op), and the dict of its properties where the input has some

COLUMNS = ("src", "trg", "label", "ts", "op")
REQUIRED = ("src", "trg", "label", "ts")
_ALIASES = {
    "source": "src",
    "from": "src",
    "target": "trg",
    "dst": "trg",
    "to": "trg",
    "time": "ts",
    "timestamp": "ts",
    "type": "label",
    "l": "label",
    "lbl": "label",
}
FORMATS = ("csv", "tsv", "jsonl")
BOM = "\ufeff"  # a byte order mark: skipped where it opens a line


class StreamError(UserError):
    """A malformed input line: `FILE:LINE: reason` (`FILE:LINE:COL: reason` where the column
    is known)."""

    def __init__(self, filename: str, line: int, reason: str, col: int | None = None):
        where = f"{_escaped(filename)}:{line}" + ("" if col is None else f":{col}")
        super().__init__(f"{where}: {reason}")
        self.filename, self.line, self.reason, self.col = filename, line, reason, col


class UnreadableInput(StreamError):
    """A StreamError after which no line can be read right, so it stops the input whatever
    `on_error` says: a header that cannot be read, a damaged or truncated file."""


class DamagedInput(UnreadableInput):
    """The bytes of the input cannot be read on (a damaged .gz, an I/O error)."""


def _escaped(text: str) -> str:
    """`text` with every character that does not print (NUL, ESC, other controls, a BOM)
    written as a Python escape (`\\x00`, `\\x1b`, `\\ufeff`): a message shows the input
    without acting on the terminal."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else _escape(c) for c in text)


def _escape(c: str) -> str:
    o = ord(c)
    return f"\\x{o:02x}" if o < 0x100 else f"\\u{o:04x}" if o < 0x10000 else f"\\U{o:08x}"


def shown(text: str, limit: int = 40) -> str:
    """Input text quoted for a message: cut after `limit` characters (`...`) and escaped, so
    a message stays one short line whatever the input holds.

    >>> shown("1\\x00\\x1b[31m")
    "'1\\\\x00\\\\x1b[31m'"
    """
    if len(text) > limit:
        text = text[:limit] + "..."
    return f"'{_escaped(text)}'"


# ---- times ---------------------------------------------------------------------------------


def is_time(text: str) -> bool:
    """Whether `text` is written as a time: ASCII digits with an optional leading `-` (not
    `+5`, `1_000`, `١٢` or `１２`, which Python's `int` takes)."""
    digits = text[1:] if text[:1] == "-" else text
    return digits.isdigit() and digits.isascii()


def time_of(text: str, filename: str, lineno: int) -> int:
    """The time a field (stripped) holds: an ASCII decimal integer with an optional `-`,
    within int64; else a StreamError saying why not."""
    if is_time(text):
        if len(text) <= 20:  # (longer: out of range, and not worth converting)
            t = int(text)
            if INT64_MIN <= t <= INT64_MAX:
                return t
        raise StreamError(
            filename, lineno, f"time {shown(text)} is outside int64 ({INT64_MIN} to {INT64_MAX})"
        )
    raise StreamError(filename, lineno, f"time {shown(text)} is not an integer{_why_not(text)}")


def _why_not(text: str) -> str:
    """A hint for a time Python's `int` would take (a sign, `_`, other digits)."""
    try:
        int(text)
    except ValueError:
        return ""
    return " (a time is written with the digits 0-9 and an optional '-' only)"


# ---- columns and headers -------------------------------------------------------------------


def column_name(name: str) -> str:
    """A column (or JSON field) name as the reader knows it: stripped, lower case, an alias
    resolved (`Source` -> `src`). A name that is no column comes back stripped and lowered."""
    name = name.strip().lower()
    return _ALIASES.get(name, name)


def parse_columns(spec: str | Iterable[str] | None) -> tuple[str, ...]:
    """`"src,trg,label,ts"` -> the column order; checks names and that the required ones exist."""
    if spec is None:
        return COLUMNS[:4]
    names = [c.strip().lower() for c in (spec.split(",") if isinstance(spec, str) else spec)]
    names = [_ALIASES.get(n, n) for n in names]
    for n in names:
        if n not in COLUMNS and n not in ("_", ""):
            raise UserError(
                f"unknown column {shown(n)} in --columns (use src, trg, label, ts, op; _ skips one)"
            )
    missing = [c for c in REQUIRED if c not in names]
    if missing:
        raise UserError(f"--columns lacks {', '.join(missing)} (needs src, trg, label, ts)")
    dup = {n for n in names if names.count(n) > 1 and n not in ("_", "")}
    if dup:
        raise UserError(f"--columns names {', '.join(sorted(dup))} twice")
    return tuple(names)


def guess_format(path: str | None) -> str:
    """csv, tsv or jsonl from the file name (csv for stdin and unknown endings)."""
    if not path or path == "-":
        return "csv"
    name = path.lower()
    for ending in (".gz",):
        if name.endswith(ending):
            name = name[: -len(ending)]
    if name.endswith((".tsv", ".tab")):
        return "tsv"
    if name.endswith((".jsonl", ".ndjson", ".json")):
        return "jsonl"
    return "csv"


def _header_names(fields: list[str]) -> list[str] | None:
    """The column names of a header line, or None when `fields` are no header: a header
    names two of the columns or more and holds nothing written as a time (a data line
    holds its time)."""
    names = [column_name(f) for f in fields]
    if len(COLUMN_SET.intersection(names)) < 2:
        return None
    if any(is_time(f.strip()) for f in fields):
        return None
    return names


COLUMN_SET = frozenset(COLUMNS)


def header_columns(fields: list[str], filename: str, lineno: int) -> tuple[str, ...] | None:
    """The column order a first line names, or None when it is no header (`_header_names`).
    A column that is none of sgq's (`COLUMNS` and their aliases) is a property, named as
    written (stripped; specs/semantics.md §1). A header that names a column twice, a column
    without a name, or not every required one is an UnreadableInput: no line after it could
    be read right."""
    names = _header_names(fields)
    if names is None:
        return None
    order = tuple(n if n in COLUMN_SET else f.strip() for f, n in zip(fields, names))
    for name in dict.fromkeys(order):
        given = [f.strip() for f, n in zip(fields, order) if n == name]
        if len(given) > 1:
            raise UnreadableInput(
                filename,
                lineno,
                f"the header names column {_escaped(name)} twice ({', '.join(map(shown, given))})",
            )
    if "" in order:
        raise UnreadableInput(
            filename, lineno, f"the header's column {order.index('') + 1} has no name"
        )
    missing = [c for c in REQUIRED if c not in names]
    if missing:
        raise UnreadableInput(
            filename, lineno, f"the header lacks {', '.join(missing)} (needs src, trg, label, ts)"
        )
    return order


def property_names(order: tuple[str, ...]) -> tuple[str, ...] | None:
    """The properties among the columns `order` (those after sgq's own), None when none."""
    names = tuple(n for n in order if n not in COLUMN_SET and n != "_")
    return names or None


def first_order(fields: list[str], filename: str, lineno: int) -> tuple[str, ...]:
    """The columns of an input with neither a header nor `columns`, by the width of its first
    good line: src, trg, label, ts and, in a fifth column, op."""
    if len(fields) == 4:
        return COLUMNS[:4]
    if len(fields) == 5:
        return COLUMNS
    hint = (
        "; to read the columns after them as edge properties, give the file a header naming "
        "every column"
        if len(fields) > 5
        else ""
    )
    raise StreamError(
        filename,
        lineno,
        f"expected 4 or 5 columns (src,trg,label,ts[,op]), found {len(fields)}{hint}",
    )


def positions(order: tuple[str, ...]) -> tuple:
    """Where src, trg, label, ts and op are in a line of columns `order` (None: no op)."""
    return tuple(order.index(c) if c in order else None for c in COLUMNS)


def property_positions(order: tuple[str, ...]) -> tuple[int, ...]:
    """Where the properties (`property_names`) are in a line of columns `order`."""
    return tuple(i for i, n in enumerate(order) if n not in COLUMN_SET and n != "_")


def _header_columns(fields: list[str]) -> tuple[str, ...] | None:
    """The names of a first line that is a header (read or refused by `header_columns`),
    else None: whether a reader meets a header there (sgq/follow.py)."""
    if fields and fields[0][:1] == BOM:
        fields = [fields[0][1:], *fields[1:]]
    names = _header_names(fields)
    return None if names is None else tuple(names)


def split_fields(line: str, delimiter: str) -> list[str]:
    """A CSV/TSV line's fields. Without a quote a line is its fields joined by the delimiter
    (the fast path, and the rule: a stray carriage return inside a field is data, as it is
    for `str.split`); with one, the csv module's quoting rules (which raise csv.Error on a
    malformed line)."""
    if '"' not in line:
        return line.split(delimiter)
    fields = _Quoted(next(csv.reader([line], delimiter=delimiter)))
    fields.line = line
    return fields


class _Quoted(list):
    """The fields of a line with a quote (the csv module's), with the line: which fields were
    quoted, asked only where a property's type depends on it (property_values)."""

    __slots__ = ("line",)


# ---- one edge ------------------------------------------------------------------------------


def _edge(values: dict[str, str], filename: str, lineno: int) -> Edge:
    """The edge of one record's fields as text (JSON Lines, sgq prepare's rows)."""
    src, trg, label = values.get("src", ""), values.get("trg", ""), values.get("label", "")
    for name, value in (("src", src), ("trg", trg), ("label", label)):
        if value == "":
            raise StreamError(filename, lineno, f"empty {name}")
    ts = time_of(values.get("ts", "").strip(), filename, lineno)
    op = values.get("op", "+").strip() or "+"
    if op not in ("+", "-"):
        raise StreamError(filename, lineno, f"unknown op {shown(op)} (use + or -)")
    return (src, trg, label, ts, op)


class _Fields(list):
    """A JSON object as its `(key, value)` pairs in order (json's `object_pairs_hook`): a key
    given twice is seen, not silently the last one."""


_decode_json = json.JSONDecoder(object_pairs_hook=_Fields).decode


def json_values(
    line: str,
    columns: tuple[str, ...] | None,
    filename: str,
    lineno: int,
    indent: int,
    props: dict,
) -> dict[str, str]:
    """The fields of one JSON Lines record (`line`, stripped; `indent`: the characters
    stripped before it) as the text `_edge` reads: an object of named fields (aliases too)
    or an array in `columns` order (default src, trg, label, ts[, op]). A vertex or a label
    is a string or an integer; `null`, `true`, a float, an array or an object there is a bad
    line, as are a repeated field and JSON nested too deeply to read. A field that is no
    column is an edge property, put in `props` (property_values.json_value: None for a
    `null`)."""
    if line[:1] == BOM:  # a byte order mark opening the line is no text (DelimitedParser.lines)
        line = line[1:]
        indent += 1
    try:
        obj = _decode_json(line)
    except json.JSONDecodeError as exc:
        raise StreamError(
            filename, lineno, f"invalid JSON ({exc.msg})", indent + exc.colno
        ) from None
    except RecursionError:
        raise StreamError(filename, lineno, "invalid JSON (nested too deeply to read)") from None
    except ValueError as exc:  # an integer of more digits than Python converts
        raise StreamError(
            filename, lineno, f"invalid JSON ({str(exc).partition(';')[0]})"
        ) from None
    if type(obj) is _Fields:
        pairs = [(column_name(key), value) for key, value in obj]
        unknown = [key.strip() for (name, _), (key, _) in zip(pairs, obj) if name not in COLUMN_SET]
        if unknown:
            _json_properties(obj, pairs, props, filename, lineno)
        names = [name for name, _ in pairs]
        for name in COLUMNS:
            if names.count(name) > 1:
                given = [key for (n, _), (key, _) in zip(pairs, obj) if n == name]
                raise StreamError(
                    filename, lineno, f"{name} given twice ({', '.join(map(shown, given))})"
                )
        missing = [c for c in REQUIRED if c not in names]
        if missing:
            raise StreamError(filename, lineno, f"missing {', '.join(missing)}")
    elif type(obj) is list:
        if len(obj) not in (4, 5) or (columns and len(obj) != len(columns)):
            raise StreamError(filename, lineno, f"expected 4 or 5 values, found {len(obj)}")
        pairs = zip(columns or COLUMNS, obj)
    else:
        raise StreamError(filename, lineno, "expected a JSON object or array")
    values = {}
    for name, value in pairs:
        kind = type(value)
        if kind is str:
            values[name] = value
        elif kind is int:
            values[name] = str(value)
        elif name == "ts" or name == "op":  # the time's and the op's own checks say why not
            values[name] = json.dumps(value)
        elif name in COLUMN_SET:
            what = "a label" if name == "label" else "a vertex"
            raise StreamError(
                filename, lineno, f"{name} is {_json_kind(value)}: {what} is a string or an integer"
            )
    return values


def _json_properties(obj: list, pairs: list, props: dict, filename: str, lineno: int) -> None:
    """The properties of a JSON record's fields that are no column, into `props`: named as
    written (stripped), each given once, a number, a string or null (missing)."""
    for (name, value), (key, _) in zip(pairs, obj):
        if name in COLUMN_SET:
            continue
        key = key.strip()
        if key in props or not key:
            why = "given twice" if key else "has no name"
            raise StreamError(filename, lineno, f"property {shown(key)} {why}")
        try:
            typed = json_value(value)
        except ValueError as exc:
            raise StreamError(
                filename, lineno, f"property {shown(key)} is {_json_kind(value)}: {exc}"
            ) from None
        props[key] = typed


def _json_kind(value) -> str:
    if value is None:
        return "null"
    if type(value) is bool:
        return "true" if value else "false"
    if type(value) is float:
        return f"a float ({_escaped(json.dumps(value))})"
    return "an object" if type(value) is _Fields else "an array"


# ---- line readers --------------------------------------------------------------------------


class DelimitedParser:
    """The state of reading one CSV/TSV input: the column order (from `columns`, a header
    line, or the first line's width), the positions of src, trg, label, ts and op in a line,
    and the names and positions of the properties a header names after them. `lines` reads
    lines one at a time; sgq/edge_blocks.py reads a finished file's plain chunks whole with
    the same state, and hands the others to `lines`."""

    __slots__ = (
        "delimiter",
        "order",
        "at",
        "first",
        "filename",
        "on_error",
        "names",
        "props",
        "keep",
    )

    def __init__(
        self,
        delimiter: str,
        columns: tuple[str, ...] | None,
        filename: str,
        on_error: Callable[[StreamError, str], None] | None,
        properties: bool = True,
    ) -> None:
        """`properties`: read the property columns (False: every edge has four or five
        fields, as if the input had none; they are never refused, so the edges and errors
        are the same)."""
        self.delimiter = delimiter
        self.keep = properties
        self.order = columns
        self.at: tuple | None = None  # positions of src, trg, label, ts, op (None: no op)
        self.first = True  # the first line (blank, comment and bad lines aside) is still to come
        self.filename = filename
        self.on_error = on_error
        #: the input's property names (None: it has none) and their positions in a line,
        #: known once `settled`
        self.names: tuple[str, ...] | None = None
        self.props: tuple[int, ...] = ()

    def settled(self) -> bool:
        """Whether the column positions are known (the first line read): every later line
        is read the same way. Sets `at`, `names` and `props` when it is."""
        if self.first or self.order is None:
            return False
        if self.at is None:
            self.at = positions(self.order)
            if self.keep:
                self.names = property_names(self.order)
                self.props = property_positions(self.order)
        return True

    def deletes(self) -> bool:
        """Whether a `-` edge can come: the input has an op column (known once `settled`)."""
        return self.at is None or self.at[4] is not None

    def edge_reader(self) -> Callable[[list[str], tuple, str, int], tuple]:
        """What makes a settled line's edge of its fields: `_edge_at`, or for an input with
        properties, `_edge_at` and a sixth field, the dict of the properties the line has
        (specs/semantics.md §1)."""
        if self.names is None:
            return _edge_at
        names, props, delimiter = self.names, self.props, self.delimiter

        def edge_with_properties(fields: list[str], at: tuple, filename: str, lineno: int):
            edge = _edge_at(fields, at, filename, lineno)
            return (*edge, line_properties(fields, props, names, delimiter))

        return edge_with_properties

    def _first_line(self, fields: list[str], lineno: int) -> Edge | None:
        """The first line that is not blank, a comment or a bad line: a header (None; it
        gives the order unless `columns` did) or the first edge, whose width fixes the
        columns where nothing else did. A bad line raises, and the next line is first in
        its place: the columns are those of the input without its bad lines."""
        if self.order is None:
            header = header_columns(fields, self.filename, lineno)
            if header is not None:
                self.order, self.first = header, False
                self.settled()
                return None
        elif _header_names(fields) is not None:  # a header, where `columns` gives the order
            self.first = False
            self.settled()
            return None
        order = self.order or first_order(fields, self.filename, lineno)
        if len(fields) != len(order):
            raise StreamError(
                self.filename,
                lineno,
                f"expected {len(order)} columns ({','.join(order)}), found {len(fields)}",
            )
        edge = _edge_at(fields, positions(order), self.filename, lineno)
        self.order, self.first = order, False
        self.settled()
        return edge

    def lines(
        self, lines: Iterable[str], position: list[int] | None = None, start: int = 0
    ) -> Iterator[Edge]:
        """The edges of `lines`, line `start + 1` first; `position[0]`: the line read."""
        delimiter, filename, on_error = self.delimiter, self.filename, self.on_error
        # (locals on the hot loop; the state is written back when it changes)
        first, at, order = self.first, self.at, self.order
        edge_at = self.edge_reader()
        lineno = start
        for raw in lines:
            if raw is TICK:  # not a line: the source is waiting for more (sgq/follow.py)
                yield TICK
                continue
            lineno += 1
            line = raw.rstrip("\r\n")
            if position is not None:
                position[0] = lineno
            head = line.lstrip()
            if not head or head[0] in _MARKS:  # (one test on the hot loop for both)
                if not head or head[0] == "#":  # blank, or a comment
                    continue
                # a byte order mark opening the line (a file's, or one of the files
                # concatenated into it) is no text
                line = head[1:]
                head = line.lstrip()
                if not head or head[0] == "#":
                    continue
            try:
                if isinstance(raw, BadEncoding):
                    raise StreamError(filename, lineno, "not valid UTF-8")
                # split_fields' fast path inline: one call less per edge on the hot loop
                fields = line.split(delimiter) if '"' not in line else split_fields(line, delimiter)
                if first:
                    edge = self._first_line(fields, lineno)
                    first, at, order = False, self.at, self.order
                    edge_at = self.edge_reader()
                    if edge is not None:
                        yield edge
                    continue
                if len(fields) != len(order):
                    raise StreamError(
                        filename,
                        lineno,
                        f"expected {len(order)} columns ({','.join(order)}), found {len(fields)}",
                    )
                yield edge_at(fields, at, filename, lineno)
            except StreamError as exc:
                if on_error is None or isinstance(exc, UnreadableInput):
                    raise
                on_error(exc, line)
            except csv.Error as exc:
                err = StreamError(filename, lineno, f"malformed line ({_escaped(str(exc))})")
                if on_error is None:
                    raise err from None
                on_error(err, line)


def line_properties(
    fields: list[str], props: tuple[int, ...], names: tuple[str, ...], delimiter: str
) -> dict:
    """The properties of a CSV/TSV line's `fields` (split_fields'): the fields at `props`,
    named `names`, typed (property_values), the missing left out."""
    quoted = quoted_fields(fields.line, delimiter) if type(fields) is _Quoted else None
    return present(names, field_values(fields, props, quoted))


_MARKS = "#" + BOM  # what may open a line not read as it is: a comment, a byte order mark


def _edge_at(fields: list[str], at: tuple, filename: str, lineno: int) -> Edge:
    """`_edge` of a delimited line's fields, read at the column positions `at`."""
    i_src, i_trg, i_label, i_ts, i_op = at
    src, trg, label = fields[i_src].strip(), fields[i_trg].strip(), fields[i_label].strip()
    if not (src and trg and label):
        for name, value in (("src", src), ("trg", trg), ("label", label)):
            if value == "":
                raise StreamError(filename, lineno, f"empty {name}")
    ts_text = fields[i_ts].strip()
    # `time_of` inline for the common case: up to 18 ASCII digits are a time within int64
    if ts_text.isdigit() and len(ts_text) < 19 and ts_text.isascii():
        ts = int(ts_text)
    else:
        ts = time_of(ts_text, filename, lineno)
    op = (fields[i_op].strip() or "+") if i_op is not None else "+"
    if op != "+" and op != "-":
        raise StreamError(filename, lineno, f"unknown op {shown(op)} (use + or -)")
    return (src, trg, label, ts, op)


class JsonLinesParser:
    """The state of reading one JSON Lines input: its property names, fixed by its first good
    record's fields that are no column (None: it has none; specs/semantics.md §1). A later
    record may lack some of them (missing), not name others: the engine is built knowing
    the input's properties before its records are read."""

    __slots__ = ("columns", "filename", "on_error", "names", "first")

    def __init__(
        self,
        columns: tuple[str, ...] | None,
        filename: str,
        on_error: Callable[[StreamError, str], None] | None,
    ) -> None:
        self.columns = columns
        self.filename = filename
        self.on_error = on_error
        self.names: tuple[str, ...] | None = None
        self.first = True  # no good record read yet

    def settled(self) -> bool:
        """Whether the property names are known (the first good record read)."""
        return not self.first

    def deletes(self) -> bool:
        """Whether a `-` edge can come: any record may have an op."""
        return True

    def lines(
        self, lines: Iterable[str], position: list[int] | None = None, start: int = 0
    ) -> Iterator[Edge]:
        """The edges of `lines`, line `start + 1` first; `position[0]`: the line read."""
        columns, filename, on_error = self.columns, self.filename, self.on_error
        lineno = start
        for raw in lines:
            if raw is TICK:  # see DelimitedParser.lines
                yield TICK
                continue
            lineno += 1
            line = raw.strip()
            if position is not None:
                position[0] = lineno
            if not line:
                continue
            try:
                if isinstance(raw, BadEncoding):
                    raise StreamError(filename, lineno, "not valid UTF-8")
                indent = len(raw) - len(raw.lstrip())
                props: dict = {}
                values = json_values(line, columns, filename, lineno, indent, props)
                edge = _edge(values, filename, lineno)
                if self.first:
                    self.first = False
                    self.names = tuple(props) or None
                yield json_edge(edge, props, self.names, filename, lineno)
            except StreamError as exc:
                if on_error is None or isinstance(exc, UnreadableInput):
                    raise
                on_error(exc, line)


def json_edge(
    edge: Edge, props: dict, names: tuple[str, ...] | None, filename: str, lineno: int
) -> tuple:
    """The edge of a JSON record whose fields that are no column are `props` (None for a
    null), in an input whose properties are `names`: `edge` itself when it has none, else
    with the dict of the properties it has; a StreamError for a record naming another."""
    if names is None and not props:
        return edge
    if names is None or not props.keys() <= set(names):
        new = [k for k in props if k not in (names or ())]
        had = ", ".join(map(shown, names)) if names else "none"
        raise StreamError(
            filename,
            lineno,
            f"the record names {', '.join(map(shown, new))}, which the input's first record "
            f"does not (the properties of a JSON Lines input are the fields of its first "
            f"record that are no column: {had}; give every one there, null where missing)",
        )
    if None in props.values():
        props = {k: v for k, v in props.items() if v is not None}
    return (*edge, props)


class BadEncoding(str):
    """A line that is not valid UTF-8 (its text decoded with replacement characters)."""


class _Tick(str):
    """The type of TICK."""


TICK = _Tick("")  # a source that waits for more input yields this among its lines; every
# reader here passes it on (sgq run --follow acts on it: flushes, idle timers, stop requests)


def decoded_lines(stream: Iterable[bytes], filename: str = "") -> Iterator[str]:
    """Lines of a binary stream as UTF-8; an undecodable line comes as a BadEncoding, which
    the parsers report as a bad line (so `--on-error skip` can skip it). A stream that cannot
    be read on (a damaged or truncated .gz, an I/O error) is a StreamError at the line
    reached, whatever `on_error` says: nothing after it can be read."""
    lineno = 0
    try:
        for raw in stream:
            if raw is TICK:
                yield TICK
                continue
            lineno += 1
            yield _decoded(raw)
    except (OSError, EOFError, zlib.error) as exc:  # gzip.BadGzipFile is an OSError
        raise DamagedInput(
            filename or "<stream>", lineno + 1, f"cannot read the input ({_escaped(str(exc))})"
        ) from None


#: bytes asked of a finished file per read: a chunk, its lines and its edges small enough to
#: stay in the processor's caches while the engine works through them
_READ = 1 << 17


class FileLines:
    """The lines of a finished binary file (no TICK: nothing waits for more), as
    `decoded_lines` gives them, read a chunk at a time: one decode and one split per chunk
    instead of a read, a decode and a generator step per line (measurably less of reading
    the shared streams). stdin and followed files keep `decoded_lines`: there a line must go on as
    soon as it is there. `done`: the bytes read so far (the progress bar).

    Same lines and errors: a chunk that is not valid UTF-8 is decoded line by line, a bad
    line coming as a BadEncoding; a read that fails is a StreamError at the line after the
    last one given. Reads go through `read1` where the file has it (a .gz: one decompression
    step at a time), so a damaged file loses no more than a line-by-line read does."""

    __slots__ = ("handle", "filename", "done")

    def __init__(self, handle, filename: str = "") -> None:
        self.handle = handle
        self.filename = filename
        self.done = 0

    def __iter__(self) -> Iterator[str]:
        for chunk in self.chunks():
            if type(chunk) is str:
                lines = chunk.split("\n")
                lines.pop()  # the empty text after the last newline
                yield from lines
            else:
                yield from chunk

    def chunks(self) -> Iterator[str | list]:
        """The file a chunk of whole lines at a time: the chunk's text, each line ended by a
        newline (the last line of a file without one gets it), or, for a chunk that is not
        valid UTF-8, its lines (a bad one as a BadEncoding)."""
        read = getattr(self.handle, "read1", self.handle.read)
        lineno = 0
        pending: list = []  # the bytes after the last newline, in the pieces they came in
        try:
            while True:
                chunk = read(_READ)
                if not chunk:
                    break
                self.done += len(chunk)
                cut = chunk.rfind(b"\n") + 1
                if not cut:  # (a line longer than a read: joined once, when it ends)
                    pending.append(chunk)
                    continue
                body = chunk[:cut]
                if pending:
                    pending.append(body)
                    body = b"".join(pending)
                    pending = []
                if cut < len(chunk):
                    pending.append(chunk[cut:])
                lineno += body.count(b"\n")
                try:
                    yield body.decode("utf-8")
                except UnicodeDecodeError:
                    yield [_decoded(raw) for raw in body.split(b"\n")[:-1]]
            if pending:
                lineno += 1
                last = _decoded(b"".join(pending))
                yield [last] if type(last) is BadEncoding else last + "\n"
        except (OSError, EOFError, zlib.error) as exc:  # gzip.BadGzipFile is an OSError
            raise DamagedInput(
                self.filename or "<stream>",
                lineno + 1,
                f"cannot read the input ({_escaped(str(exc))})",
            ) from None


def _decoded(raw: bytes) -> str:
    """One line as text, or a BadEncoding when it is not valid UTF-8."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return BadEncoding(raw.decode("utf-8", errors="replace"))


def read_edges(
    path: str | os.PathLike | TextIO,
    fmt: str | None = None,
    columns: str | Iterable[str] | None = None,
    on_error: Callable[[StreamError, str], None] | None = None,
    *,
    properties: bool = True,
) -> Iterator[Edge]:
    """Edges `(src, trg, label, ts, op)` of a file, `-` (stdin) or an open text stream.

    Streams in bounded memory. Raises StreamError on the first bad line unless `on_error`
    takes it. `properties`: read a CSV/TSV input's property columns (DelimitedParser).
    """
    if hasattr(path, "read"):
        cols = parse_columns(columns) if columns is not None else None
        name = getattr(path, "name", "<stream>")
        fmt = fmt or guess_format(str(name))
        yield from parse_lines(path, fmt, cols, str(name), on_error, properties=properties)
        return
    if os.fspath(path) != "-":
        yield from _flat(read_blocks(path, fmt, columns, on_error, properties=properties), None)
        return
    cols = parse_columns(columns) if columns is not None else None
    fmt = fmt or "csv"
    if fmt not in FORMATS:
        raise UserError(f"unknown input format '{fmt}' (use {', '.join(FORMATS)})")
    yield from parse_lines(
        decoded_lines(sys.stdin.buffer, "<stdin>"),
        fmt,
        cols,
        "<stdin>",
        on_error,
        properties=properties,
    )


def read_blocks(
    path: str | os.PathLike,
    fmt: str | None = None,
    columns: str | Iterable[str] | None = None,
    on_error: Callable[[StreamError, str], None] | None = None,
    *,
    properties: bool = True,
    labels=None,
) -> Iterator[EdgeBlock]:
    """`read_edges` of a file (not stdin), in blocks of edges (sgq/edge_blocks.py);
    `properties`: read a CSV/TSV file's property columns (DelimitedParser); `labels`: the
    labels a program reads, where a block may leave out the edges of others (`parse_blocks`)."""
    cols = parse_columns(columns) if columns is not None else None
    path = os.fspath(path)
    fmt = fmt or guess_format(path)
    if fmt not in FORMATS:
        raise UserError(f"unknown input format '{fmt}' (use {', '.join(FORMATS)})")
    _check_file(path)
    if path.endswith(".gz"):
        import gzip

        with gzip.open(path, "rb") as handle:
            try:
                yield from parse_blocks(
                    FileLines(handle, path),
                    fmt,
                    cols,
                    path,
                    on_error,
                    properties=properties,
                    labels=labels,
                )
            except StreamError as exc:
                raise blamed(path, exc) from None
        return
    with open(path, "rb") as handle:
        lines = FileLines(handle, path)
        yield from parse_blocks(
            lines, fmt, cols, path, on_error, properties=properties, labels=labels
        )


def _check_file(path: str) -> None:
    """A UserError unless `path` is a file that exists."""
    if not os.path.exists(path):
        raise UserError(f"input file '{path}' does not exist")
    if os.path.isdir(path):
        raise UserError(f"input '{path}' is a directory, not an edge file")


class InputHead(NamedTuple):
    """What the head of an input says before its engine is built: its property names (None:
    it has none) and whether a `-` edge can come (`deletes`: it has an op column; any JSON
    record may have an op)."""

    names: tuple[str, ...] | None
    deletes: bool


def file_properties(
    path: str | os.PathLike, fmt: str | None = None, columns: str | Iterable[str] | None = None
) -> tuple[str, ...] | None:
    """The property names of an edge file (None: it has none): `file_head`'s."""
    return file_head(path, fmt, columns).names


def file_head(
    path: str | os.PathLike, fmt: str | None = None, columns: str | Iterable[str] | None = None
) -> InputHead:
    """The head of an edge file: what `peek_head` finds. A header that cannot be read is its
    UnreadableInput (`blamed` on the damage of a damaged .gz); a read that fails is left to
    the reader that reads the file whole, which says so where it happens."""
    import gzip

    path = os.fspath(path)
    _check_file(path)
    cols = parse_columns(columns) if columns is not None else None
    fmt = fmt or guess_format(path)
    try:
        with (gzip.open if path.endswith(".gz") else open)(path, "rb") as handle:
            head, _ = peek_head(decoded_lines(handle, path), fmt, cols, path)
    except (OSError, DamagedInput):
        return InputHead(None, True)
    except StreamError as exc:  # in a damaged .gz, the damage's doing: said so
        raise blamed(path, exc) from None
    return head


def peek_head(
    lines: Iterator[str], fmt: str, cols: tuple[str, ...] | None, name: str
) -> tuple[InputHead, Iterator[str]]:
    """The head of an input whose `lines` these are, and its lines again, the first ones read
    included: its lines are read up to its header or its first good line (for JSON Lines,
    its first good record), where its reader fixes its columns. Bad lines on the way are
    left to the reader that reads the input."""
    parser = parser_of(fmt, cols, name, lambda exc, line: None)
    taken: list[str] = []

    def head() -> Iterator[str]:
        for line in lines:
            taken.append(line)
            yield line
            if parser.settled():
                return

    for _ in parser.lines(head()):
        break
    return InputHead(parser.names, parser.deletes()), itertools.chain(taken, lines)


def blamed(path: str, exc: StreamError) -> StreamError:
    """`exc`, or the error naming the damage when `path` is a .gz whose data is damaged.

    A damaged .gz gives lines of garbage before its checksum (checked at the end of its data)
    fails, so a bad line or a time out of order there is the damage's doing. Reads the file
    again to its end: the cost of an error only."""
    if isinstance(exc, DamagedInput) or not str(path).endswith(".gz"):
        return exc
    import gzip

    lineno = 1
    try:
        with gzip.open(path, "rb") as handle:
            while chunk := handle.read1(_READ):
                lineno += chunk.count(b"\n")
    except (OSError, EOFError, zlib.error) as damage:  # gzip.BadGzipFile is an OSError
        return DamagedInput(
            exc.filename,
            exc.line,
            f"cannot read the input ({_escaped(str(damage))}, found at line {lineno}); "
            f"this line comes from the damaged data: {exc.reason}",
        )
    return exc


def parse_lines(
    lines: Iterable[str],
    fmt: str,
    cols: tuple[str, ...] | None,
    name: str,
    on_error: Callable[[StreamError, str], None] | None = None,
    position: list[int] | None = None,
    start: int = 0,
    *,
    names: tuple[str, ...] | None = None,
    properties: bool = True,
) -> Iterator[Edge]:
    """Edges of text lines already read (see read_edges for the format); `position[0]` is
    kept at the current line number, for errors found later (out-of-order times). `start`:
    the number of lines before the first one given (a reader resuming inside a file). A
    `TICK` among the lines is passed through as it is (a source saying it waits for more).
    The lines of a finished file (FileLines) are read a chunk at a time (`parse_blocks`).
    `names`: the property names of a JSON Lines input whose first record is not among the
    lines (a reader resuming inside it); `properties`: read a CSV/TSV input's property
    columns (DelimitedParser)."""
    if isinstance(lines, FileLines):
        blocks = parse_blocks(lines, fmt, cols, name, on_error, start, properties=properties)
        return _flat(blocks, position)
    parser = parser_of(fmt, cols, name, on_error, properties)
    if names is not None and type(parser) is JsonLinesParser:
        parser.names, parser.first = names, False
    return parser.lines(lines, position, start)


def parser_of(
    fmt: str,
    cols: tuple[str, ...] | None,
    name: str,
    on_error: Callable[[StreamError, str], None] | None = None,
    properties: bool = True,
) -> DelimitedParser | JsonLinesParser:
    """The reader state of one input of format `fmt` (csv, tsv, jsonl); `properties`: see
    DelimitedParser (a JSON record's properties are always read)."""
    if fmt == "jsonl":
        return JsonLinesParser(cols, name, on_error)
    return DelimitedParser("\t" if fmt == "tsv" else ",", cols, name, on_error, properties)


def parse_blocks(
    lines: FileLines,
    fmt: str,
    cols: tuple[str, ...] | None,
    name: str,
    on_error: Callable[[StreamError, str], None] | None = None,
    start: int = 0,
    *,
    properties: bool = True,
    labels=None,
) -> Iterator[EdgeBlock]:
    """The edges of a finished file in blocks (sgq/edge_blocks.py): what `parse_lines` reads,
    a chunk of lines at a time; `labels`: those the program reads, where a block may leave
    out the edges of others (`EdgeBlock.kept`)."""
    parser = parser_of(fmt, cols, name, on_error, properties)
    plain = parser if type(parser) is DelimitedParser else None
    return edge_blocks(lines.chunks(), parser.lines, plain, start, labels)


def _flat(blocks: Iterator[EdgeBlock], position: list[int] | None) -> Iterator[Edge]:
    """The edges of `blocks` one by one, `position[0]` at each one's line."""
    for block in blocks:
        if position is None:
            yield from block.edges
            continue
        for edge, lineno in zip(block.edges, block.lines):
            position[0] = lineno
            yield edge


# ---- output ------------------------------------------------------------------------------


def open_output(path: str, mode: str, what: str) -> TextIO:
    """A result file opened for writing (`mode` "w" or "a"), or a UserError naming it as
    `what` (a missing folder, a directory, no permission)."""
    try:
        return open(path, mode, encoding="utf-8", newline="")
    except OSError as exc:
        raise UserError(f"cannot write the {what} '{path}': {exc.strerror or exc}") from None


def path_text(path) -> str:
    """A witness path `((src, trg, label), ...)` as the `path` column shows it: `a-l->b ...`."""
    return " ".join(f"{s}-{l}->{t}" for s, t, l in (path or ()))


_CHUNK = 1 << 15
_GROUPED_ROWS = 1 << 15  # delta rows joined before a write (ResultWriter.write_groups)
_KEPT_LINES = 1 << 13  # fans' lines the writer keeps between calls (`_write_fan_rows`)


def _plain_csv(rows, sixth: bool = False) -> str | None:
    """Five-field rows as CSV text by plain string formatting (several times faster than the csv
    module), or None when some field would need what the csv module does: quoting (a `,`,
    `"`, CR or LF inside a field) or writing None as an empty field. The check reads the
    formatted text once: exactly four commas and one newline per row, no quote, CR or None.
    `sixth`: the rows have a sixth field, left out (the engine's witness path)."""
    if sixth:
        text = "".join([f"{a},{b},{c},{d},{e}\n" for a, b, c, d, e, _ in rows])
    else:
        text = "".join([f"{a},{b},{c},{d},{e}\n" for a, b, c, d, e in rows])
    return None if _needs_csv(text, len(rows)) else text


def _cross_text(src: Sources, trgs: list, ts, exp: int, label: str) -> str:
    """The CSV lines of a cross-product fan (incremental/fan_rows.py `Sources`): a source
    whose start is at most every target's shares the fan's lines, one whose start is at
    least every target's gets one tail, the rest a line per row."""
    end = f",{exp}\n"  # (an int formatted once, not per line: most of a line's cost)
    if type(ts) is int:
        if len(trgs) == 1:  # one target (a functional join's second pass): a line per source
            t = trgs[0]
            if src.latest <= ts and src.names:  # every row starts at ts: one tail
                tail = f",{t},{label},{ts}{end}"
                return tail.join(src.names) + tail
            mid = f",{t},{label},"
            return "".join(
                [f"{n}{mid}{s if s > ts else ts}{end}" for n, s in zip(src.names, src.since)]
            )
        low = high = ts
        lines = None
    else:
        low, high = min(ts), max(ts)
        mid = f",{label},"
        lines = [f"{t}{mid}{st}{end}" for t, st in zip(trgs, ts)]
    parts = []
    for name, s in zip(src.names, src.since):
        head = f"{name},"
        if s >= high or lines is None:
            tail = f",{label},{s if s > low else low}{end}"
            parts.append(head + (tail + head).join(trgs) + tail)
        elif s <= low:
            parts.append(head + head.join(lines))
        else:
            parts.append(
                "".join([f"{head}{t}{mid}{st if st > s else s}{end}" for t, st in zip(trgs, ts)])
            )
    return "".join(parts)


def _needs_csv(text: str, n: int) -> bool:
    """Whether `n` five-field lines formatted plainly as `text` differ from the csv module's."""
    return (
        text.count(",") != 4 * n
        or text.count("\n") != n
        or '"' in text
        or "\r" in text
        or "None" in text
    )


class ResultWriter:
    """Writes interval or delta rows as CSV (with a header) or JSON Lines."""

    def __init__(self, out: TextIO, fields: tuple[str, ...], fmt: str = "csv", header: bool = True):
        """`header=False` when appending to a file that has it already (a resumed run)."""
        self.out, self.fields, self.fmt = out, fields, fmt
        self.rows = 0
        # (id(trgs), id(starts), exp, label) -> (trgs, starts, the lines after "src,") of the
        # fans with a start per target: producers hand the same lists to many fans, round
        # after round (operators/functional_join.py, state/follower_rows.py), and a fan's
        # lists never change (fan_rows.py); holding them keeps their ids from being reused
        self._lines: dict = {}
        if fmt == "csv":
            self._csv = csv.writer(out, lineterminator="\n")
            if header:
                self._csv.writerow(fields)

    def write(self, row: tuple) -> None:
        self.write_many((row,))

    def write_many(self, rows) -> None:
        """Write a batch of rows (a list or tuple): one call into the CSV writer per batch,
        not per row."""
        self.rows += len(rows)
        if self.fmt == "csv":
            if len(self.fields) != 5:
                self._csv.writerows(rows)
                return
            for i in range(0, len(rows), _CHUNK):  # the text of a chunk at a time
                chunk = rows[i : i + _CHUNK]
                text = _plain_csv(chunk)
                if text is None:
                    self._csv.writerows(chunk)
                else:
                    self.out.write(text)
        else:
            fields = self.fields
            self.out.write(
                "".join(
                    json.dumps(dict(zip(fields, row)), ensure_ascii=False) + "\n" for row in rows
                )
            )

    def write_results(self, results: list) -> None:
        """`write_many` of the engine's rows `(src, trg, label, ts, exp, path)` without their
        path (`Engine.drain_rows`), formatted as they are: no five-field copy per row."""
        if self.fmt != "csv" or len(self.fields) != 5:
            self.write_many([r[:5] for r in results])
            return
        self.rows += len(results)
        for i in range(0, len(results), _CHUNK):
            chunk = results[i : i + _CHUNK]
            text = _plain_csv(chunk, sixth=True)
            if text is None:
                self._csv.writerows([r[:5] for r in chunk])
            else:
                self.out.write(text)

    def write_segments(self, segments: list, plain: bool = False) -> None:
        """`write_results` of the engine's rows as it keeps them (`Engine.drain_segments`:
        `(label, rows)`, rows a list of `(src, trg, ts, exp, path)` or a FanRows), the label
        formatted in per segment: no row tuple is built to be written, and a fan's targets
        are joined in one call between its `src,` and `,label,ts,exp`. `plain`: every vertex
        is known to be a string CSV writes as it is (`Engine.plain_vertices`)."""
        if self.fmt != "csv" or len(self.fields) != 5:
            self.write_many(
                [(s, t, label, ts, exp) for label, rows in segments for s, t, ts, exp, _ in rows]
            )
            return
        for label, rows in segments:
            if type(rows) is FanRows:
                self._write_fan_rows(label, rows, plain)
                self._write_rows(label, rows.rows)
            else:
                self._write_rows(label, rows)

    def _write_rows(self, label: str, rows: list) -> None:
        """Rows `(src, trg, ts, exp, path)` under `label`, a chunk at a time (the csv module
        for a chunk whose plain text would differ from its output)."""
        self.rows += len(rows)
        for i in range(0, len(rows), _CHUNK):
            chunk = rows[i : i + _CHUNK]
            text = "".join([f"{s},{t},{label},{ts},{exp}\n" for s, t, ts, exp, _ in chunk])
            if _needs_csv(text, len(chunk)):
                self._csv.writerows([(s, t, label, ts, exp) for s, t, ts, exp, _ in chunk])
            else:
                self.out.write(text)

    def _write_fan_rows(self, label: str, rows: FanRows, plain: bool = False) -> None:
        """A FanRows segment, about `_CHUNK` lines at a time: fans are joined until their lines
        reach it (a fan can hold thousands of targets: a chunk counted in fans made texts of
        hundreds of megabytes), then written (the csv module for a piece whose plain text
        would differ from its output, or whose vertices are not strings)."""
        fans = rows.fans
        checked = not ((rows.plain or plain) and csv_plain(label))
        lines_of = self._lines
        mid = f",{label},"
        if len(lines_of) > _KEPT_LINES:
            lines_of.clear()
        tails: dict = {}  # (ts, exp) -> ",label,ts,exp\n": a round's fans share a few
        parts: list = []
        n = 0
        first = 0  # the piece's first fan
        last = len(fans) - 1
        for i, (src, trgs, ts, exp) in enumerate(fans):
            try:
                if type(src) is Sources and len(src.names) == 1 and type(ts) is int:
                    # one source (most: a creator's posts of one day are few), one start: a
                    # plain fan from the later of the two starts
                    since = src.since[0]
                    if since > ts:
                        ts = since
                    src = src.names[0]
                if type(src) is Sources:  # a cross product: each source in turn
                    n += len(trgs) * len(src.names)
                    parts.append(_cross_text(src, trgs, ts, exp, label))
                elif type(src) is Pairs:  # a source beside each target: a line each
                    n += len(trgs)
                    if type(ts) is int:
                        tail = tails.get((ts, exp))
                        if tail is None:
                            tail = tails[ts, exp] = f",{label},{ts},{exp}\n"
                        parts.append("".join([f"{s},{t}{tail}" for s, t in zip(src.names, trgs)]))
                    else:
                        end = f",{exp}\n"
                        parts.append(
                            "".join(
                                [f"{s},{t}{mid}{st}{end}" for s, t, st in zip(src.names, trgs, ts)]
                            )
                        )
                elif type(ts) is not int:  # starts per target
                    n += len(trgs)
                    key = (id(trgs), id(ts), exp, label)
                    kept = lines_of.get(key)
                    if kept is None:
                        end = f",{exp}\n"  # (exp formatted once: most of a line's cost)
                        lines = [f"{t}{mid}{s}{end}" for t, s in zip(trgs, ts)]
                        lines_of[key] = (trgs, ts, lines)
                    else:
                        lines = kept[2]
                    head = f"{src},"
                    parts.append(head + head.join(lines))
                else:
                    n += len(trgs)
                    tail = tails.get((ts, exp))
                    if tail is None:
                        tail = tails[ts, exp] = f",{label},{ts},{exp}\n"
                    head = f"{src},"
                    if len(trgs) == 1:  # (most fans: one line, no separator to build)
                        parts.append(head + trgs[0] + tail)
                    else:  # (the pieces, not their concatenation: the joined text once)
                        parts += (head, (tail + head).join(trgs), tail)
            except TypeError:  # a vertex that is not a string (the API takes any value)
                parts = None
            if parts is not None and n < _CHUNK and i < last:
                continue
            text = None if parts is None else "".join(parts)
            if text is None or (checked and _needs_csv(text, n)):
                part = FanRows()
                part.fans = fans[first : i + 1]
                flat = [(s, t, label, ts, exp) for s, t, ts, exp, _ in part]
                self._csv.writerows(flat)
                n = len(flat)
            else:
                self.out.write(text)
            self.rows += n
            parts, n, first = [], 0, i + 1

    def write_groups(self, groups, plain: bool = False) -> None:
        """Write delta rows given as `(τ, op, keys)` groups (DeltaView.feed_grouped): as CSV,
        one formatted line per key with the group's `τ,op,` in front, no row tuples. Most
        groups are an instant's few keys: their lines are joined across groups and written,
        and checked for what the csv module would quote (`_needs_csv`), once per
        `_GROUPED_ROWS` rows; a text that fails the check is written group by group.
        `plain`: every vertex and label is known to be a string CSV writes as it is
        (`Engine.plain_vertices`, the output labels): nothing to check."""
        if self.fmt != "csv":
            self.write_many(rows_of(groups))
            return
        parts: list = []
        append = parts.append
        n = 0
        start = 0  # the first group not written yet
        check = False  # some group not known plain (plain fans under a plain label are)
        for i, (tau, op, keys) in enumerate(groups):
            if not keys:
                continue
            prefix = f"{tau},{op},"
            try:  # (keys of strings: each line joined in C, no bytecode per key)
                if type(keys) is Fans:
                    if not (plain or (keys.plain and csv_plain(keys.label))):
                        check = True
                    tail = f",{keys.label}\n"
                    for src, trgs in keys:
                        head = prefix + src + ","
                        append(head)
                        append((tail + head).join(trgs))
                        append(tail)
                        n += len(trgs)
                else:
                    if not plain:
                        check = True
                    append(prefix)
                    append(("\n" + prefix).join(map(",".join, keys)))
                    append("\n")
                    n += len(keys)
            except TypeError:  # a vertex that is not a string (the API takes any value)
                self._write_each(groups[start : i + 1])
                parts, n, start, check = [], 0, i + 1, False
                append = parts.append
                continue
            if n >= _GROUPED_ROWS:
                self._write_joined(parts, n, groups[start : i + 1], check)
                parts, n, start, check = [], 0, i + 1, False
                append = parts.append
        if parts:
            self._write_joined(parts, n, groups[start:], check)

    def _write_joined(self, parts: list, n: int, groups, check: bool) -> None:
        """The `n` lines `parts` of `groups`, written as they are when the csv module would
        write them alike (`check`: some group is not known plain), else group by group."""
        text = "".join(parts)
        if check and _needs_csv(text, n):
            self._write_each(groups)
        else:
            self.out.write(text)
            self.rows += n

    def _write_each(self, groups) -> None:
        """`write_groups` a group at a time, each checked on its own."""
        for tau, op, keys in groups:
            if type(keys) is Fans:
                self._write_fans(tau, op, keys)
                continue
            self.rows += len(keys)
            prefix = f"{tau},{op},"
            for i in range(0, len(keys), _CHUNK):
                chunk = keys[i : i + _CHUNK]
                text = "".join([f"{prefix}{s},{t},{label}\n" for s, t, label in chunk])
                if _needs_csv(text, len(chunk)):
                    self._csv.writerows(rows_of([(tau, op, chunk)]))
                else:
                    self.out.write(text)

    def _write_fans(self, tau: int, op: str, fans: Fans) -> None:
        """A `Fans` group: per source, its targets joined in one call between the line's
        `τ,op,src,` and `,label`."""
        tail = f",{fans.label}\n"
        prefix = f"{tau},{op},"
        parts: list = []
        append = parts.append
        n = 0
        for src, trgs in fans:
            head = f"{prefix}{src},"
            append(head)
            k = len(trgs)
            try:  # (one target, the most common fan: no separator to build)
                append((tail + head).join(trgs) if k > 1 else tail.join(trgs))
            except TypeError:  # a vertex that is not a string (the API takes any value)
                self.write_many(rows_of([(tau, op, fans)]))
                return
            append(tail)
            n += k
        text = "".join(parts)
        self.rows += n
        if not (fans.plain and csv_plain(fans.label)) and _needs_csv(text, n):
            self._csv.writerows(rows_of([(tau, op, fans)]))
        else:
            self.out.write(text)

    def flush(self) -> None:
        self.out.flush()
