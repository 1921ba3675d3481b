"""The Spark engine's state tables: per stateful plan node its live tuples, per PATH its
closure, held by Spark between batches (in executor memory, and under the checkpoint
directory when there is one).

Every table is stored in one layout, so that all the tables a batch changed become final in
ONE Spark job (`flush`): their lazy plans are unioned, tagged with a `part` number, locally
checkpointed (which cuts the lineage: a batch never recomputes an earlier one) and counted
per part in the same job. Spark's job and stage launches, not the rows, dominate a batch on
small windows, so jobs are what this saves. The layout:

    part int, src string, trg string, q int, ts long, exp long, changed boolean, touched boolean

`q` (the automaton state) and `touched` belong to a PATH closure's rows `(root, v, q)`; the
other tables leave them null. A table's consumers read it through `table(part)` each time,
so a plan built after a flush reads the checkpoint, not the plan before it.
"""

from __future__ import annotations

from collections.abc import Callable

import attrs
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

WIRE = T.StructType(
    [
        T.StructField("part", T.IntegerType()),
        T.StructField("src", T.StringType()),
        T.StructField("trg", T.StringType()),
        T.StructField("q", T.IntegerType()),
        T.StructField("ts", T.LongType()),
        T.StructField("exp", T.LongType()),
        T.StructField("changed", T.BooleanType()),
        T.StructField("touched", T.BooleanType()),
    ]
)
_TYPES = {f.name: f.dataType for f in WIRE.fields}

#: a batch's output rows
OUTPUT = T.StructType(
    [T.StructField(c, T.StringType()) for c in ("src", "trg", "label")]
    + [T.StructField(c, T.LongType()) for c in ("ts", "exp")]
)

#: bytes of one stored row, as a broadcast join holds it (two short strings, two longs)
ROW_BYTES = 100

#: the columns of a node's tuples, and of a PATH closure's rows
TUPLE = ("src", "trg", "ts", "exp", "changed")
CLOSURE = ("src", "trg", "q", "ts", "exp", "changed", "touched")


@attrs.define
class PartCounts:
    """A table's size at its last flush: `rows` stored, `changed` of them in the batch."""

    rows: int = 0
    changed: int = 0


