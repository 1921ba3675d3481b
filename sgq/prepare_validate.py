"""Row validation for `sgq prepare`: the rules of `sgq run`'s reader (sgq/stream_io.py), one
record at a time, so that Spark workers can apply them to any slice of a file.

`stream_io` reads a file front to back and keeps two facts across lines: whether the first
data line was a header, and (without `--columns`) how many columns the file has. Here the
driver finds both once per file (`plan_file`, reading only the head of the file); every
other decision is per record and reuses stream_io's own `_edge` (empty ids, time, op) and
`json_values` (a JSON record's fields and their types), so a record is accepted or rejected
exactly as `sgq run` would (specs/semantics.md §1, §7).
`tests/prepare/test_prepare_validate.py` checks that agreement on random files.
"""

from __future__ import annotations

import calendar
import csv  # csv.Error
import gzip
import json
from collections.abc import Iterator
from datetime import UTC, datetime

from .base.errors import UserError
from .property_values import json_value
from .stream_io import (
    BOM,
    COLUMNS,
    REQUIRED,
    StreamError,
    _edge,
    _escaped,
    _header_names,
    first_order,
    header_columns,
    json_edge,
    json_values,
    line_properties,
    property_names,
    property_positions,
    split_fields,
)

Edge = tuple[str, str, str, int, str]

# Formats of raw files; `jsonl` is stream_io's name for JSON Lines.
RAW_FORMATS = ("csv", "tsv", "json", "parquet")
_ENDINGS = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".json": "json",
    ".jsonl": "json",
    ".ndjson": "json",
    ".parquet": "parquet",
    ".pq": "parquet",
}
TIME_FORMATS = ("epoch", "iso8601")
HEADER_MODES = ("auto", "header", "no-header")

# The kinds of record a validator can return.
SKIP, GOOD, BAD = 0, 1, 2


def raw_format(path: str, given: str | None) -> str:
    """csv, tsv, json or parquet: `given` (jsonl is json) or from the file name (.gz ok)."""
    if given:
        fmt = "json" if given == "jsonl" else given
        if fmt not in RAW_FORMATS:
            raise UserError(f"unknown format '{given}' (use {', '.join(RAW_FORMATS)})")
        return fmt
    name = path.lower()
    if name.endswith(".gz"):
        name = name[:-3]
    for ending, fmt in _ENDINGS.items():
        if name.endswith(ending):
            return fmt
    raise UserError(
        f"cannot tell the format of '{path}' from its name (use --format {'|'.join(RAW_FORMATS)})"
    )


def iso_to_epoch(text: str) -> int:
    """ISO-8601 date-time -> integer epoch seconds (UTC when no offset; fractions floored).

    >>> iso_to_epoch("1970-01-02T00:00:01Z")
    86401
    """
    value = text.strip()
    if not value or value[0] not in "0123456789":
        raise ValueError(value)
    dt = datetime.fromisoformat(value)
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return calendar.timegm(dt.utctimetuple())


class FilePlan:
    """What the driver learned from the head of one raw file: its place in the input order,
    its format, its column order, the line of its header (0 if none) and `first_line`, the
    line of its header or first good line: every line before it is bad, read as stream_io
    reads a first line (its width fixing its columns, `DelimitedParser._first_line`)."""

    __slots__ = (
        "index",
        "path",
        "fmt",
        "order",
        "header_line",
        "columns_given",
        "ts_epoch",
        "first_line",
        "names",
    )

    def __init__(
        self,
        index: int,
        path: str,
        fmt: str,
        order: tuple[str, ...] | None,
        header_line: int,
        columns_given: bool,
        first_line: int = 0,
    ):
        self.index, self.path, self.fmt = index, path, fmt
        self.order, self.header_line, self.columns_given = order, header_line, columns_given
        self.ts_epoch = False  # a Parquet timestamp column, already turned into epoch seconds
        self.first_line = first_line
        #: the file's property names (None: it has none): its header's columns after sgq's
        #: own, or its first good JSON record's fields that are no column
        self.names = property_names(order) if order else None

    def __getstate__(self):
        return tuple(getattr(self, n) for n in self.__slots__)

    def __setstate__(self, state):
        for n, v in zip(self.__slots__, state):
            setattr(self, n, v)


