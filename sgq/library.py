"""A query over a whole input in one call: `Query.run`, `to_pandas`, `to_arrow` (sgq/api.py).

The input may be an iterable of tuples, a pandas DataFrame, a pyarrow Table or RecordBatch,
or a path (an edge file or a `sgq prepare` directory); every kind becomes the same stream of
`(src, trg, label, ts, op)` tuples here. Edges go to the engine one instant at a time (the
evaluation of sgq/evaluation.py, as `sgq run` uses), handed over as soon as a later time is
read, so each change is yielded as soon as it is final and an endless iterable works as a
live stream.
"""

from __future__ import annotations

import itertools
import operator
import os
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any, NamedTuple, Union

from .base.errors import UserError
from .evaluation import BATCH_EDGES, Evaluation, properties_kept
from .incremental.deltas import DELTA_FIELDS, INTERVAL_FIELDS, rows_of
from .incremental.engine import Result
from .parquet_input import is_prepared, prepared_properties, read_prepared
from .property_values import json_value, present
from .reorder import ordered
from .stream_io import (
    _ALIASES,
    COLUMNS,
    INT64_MAX,
    INT64_MIN,
    REQUIRED,
    StreamError,
    blamed,
    file_head,
    is_time,
    path_text,
    read_edges,
)

if TYPE_CHECKING:
    import pandas
    import pyarrow

EdgeInput = Union[Iterable[tuple], str, os.PathLike, "pandas.DataFrame", "pyarrow.Table"]


class Delta(NamedTuple):
    """One change of the output: `(src, trg, label)` enters (`+`) or leaves (`-`) the
    output snapshot at `time` (specs/semantics.md §5)."""

    time: int
    op: str
    src: str
    trg: str
    label: str


def run_query(
    query,
    edges: EdgeInput,
    emit: str = "deltas",
    *,
    paths: bool = False,
    max_lateness: int | None = None,
    properties: tuple[str, ...] | None = None,
) -> Iterator[Delta | Result]:
    """`Query.run` (see its docstring)."""
    name, stream, names = edge_stream(edges, properties, query)
    evaluation = Evaluation(query, emit, paths=paths, properties=names)
    position = [0]
    timed = ordered(
        _counted(stream, position, names), name, position, max_lateness, limit=evaluation.limit
    )
    instant: list = []
    try:
        for edge in timed:
            if instant and (edge[3] != instant[0][3] or len(instant) >= BATCH_EDGES):
                # the instant is complete once a later time is read: hand it over and move the
                # frontier to that time, so what it made final comes out now
                yield from _changes(evaluation, evaluation.push(instant))
                yield from _changes(evaluation, evaluation.advance(edge[3]))
                instant = []
            instant.append(edge)
    except StreamError as exc:  # in a damaged .gz, the damage's doing: said so
        raise blamed(name, exc) from None
    if instant:
        yield from _changes(evaluation, evaluation.push(instant))
    yield from _changes(evaluation, evaluation.close())


def _changes(evaluation: Evaluation, out: list) -> list:
    if evaluation.deltas:
        return [Delta(*row) for row in rows_of(out)]
    return [Result(*r) for r in out]


def _counted(
    edges: Iterable[tuple], position: list[int], names: tuple[str, ...] | None = None
) -> Iterator[tuple]:
    """Edges as `(src, trg, label, ts, op[, props])` with an integer time, `position[0]`
    their number (for messages); a malformed tuple is a one-line UserError naming it. What
    the file readers refuse is refused here too (specs/semantics.md §7): a time that is no
    integer (a float, a bool, `"1_000"`) or is outside int64, a vertex or label that is
    neither a string nor an integer (None, a float, a container); a sixth field that is not
    a dict of properties among `names`, each an int, a float or a string."""
    for i, edge in enumerate(edges, start=1):
        position[0] = i
        try:
            n = len(edge)
            src, trg, label, ts = edge[0], edge[1], edge[2], edge[3]
            t = ts if type(ts) is int else _time(ts)
        except (TypeError, ValueError, IndexError):
            raise UserError(
                f"edge #{i} {_shown(edge)}: expected (src, trg, label, ts[, op]) with an integer ts"
            ) from None
        if not (INT64_MIN <= t <= INT64_MAX):
            raise UserError(f"edge #{i} {_shown(edge)}: time {t} is outside int64")
        if not (type(src) is str and type(trg) is str and type(label) is str) and not (
            _is_id(src) and _is_id(trg) and _is_id(label)
        ):
            raise UserError(
                f"edge #{i} {_shown(edge)}: a vertex or a label is a string or an integer"
            )
        if n == 4:
            yield (src, trg, label, t, "+")
        elif n == 5:
            yield (src, trg, label, t, edge[4])
        elif n == 6:
            yield (src, trg, label, t, edge[4], _properties(edge, i, names))
        else:
            raise UserError(f"edge #{i} {_shown(edge)}: expected 4 to 6 values, found {n}")


