"""The batches of an input stream, as the Spark engine reads them.

Two routes, one contract: batches in time order, each with its edges of the labels the plan
reads as a DataFrame (src, trg, label, ts, and a column per property the plan reads, its
values encoded: spark_engine/property_values.py), the set of those labels, and its edge
count.

- An edge file (or any iterable of edges): parsed on the driver by the single-process
  engine's reader (same formats, same errors, same order check), a batch at a time, and
  handed to Spark as a small DataFrame: memory on the driver is one batch.
- A directory written by `sgq prepare` (Parquet sorted by time): read by Spark itself; one
  job first lists the batches and the labels in each (and finds any `-` row), then each
  batch is a filter on its time range, which Parquet's row-group statistics turn into
  reading only the row groups that hold it (the files are sorted by time). The same for
  the held part files of a followed landing directory (`parquet_batches`, from a time on).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator

import attrs
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from .base.errors import UserError
from .checkpoint import edge_digest
from .incremental.time_order import out_of_order
from .parquet_input import manifest
from .reorder import NO_LIMIT, TimeLimit
from .spark_engine.batch_grid import Batch, BatchGrid
from .spark_engine.property_values import column, encoded, encoded_sql
from .spark_engine.refusals import deletion_refused
from .stream_io import INT64_MAX

EDGES = T.StructType(
    [
        T.StructField("src", T.StringType()),
        T.StructField("trg", T.StringType()),
        T.StructField("label", T.StringType()),
        T.StructField("ts", T.LongType()),
    ]
)


def edge_schema(keys: tuple[str, ...]) -> T.StructType:
    """The columns of a batch's edges: EDGES and the properties `keys`, encoded."""
    if not keys:
        return EDGES
    return T.StructType(EDGES.fields + [T.StructField(column(key), T.StringType()) for key in keys])


@attrs.frozen
class BatchInput:
    """One batch of the input: its `edges` (None when none of the plan's labels), `labels`,
    and `count` of input edges (every label)."""

    batch: Batch
    edges: DataFrame | None
    labels: frozenset[str]
    count: int
    digest: int = 0


def driver_batches(
    spark: SparkSession,
    edges: Iterable,
    grid: BatchGrid,
    labels: frozenset[str],
    name: str,
    position: list[int] | None = None,
    keys: tuple[str, ...] = (),
) -> Iterator[BatchInput]:
    """The batches of time-ordered `edges` `(src, trg, label, ts[, op[, props]])` read on the
    driver, with the properties `keys` as columns (`props` a dict of the present ones);
    `name` names the input in errors, with the line `position[0]` when a reader keeps it."""
    schema = edge_schema(keys)
    current: int | None = None
    rows: list = []
    seen: set = set()
    count = crc = 0
    last = None
    for n, edge in enumerate(edges, start=1):
        t = int(edge[3])
        where = f"{name}:{position[0]}" if position is not None else f"{name}: edge {n}"
        if last is not None and t < last:
            raise UserError(f"{where}: {out_of_order(t, last)}")
        last = t
        if len(edge) > 4 and edge[4] != "+":
            raise deletion_refused(where)
        index = grid.batch_of(t)
        if index != current:
            if current is not None:
                yield _driver_batch(spark, grid.batch(current), rows, seen, count, crc, schema)
            current, rows, seen, count, crc = index, [], set(), 0, 0
        count += 1
        # (the properties too, where the input has them: a resumed run checks them)
        crc = edge_digest(((*edge[:4], edge[4] if len(edge) > 4 else "+", *edge[5:6]),), crc)
        label = str(edge[2])
        if label in labels:
            row = (str(edge[0]), str(edge[1]), label, t)
            if keys:
                props = edge[5] if len(edge) > 5 and edge[5] else {}
                row += tuple(encoded(props.get(key)) for key in keys)
            rows.append(row)
            seen.add(label)
    if current is not None:
        yield _driver_batch(spark, grid.batch(current), rows, seen, count, crc, schema)


def _driver_batch(
    spark, batch: Batch, rows: list, seen: set, count: int, crc: int, schema: T.StructType
) -> BatchInput:
    edges = spark.createDataFrame(rows, schema) if rows else None
    return BatchInput(batch, edges, frozenset(seen), count, crc)