def _open_binary(path: str):
    return gzip.open(path, "rb") if path.endswith(".gz") else open(path, "rb")


def plan_file(
    index: int,
    path: str,
    fmt: str,
    columns: tuple[str, ...] | None,
    header: str = "auto",
    iso: bool = False,
) -> FilePlan:
    """The per-file facts stream_io's reader finds on the way: for CSV/TSV, whether the first
    line that is not blank, a comment or bad is a header (`header` forces yes or no: then the
    first that is not blank or a comment) and, without `columns`, the column order (the
    header's, or 4 or 5 columns by the first good line). `iso`: times are ISO-8601 text."""
    if fmt == "json":
        plan = FilePlan(index, path, fmt, columns, 0, columns is not None)
        plan.names = _json_names(path, columns, iso)
        return plan
    if fmt == "parquet":
        return FilePlan(index, path, fmt, columns, 0, columns is not None)
    delimiter = "\t" if fmt == "tsv" else ","
    given = columns is not None
    with _open_binary(path) as handle:
        for lineno, raw in enumerate(handle, start=1):
            try:
                line = raw.decode("utf-8").rstrip("\r\n")
            except UnicodeDecodeError:
                continue  # a bad line (rejected later); stream_io looks on for the header
            line = _unmarked(line)
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            try:
                fields = split_fields(line, delimiter)
            except csv.Error:
                continue  # likewise
            if header == "header" and _header_names(fields) is None:
                raise UserError(
                    f"{path}:{lineno}: --header given but the first line is not a header "
                    f"naming {', '.join(REQUIRED)}[, op]"
                )
            if header != "no-header" and _header_names(fields) is not None:
                # a header (with `columns`, skipped as it is, as stream_io does)
                found = columns or header_columns(fields, path, lineno)
                return FilePlan(index, path, fmt, found, lineno, given, lineno)
            try:
                order = columns or first_order(fields, path, lineno)
                values = _values_delimited(fields, order, path, lineno)
                _edge(_with_time(values, iso, path, lineno), path, lineno)
            except StreamError:
                continue  # a bad line: the next one is first in its place
            return FilePlan(index, path, fmt, order, 0, given, lineno)
    return FilePlan(index, path, fmt, columns or COLUMNS[:4], 0, given, _NEVER)


_NEVER = 1 << 62  # `first_line` of a file without a header or a good line


def _json_names(path: str, columns: tuple[str, ...] | None, iso: bool) -> tuple[str, ...] | None:
    """The property names of a JSON Lines file: its first good record's fields that are no
    column (stream_io.JsonLinesParser), None when it has none."""
    with _open_binary(path) as handle:
        for lineno, raw in enumerate(handle, start=1):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                continue  # a bad line (rejected later)
            line = text.strip()
            if not line:
                continue
            props: dict = {}
            try:
                indent = len(text) - len(text.lstrip())
                values = json_values(line, columns, path, lineno, indent, props)
                _edge(_with_time(values, iso, path, lineno), path, lineno)
            except StreamError:
                continue
            return tuple(props) or None
    return None


def _unmarked(line: str) -> str:
    """A CSV/TSV line as stream_io reads it: a byte order mark opening it (after blanks) is
    no text (DelimitedParser.lines)."""
    head = line.lstrip()
    return head[1:] if head[:1] == BOM else line


def _split(line: str, delimiter: str, path: str, lineno: int) -> list[str]:
    """A CSV/TSV line's fields (stream_io.split_fields); a StreamError for a malformed one."""
    try:
        return split_fields(line, delimiter)
    except csv.Error as exc:
        raise StreamError(path, lineno, f"malformed line ({_escaped(str(exc))})") from None