def _properties(edge: tuple, i: int, names: tuple[str, ...] | None) -> dict:
    """The sixth field of edge #i: a dict of properties named among `names`, each a value
    (property_values.json_value: an int, a float or a string; None left out)."""
    props = edge[5]
    if type(props) is not dict:
        raise UserError(f"edge #{i} {_shown(edge)}: the sixth value is not a dict of properties")
    if not props.keys() <= set(names or ()):
        raise UserError(
            f"edge #{i} {_shown(edge)}: a property that is not among the input's "
            f"({', '.join(names or ()) or 'none'}; give them as properties=)"
        )
    try:
        values = [json_value(v) for v in props.values()]
    except ValueError:
        raise UserError(
            f"edge #{i} {_shown(edge)}: a property is an int, a float or a string"
        ) from None
    if None in values:
        return {k: v for k, v in zip(props, values) if v is not None}
    return props


def _time(ts) -> int:
    """An edge's time other than an int: a time's text (stream_io.is_time) or an integer
    of another type (numpy's); ValueError for the rest (a float, a bool, other text)."""
    if isinstance(ts, str):
        text = ts.strip()
        if not is_time(text) or len(text) > 20:
            raise ValueError(ts)
        return int(text)
    if isinstance(ts, bool | float):
        raise ValueError(ts)
    return operator.index(ts)  # TypeError for what is no integer


def _is_id(value) -> bool:
    """A vertex or a label: a string or an integer (not a bool, a float, None, a container)."""
    kind = type(value)
    if kind is str or kind is int:
        return True
    if isinstance(value, str):
        return True
    if isinstance(value, bool | float) or value is None:
        return False
    try:
        operator.index(value)
    except TypeError:
        return False
    return True


def _shown(edge) -> str:
    """An edge for a message: its repr, cut and without control characters."""
    text = repr(edge)
    return text if len(text) <= 80 else text[:80] + "..."


def edge_stream(
    edges: EdgeInput, properties: tuple[str, ...] | None, query
) -> tuple[str, Iterable[tuple], tuple[str, ...] | None]:
    """(a name for messages, the edges as tuples, the input's property names or None) of
    any input `Query.run` takes. The property names are a file's (its header's columns
    after sgq's own, or its first JSON record's other fields), a table's columns after
    sgq's own, or for an iterable `properties`, by default the keys of its first edge's
    sixth value (specs/semantics.md §1). A file read for `query` is read without the
    properties its engine does not need, as `sgq run` reads it (evaluation.properties_kept)."""
    if isinstance(edges, str | os.PathLike):
        path = os.fspath(edges)
        if is_prepared(path):
            return path, read_prepared(path), prepared_properties(path)
        names = properties_kept(query, file_head(path))
        return path, read_edges(path, properties=names is not None), names
    module = type(edges).__module__.partition(".")[0]
    if module == "pandas":
        names = list(edges.columns)
        return "<DataFrame>", _table_rows(edges, names, _pandas_column), _extra(names)
    if module == "pyarrow":
        return "<arrow table>", _arrow_rows(edges), _extra(edges.schema.names)
    if isinstance(edges, bytes) or not hasattr(edges, "__iter__"):
        raise UserError(
            f"cannot read edges from {type(edges).__name__}: give an iterable of tuples, "
            "a pandas DataFrame, a pyarrow Table or a path"
        )
    if properties is not None:
        return "<edges>", edges, tuple(properties) or None
    edges = iter(edges)
    first = next(edges, None)
    if first is None:
        return "<edges>", (), None
    rest = itertools.chain((first,), edges)
    try:
        names = tuple(first[5]) if len(first) == 6 and type(first[5]) is dict else ()
    except TypeError:  # (no length: `_counted` says what is wrong with it)
        names = ()
    return "<edges>", rest, names or None