def prepared_batches(
    spark: SparkSession,
    path: str,
    grid: BatchGrid,
    labels: frozenset[str],
    keys: tuple[str, ...] = (),
    limit: TimeLimit = NO_LIMIT,
) -> Iterator[BatchInput]:
    """The batches of a directory written by `sgq prepare`, read by Spark; a UserError, before
    any batch, for an edge after `limit.latest` (specs/semantics.md §7)."""
    info = manifest(path)
    files = [os.path.join(path, rel) for rel in info["edges"]]
    yield from parquet_batches(spark, files, grid, labels, path, keys=keys, limit=limit)


def parquet_batches(
    spark: SparkSession,
    files: list[str],
    grid: BatchGrid,
    labels: frozenset[str],
    name: str,
    since: int | None = None,
    keys: tuple[str, ...] = (),
    limit: TimeLimit = NO_LIMIT,
) -> Iterator[BatchInput]:
    """The batches of the edges in the Parquet `files` (columns of `sgq prepare`; the other
    columns are properties, typed by the column) from time `since` on (every one when
    None), in time order, with the properties `keys` as columns; `name` names the input in
    errors, which an edge after `limit.latest` is."""
    if not files:
        return
    read = spark.read.parquet(*files)
    table = read.selectExpr(
        "src",
        "trg",
        "label",
        "CAST(ts AS BIGINT) AS ts",
        "op",
        *_property_columns(read, keys, name),
    )
    if since is not None:
        table = table.filter(F.col("ts") >= since)
    if limit.latest < INT64_MAX:
        # (the files are sorted by time: their row groups' statistics skip all but the last)
        late = table.filter(F.col("ts") > limit.latest).select("ts").limit(1).collect()
        if late:
            raise UserError(f"{name}: {limit.why(late[0]['ts'])}")
    listing = (
        table.groupBy(grid.batch_column("ts").alias("batch"), "label")
        .agg(
            F.count(F.lit(1)).alias("n"),
            F.sum(F.when(F.col("op") != "+", 1).otherwise(0)).alias("minus"),
        )
        .collect()
    )
    per_batch: dict[int, dict] = {}
    for row in listing:
        if row["minus"]:
            raise deletion_refused(f"{name}: batch {row['batch']} (label {row['label']})")
        per_batch.setdefault(row["batch"], {})[row["label"]] = row["n"]
    wanted = table.filter(F.col("label").isin(sorted(labels))).select(
        "src", "trg", "label", "ts", *(column(key) for key in keys)
    )
    for index in sorted(per_batch):
        batch = grid.batch(index)
        counts = per_batch[index]
        seen = frozenset(counts) & labels
        edges = None
        if seen:
            edges = wanted.filter((F.col("ts") >= batch.start) & (F.col("ts") < batch.end))
        yield BatchInput(batch, edges, seen, sum(counts.values()))


#: the Parquet column types a property may have, as `encoded_sql` names them
_KINDS = {
    T.ByteType: "integer",
    T.ShortType: "integer",
    T.IntegerType: "integer",
    T.LongType: "integer",
    T.FloatType: "float",
    T.DoubleType: "float",
    T.StringType: "string",
}


def _property_columns(table: DataFrame, keys: tuple[str, ...], name: str) -> list[str]:
    """SQL for the encoded columns of properties `keys` of a Parquet `table`; a UserError
    for a key the table lacks (specs/semantics.md §1)."""
    types = {f.name: f.dataType for f in table.schema.fields}
    out = []
    for key in keys:
        if key not in types:
            have = [c for c in types if c not in ("src", "trg", "label", "ts", "op")]
            raise UserError(
                f"{name}: the program reads property {key!r}, but the input has no such "
                f"column; " + (f"its properties are {', '.join(have)}" if have else "it has none")
            )
        kind = _KINDS.get(type(types[key]))
        if kind is None:
            raise UserError(
                f"{name}: property column {key} is {types[key].simpleString()}, not an "
                "integer, a float or text"
            )
        quoted = "`" + key.replace("`", "``") + "`"
        out.append(f"{encoded_sql(quoted, kind)} AS {column(key)}")
    return out
