"""Reading a `sgq prepare` output directory back as an edge stream, in bounded memory.

The directory holds `edges/part-*.parquet` (src, trg, label, ts, op; sorted by time, ties in
input order) and `_PREPARED.json`, written last, which lists the part files in stream order.
Files are read one after another, a record batch at a time (pyarrow `iter_batches`), so memory
stays within one row group whatever the stream's size. The reader checks that times never go
back, which is what `sgq run` needs (specs/semantics.md §1); a directory that breaks it (or lacks the
manifest, e.g. a job that did not finish) is a UserError, never silently misread. So is a part
whose columns are not what sgq prepare writes: text for src, trg, label and op, an integer
(int64 at most) for ts, and no nulls (specs/semantics.md §7; checked on the schema and on each
batch's null counts, never row by row).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator

from .base.errors import UserError
from .property_values import present

Edge = tuple[str, str, str, int, str]

MANIFEST = "_PREPARED.json"
BATCH_ROWS = 65536
_COLUMNS = ["src", "trg", "label", "ts", "op"]


def is_prepared(path: str | os.PathLike) -> bool:
    """True if `path` is a directory written by `sgq prepare` (it has the manifest)."""
    path = os.fspath(path)
    return os.path.isdir(path) and os.path.isfile(os.path.join(path, MANIFEST))


def manifest(path: str | os.PathLike) -> dict:
    """The manifest of a prepared directory (counts, time range, part files in order)."""
    path = os.fspath(path)
    if not os.path.isdir(path):
        raise UserError(f"'{path}' is not a directory prepared by sgq prepare")
    name = os.path.join(path, MANIFEST)
    if not os.path.isfile(name):
        if os.path.isdir(os.path.join(path, "edges")):
            raise UserError(
                f"'{path}' has no {MANIFEST}: its sgq prepare run did not finish; run it again"
            )
        raise UserError(f"'{path}' is not a directory prepared by sgq prepare (no {MANIFEST})")
    try:
        with open(name, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError) as exc:
        raise UserError(f"cannot read {name}: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("edges"), list):
        raise UserError(f"{name} is not an sgq prepare manifest")
    return data


def read_prepared(path: str | os.PathLike, batch_rows: int = BATCH_ROWS) -> Iterator[Edge]:
    """Edges `(src, trg, label, ts, op)` of a prepared directory, in time order; with a
    sixth field, the dict of a row's properties, where the parts have property columns.

    Memory: one record batch (`batch_rows` rows, within one Parquet row group).
    """
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    path = os.fspath(path)
    info = manifest(path)
    last = None
    for rel in info["edges"]:
        name = os.path.join(path, rel)
        if not os.path.isfile(name):
            raise UserError(f"{name} is listed in {MANIFEST} but missing")
        try:
            pfile = pq.ParquetFile(name)
            names = pfile.schema_arrow.names
            missing = [c for c in _COLUMNS if c not in names]
            if missing:
                raise UserError(f"{name} lacks column(s) {', '.join(missing)}")
            _check_types(name, pfile.schema_arrow)
            props = property_columns(name, pfile.schema_arrow)
            for batch in pfile.iter_batches(batch_size=batch_rows, columns=_COLUMNS + props):
                n = batch.num_rows
                if not n:
                    continue
                nulls = [c for c, col in zip(_COLUMNS, batch.columns) if col.null_count]
                if nulls:
                    raise UserError(f"{name}: column(s) {', '.join(nulls)} hold nulls")
                ts = batch.column(3)
                first = ts[0].as_py()
                if (last is not None and first < last) or (
                    n > 1 and pc.min(pc.subtract(ts.slice(1), ts.slice(0, n - 1))).as_py() < 0
                ):
                    raise UserError(f"{name}: times go back; the prepared stream is out of order")
                last = ts[n - 1].as_py()
                fixed = [batch.column(i).to_pylist() for i in range(5)]
                if props:
                    fixed.append(_property_rows(name, batch, props))
                yield from zip(*fixed)
        except UserError:
            raise
        except (OSError, ValueError) as exc:  # pyarrow.ArrowInvalid is a ValueError
            raise UserError(f"cannot read {name}: {exc}") from None


def property_columns(name: str, schema) -> list[str]:
    """The property columns of a part (those after sgq's own, specs/semantics.md §1), each an
    integer, a float or text: the column's type is its values' type."""
    import pyarrow as pa

    props = [c for c in schema.names if c not in _COLUMNS]
    for column in props:
        kind = schema.field(column).type
        if not (
            pa.types.is_integer(kind)
            or pa.types.is_floating(kind)
            or pa.types.is_string(kind)
            or pa.types.is_large_string(kind)
        ):
            raise UserError(
                f"{name}: property column {column} is {kind}, not an integer, a float or text"
            )
    return props


def _property_rows(name: str, batch, props: list[str]) -> list[dict]:
    """Each row's properties of a record batch, nulls left out (missing); a NaN or an
    infinity, which no property holds, is a UserError."""
    import pyarrow as pa
    import pyarrow.compute as pc

    columns = []
    for i, column in enumerate(props, start=5):
        values = batch.column(i)
        if pa.types.is_floating(values.type) and pc.any(pc.invert(pc.is_finite(values))).as_py():
            raise UserError(f"{name}: property column {column} holds a NaN or an infinity")
        columns.append(values.to_pylist())
    rows = zip(*columns)
    if not any(batch.column(i).null_count for i in range(5, 5 + len(props))):
        return [dict(zip(props, row)) for row in rows]
    return [present(props, row) for row in rows]


def prepared_properties(path: str | os.PathLike) -> tuple[str, ...] | None:
    """The property names of a prepared directory (its first part's property columns), None
    when it has none."""
    import pyarrow.parquet as pq

    path = os.fspath(path)
    for rel in manifest(path)["edges"]:
        name = os.path.join(path, rel)
        try:
            schema = pq.read_schema(name)
        except (OSError, ValueError) as exc:
            raise UserError(f"cannot read {name}: {exc}") from None
        return tuple(property_columns(name, schema)) or None
    return None


def _check_types(name: str, schema) -> None:
    """A part's columns are those sgq prepare writes: text, and an int64-sized integer ts."""
    import pyarrow as pa

    for column in _COLUMNS:
        kind = schema.field(column).type
        if column == "ts":
            fits = pa.types.is_integer(kind) and not (
                pa.types.is_unsigned_integer(kind) and kind.bit_width == 64
            )
        else:
            fits = pa.types.is_string(kind) or pa.types.is_large_string(kind)
        if not fits:
            want = "an integer (int64 at most)" if column == "ts" else "text"
            raise UserError(f"{name}: column {column} is {kind}, not {want}")


def time_range(files: list[str]) -> tuple[int, int] | None:
    """The first and last time of a prepared directory's part `files` (in stream order), from
    the Parquet footers' statistics (the ts column where a footer has none); None when they
    hold no row. Reads no data pages when the statistics are there."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    low = high = None
    for name in files:
        try:
            meta = pq.ParquetFile(name).metadata
        except (OSError, ValueError) as exc:
            raise UserError(f"cannot read {name}: {exc}") from None
        column = meta.schema.names.index("ts") if "ts" in meta.schema.names else None
        if column is None:
            raise UserError(f"{name} lacks column(s) ts")
        for i in range(meta.num_row_groups):
            group = meta.row_group(i)
            if not group.num_rows:
                continue
            stats = group.column(column).statistics
            if stats is None or not stats.has_min_max:
                ts = pq.read_table(name, columns=["ts"]).column(0)
                lo, hi = pc.min(ts).as_py(), pc.max(ts).as_py()
            else:
                lo, hi = stats.min, stats.max
            low = lo if low is None else min(low, lo)
            high = hi if high is None else max(high, hi)
    return None if low is None else (low, high)