def _columns(names: list[str]) -> dict[str, str]:
    """Our column -> the table's, by name (aliases as in edge files: source, target, time...)."""
    found: dict[str, str] = {}
    for name in names:
        ours = _ALIASES.get(str(name).lower(), str(name).lower())
        found.setdefault(ours, name)
    missing = [c for c in REQUIRED if c not in found]
    if missing:
        raise UserError(
            f"the table lacks column(s) {', '.join(missing)} (needs src, trg, label, ts[, op])"
        )
    return found


def _extra(names: list) -> tuple[str, ...] | None:
    """A table's property columns: those that are none of sgq's (`_columns`), None if none."""
    found = _columns(names)
    ours = {found[c] for c in COLUMNS if c in found}
    return tuple(str(n) for n in names if n not in ours) or None


def _pandas_column(frame, name) -> list:
    return frame[name].tolist()


def _table_rows(table, names: list[str], column) -> Iterator[tuple]:
    found = _columns(names)
    cols = [column(table, found[c]) for c in REQUIRED]
    props = _extra(names)
    if props is None and "op" in found:
        yield from zip(*cols, column(table, found["op"]))
    elif props is None:
        yield from zip(*cols)
    else:
        ops = column(table, found["op"]) if "op" in found else itertools.repeat("+")
        values = [_values(column(table, p), p) for p in props]
        yield from zip(*cols, ops, (present(props, row) for row in zip(*values)))


def _values(values: list, name: str) -> list:
    """A table's property column as values (an int, a float or a string; None for a null,
    and for a NaN, which is how pandas marks a missing number); a UserError naming the
    column for anything else (a bool, a date, an infinity)."""
    out = []
    for value in values:
        if value is None or (type(value) is float and value != value):
            out.append(None)
            continue
        try:
            out.append(json_value(value))
        except ValueError:
            raise UserError(
                f"the table's column {name} holds {value!r}: a property is an int, a float "
                "or a string"
            ) from None
    return out


def _arrow_rows(table) -> Iterator[tuple]:
    """The rows of a pyarrow Table or RecordBatch, a record batch at a time."""
    parts = table.to_batches() if hasattr(table, "to_batches") else [table]
    for part in parts:
        yield from _table_rows(part, part.schema.names, _arrow_column)


def _arrow_column(batch, name) -> list:
    return batch.column(batch.schema.get_field_index(name)).to_pylist()


def _fields(emit: str, paths: bool) -> tuple[str, ...]:
    if emit == "deltas":
        return DELTA_FIELDS
    return INTERVAL_FIELDS + (("path",) if paths else ())


def _rows(query, edges: EdgeInput, emit: str, options: dict[str, Any]) -> list[tuple]:
    """The changes as plain tuples of the columns `_fields` names (a witness path as text)."""
    changes = run_query(query, edges, emit, **options)
    if emit == "deltas":
        return [tuple(d) for d in changes]
    if options.get("paths"):
        return [(r.src, r.trg, r.label, r.ts, r.exp, path_text(r.path)) for r in changes]
    return [tuple(r[:5]) for r in changes]


def to_pandas(query, edges: EdgeInput, emit: str = "deltas", **options: Any) -> pandas.DataFrame:
    """`Query.to_pandas` (see its docstring)."""
    try:
        import pandas
    except ImportError:
        raise UserError(
            "Query.to_pandas needs pandas (pip install pandas); Query.to_arrow needs only "
            "pyarrow, which sgq has"
        ) from None
    fields = _fields(emit, options.get("paths", False))
    return pandas.DataFrame(_rows(query, edges, emit, options), columns=list(fields))


def to_arrow(query, edges: EdgeInput, emit: str = "deltas", **options: Any) -> pyarrow.Table:
    """`Query.to_arrow` (see its docstring)."""
    import pyarrow

    fields = _fields(emit, options.get("paths", False))
    rows = _rows(query, edges, emit, options)
    columns = list(zip(*rows)) if rows else [()] * len(fields)
    types = {"time": pyarrow.int64(), "ts": pyarrow.int64(), "exp": pyarrow.int64()}
    schema = pyarrow.schema([(name, types.get(name, pyarrow.string())) for name in fields])
    return pyarrow.table([list(col) for col in columns], schema=schema)