def _values_delimited(
    fields: list[str], order: tuple[str, ...] | None, path: str, lineno: int
) -> dict[str, str]:
    """The fields of a CSV/TSV line by column name; `order` None: the line is read as a
    first line (its width gives its columns, stream_io.first_order)."""
    if order is None:
        order = first_order(fields, path, lineno)
    if len(fields) != len(order):
        raise StreamError(
            path, lineno, f"expected {len(order)} columns ({','.join(order)}), found {len(fields)}"
        )
    return dict(zip(order, (f.strip() for f in fields)))


def _with_time(values: dict[str, str], iso: bool, path: str, lineno: int) -> dict[str, str]:
    if iso:
        text = values.get("ts", "").strip()
        try:
            values["ts"] = str(iso_to_epoch(text))
        except (ValueError, OverflowError):
            raise StreamError(path, lineno, f"time '{text}' is not an ISO-8601 date-time") from None
    return values


def validate_line(raw: bytes, lineno: int, plan: FilePlan, iso: bool = False):
    """One line of a CSV/TSV/JSON file -> `(SKIP, None, None)` for blank, comment and header
    lines, `(GOOD, edge, None)` or `(BAD, None, reason)`, as stream_io would decide."""
    try:
        text = raw.decode("utf-8")
        bad_utf8 = False
    except UnicodeDecodeError:
        text = raw.decode("utf-8", errors="replace")
        bad_utf8 = True
    if plan.fmt == "json":
        line = text.strip()
        if not line:
            return SKIP, None, None
    else:
        line = _unmarked(text.rstrip("\r\n"))
        if not line.strip() or line.lstrip().startswith("#"):
            return SKIP, None, None
        if lineno == plan.header_line:
            return SKIP, None, None
    try:
        if bad_utf8:
            raise StreamError(plan.path, lineno, "not valid UTF-8")
        if plan.fmt == "json":
            columns = plan.order if plan.columns_given else None
            indent = len(text) - len(text.lstrip())
            props: dict = {}
            values = json_values(line, columns, plan.path, lineno, indent, props)
            edge = _edge(_with_time(values, iso, plan.path, lineno), plan.path, lineno)
            return GOOD, json_edge(edge, props, plan.names, plan.path, lineno), None
        # before the first good line, each line is read as a first line
        order = plan.order if lineno > plan.first_line or plan.columns_given else None
        delimiter = "\t" if plan.fmt == "tsv" else ","
        fields = _split(line, delimiter, plan.path, lineno)
        values = _values_delimited(fields, order, plan.path, lineno)
        edge = _edge(_with_time(values, iso, plan.path, lineno), plan.path, lineno)
        if order is not None and plan.names is not None:
            edge = (
                *edge,
                line_properties(fields, property_positions(order), plan.names, delimiter),
            )
        return GOOD, edge, None
    except StreamError as exc:
        return BAD, None, exc.reason


def validate_row(
    values: dict[str, str | None],
    rowno: int,
    plan: FilePlan,
    iso: bool = False,
    props: str | None = None,
):
    """One Parquet row (values already text; None for null; `props`: its property columns
    as a JSON object, nulls left out) -> `(GOOD, edge, None)` or `(BAD, None, reason)`."""
    clean = {k: ("" if v is None else v) for k, v in values.items()}
    try:
        edge = _edge(_with_time(clean, iso, plan.path, rowno), plan.path, rowno)
        if plan.names is None:
            return GOOD, edge, None
        given = json.loads(props) if props else {}
        try:
            typed = {k: json_value(v) for k, v in given.items()}
        except ValueError as exc:  # a NaN or an infinity
            raise StreamError(plan.path, rowno, str(exc)) from None
        return GOOD, (*edge, {k: v for k, v in typed.items() if v is not None}), None
    except StreamError as exc:
        return BAD, None, exc.reason


def validate_lines(lines: Iterator[bytes], plan: FilePlan, iso: bool = False):
    """A whole file's lines (for tests and small inputs): yields `(lineno, kind, edge, reason)`
    for every line that is not skipped."""
    for lineno, raw in enumerate(lines, start=1):
        if raw.endswith(b"\n"):
            raw = raw[:-1]
        kind, edge, reason = validate_line(raw, lineno, plan, iso)
        if kind != SKIP:
            yield lineno, kind, edge, reason