class StateStore:
    """The tables of one run, by part number; `jobs` counts the flushes (Spark jobs)."""

    def __init__(self, spark: SparkSession) -> None:
        self.spark = spark
        self.columns: dict[int, tuple[str, ...]] = {}
        self._tables: dict[int, DataFrame] = {}
        self._pending: dict[int, DataFrame] = {}
        self._counting: set[int] = set()  # flushed, their counts on the way
        self.counts: dict[int, PartCounts] = {}
        self.jobs = 0
        self.also_rows = 0  # rows of the last flush's `also`, when not collected

    def declare(self, part: int, columns: tuple[str, ...]) -> None:
        """Part `part` holds tables of `columns` (TUPLE or CLOSURE); empty until `put`."""
        self.columns[part] = columns
        self.counts.setdefault(part, PartCounts())

    def table(self, part: int) -> DataFrame:
        """The part's current table (pending or flushed; empty before its first `put`)."""
        got = self._pending.get(part)
        if got is None:
            got = self._tables.get(part)
        if got is None:
            got = self.spark.createDataFrame([], _schema(self.columns[part]))
            self._tables[part] = got
        return got

    def put(self, part: int, table: DataFrame) -> None:
        """The part's new table (lazy): final at the next `flush`."""
        self._pending[part] = table

    def pending(self, part: int) -> bool:
        return part in self._pending

    def flush(self, also: Callable[[], DataFrame] | None = None, collect: bool = True) -> list:
        """Make every pending table final in one job, and count its rows. `also` builds
        rows `(src, trg, label, ts, exp)` from the tables once they are final (the batch's
        output), collected in the same job and returned; with `collect=False` only counted
        (`self.also_rows`), for output the executors write."""
        if not self._pending and also is None:
            return []
        done = None
        if self._pending:
            frames = [self._wire(part, df) for part, df in self._pending.items()]
            union = frames[0]
            for frame in frames[1:]:
                union = union.unionByName(frame)
            done = union.localCheckpoint(eager=False)
            for part in self._pending:
                self._tables[part] = done.filter(f"part = {part}").select(*self.columns[part])
            counting, self._pending = self._pending, {}
            self._counting = set(counting)
        collected = []
        if done is not None:
            counts = done.groupBy("part").agg(
                F.expr("count(1) AS rows"), F.expr("count_if(changed) AS n")
            )
            collected.append(counts.selectExpr("part", "rows", "n", *_NO_ROW))
        if also is not None and collect:
            collected.append(also().selectExpr(*_NO_COUNT, "src", "trg", "label", "ts", "exp"))
        elif also is not None:  # a count row: no part, no src
            count = also().groupBy().agg(F.expr("count(1) AS rows"))
            collected.append(count.selectExpr(_NO_COUNT[0], "rows", *_NO_COUNT[2:], *_NO_ROW))
        got = collected[0] if len(collected) == 1 else collected[0].unionByName(collected[1])
        rows = []
        self.jobs += 1
        for part in self._counting:
            self.counts[part] = PartCounts()
        self._counting = set()
        for row in got.collect():
            if row["part"] is not None:
                self.counts[row["part"]] = PartCounts(row["rows"], row["n"] or 0)
            elif row["src"] is None:
                self.also_rows = row["rows"]
            else:
                rows.append((row["src"], row["trg"], row["label"], row["ts"], row["exp"]))
        return rows

    def unchanged(self, part: int) -> bool:
        """Whether the part is flushed and none of its rows changed in its last flush."""
        return (
            part not in self._pending
            and part not in self._counting
            and self.counts[part].changed == 0
        )

    def broadcastable(self, rows: int | None) -> bool:
        """Whether a side of `rows` rows is small enough to broadcast to every task of a join
        (Spark's `autoBroadcastJoinThreshold`, at ROW_BYTES a row): then the other side, the
        large live tuples, is not shuffled. Spark cannot tell by itself: a checkpointed table
        has no size estimate."""
        if rows is None:
            return False
        threshold = int(self.spark.conf.get("spark.sql.autoBroadcastJoinThreshold").rstrip("b"))
        return 0 <= rows * ROW_BYTES <= threshold

    def rows(self) -> int:
        """Rows over every table at its last flush."""
        return sum(c.rows for c in self.counts.values())

    # ---- persistence (the checkpoint directory)
    def everything(self) -> DataFrame:
        """Every table in the wire layout (flushed first), `changed`/`touched` false."""
        self.flush()
        frames = [self._wire(part, self.table(part)) for part in self.columns]
        union = frames[0] if frames else self.spark.createDataFrame([], WIRE)
        for frame in frames[1:]:
            union = union.unionByName(frame)
        return union.selectExpr(
            *(f"false AS {f.name}" if f.name in ("changed", "touched") else f.name for f in WIRE)
        )

    def load(self, wire: DataFrame) -> None:
        """Every declared part's table from `wire` (as `everything` wrote it), made final."""
        self._pending = {p: wire.filter(f"part = {p}").select(*c) for p, c in self.columns.items()}
        self.flush()

    def _wire(self, part: int, df: DataFrame) -> DataFrame:
        have = set(self.columns[part])
        return df.selectExpr(
            f"{part} AS part",
            *(
                f.name
                if f.name in have
                else f"CAST(NULL AS {f.dataType.simpleString()}) AS {f.name}"
                for f in WIRE.fields[1:]
            ),
        )


_NO_ROW = (
    "CAST(NULL AS STRING) AS src",
    "CAST(NULL AS STRING) AS trg",
    "CAST(NULL AS STRING) AS label",
    "CAST(NULL AS BIGINT) AS ts",
    "CAST(NULL AS BIGINT) AS exp",
)
_NO_COUNT = (
    "CAST(NULL AS INT) AS part",
    "CAST(NULL AS BIGINT) AS rows",
    "CAST(NULL AS BIGINT) AS n",
)


def _schema(columns: tuple[str, ...]) -> T.StructType:
    return T.StructType([T.StructField(c, _TYPES[c]) for c in columns])
