"""The Spark engine: one SGA plan (`sgq.compile(...).plan`) evaluated batch by batch as
Spark DataFrame programs over state tables held by Spark, with the single-process engine's
results (specs/semantics.md §4-§6).

A batch (spark_engine/batch_grid.py: the instants between two change points of the window,
one slide bucket for every spec program) is pushed through the plan's nodes in topological
order; each node's program (spark_engine/physical.py) reads its inputs' live tuples and
deltas and coalesces its candidates into its own table, so that its delta is what is new or
widened. Nothing expires inside a batch: a key's row in a batch's delta is final up to the
batch's end, `[ts, exp)` with `ts` the instant it entered (or the start of its run, if it was
valid before) and `exp` its expiry if nothing else arrives. The output nodes' deltas are the
batch's interval rows: the engine's coverage per key (the split into rows may differ, which
§7 allows), hence its delta view exactly. At the batch's end one Spark job makes every table
final (spark_engine/state_store.py); a PATH adds one job per closure round.
"""

from __future__ import annotations

import time
from functools import reduce

import attrs
from pyspark.sql import DataFrame, SparkSession

from ..incremental.engine import check_properties
from ..sga.algebra import Path, Plan, WScan, properties_read
from ..sga.rewrite.bind_path_sources import unbind_paths
from .batch_context import BatchContext
from .batch_grid import Batch, BatchGrid
from .closure import closure_part
from .physical import PROGRAMS, STATEFUL
from .refusals import check_supported
from .sql_text import literal
from .state_store import CLOSURE, OUTPUT, TUPLE, WIRE, StateStore


@attrs.frozen
class BatchReport:
    """What one batch did: `edges` read, `rows` of output, closure `rounds`, `jobs` (the
    Spark actions the engine started: its flushes; the broadcasts Spark runs inside one are
    jobs of their own, which `sgq bench --engine spark` counts too), `seconds` of wall
    time, `state` rows after it."""

    batch: Batch
    edges: int
    rows: int
    rounds: int
    jobs: int
    seconds: float
    state: int


class SparkEngine:
    """Evaluation of one plan on one SparkSession; `step` runs a batch. `properties`: the
    names of the input's properties (specs/semantics.md §1), when known: a program that reads
    another is refused before any work. `keys`: the properties the plan reads, which a
    batch's edges carry as columns (spark_engine/property_values.py)."""

    def __init__(
        self, plan: Plan, spark: SparkSession, properties: tuple[str, ...] | None = None
    ) -> None:
        plan = unbind_paths(plan)  # a bound PATH runs as its PATH: the same results
        check_supported(plan)
        needed = properties_read(plan)
        if properties is not None:
            check_properties(needed, properties)
        self.keys = tuple(dict.fromkeys(key for keys in needed.values() for key in keys))
        self.plan = plan
        self.spark = spark
        self.grid = BatchGrid.of(plan)
        self.nodes = list(plan.nodes())
        missing = [type(n).__name__ for n in self.nodes if type(n) not in PROGRAMS]
        if missing:
            raise TypeError(f"no Spark program for {', '.join(missing)}")
        self.labels = frozenset(
            name for n in self.nodes if isinstance(n, WScan) for name in n.reads
        )
        self.store = StateStore(spark)
        self.parts: dict = {}
        for i, node in enumerate(self.nodes):
            if isinstance(node, STATEFUL):
                self.parts[node] = i
                self.store.declare(i, TUPLE)
            if isinstance(node, Path):
                self.store.declare(closure_part(i), CLOSURE)
        self.outputs = list(dict.fromkeys(plan.outputs))

    def step(self, batch: Batch, edges: DataFrame | None, labels: frozenset[str]) -> tuple:
        """Run `batch`, whose edges (src, trg, label, ts) are `edges` (of the `labels` the plan
        reads; None when none). Returns the output rows `(src, trg, label, ts, exp)` sorted by
        (ts, src, trg, label), collected to the driver, and the batch's BatchReport without
        its edge count."""
        began, jobs = time.perf_counter(), self.store.jobs
        ctx = self._evaluate(batch, edges, labels)
        rows = self.store.flush(also=lambda: self._output(ctx))
        rows.sort(key=lambda r: (r[3], r[0], r[1], r[2]))
        return rows, self._report(ctx, len(rows), began, jobs)

    def step_frame(
        self, batch: Batch, edges: DataFrame | None, labels: frozenset[str]
    ) -> tuple[DataFrame, BatchReport]:
        """`step` with the output rows left to Spark: a DataFrame over the flushed tables
        (only counted on the driver), for the executors to write."""
        began, jobs = time.perf_counter(), self.store.jobs
        ctx = self._evaluate(batch, edges, labels)
        self.store.flush(also=lambda: self._output(ctx), collect=False)
        return self._output(ctx), self._report(ctx, self.store.also_rows, began, jobs)

    def _evaluate(self, batch: Batch, edges: DataFrame | None, labels: frozenset[str]):
        ctx = BatchContext(batch, edges, labels & self.labels, self.grid, self.store, self.parts)
        for node in self.nodes:
            ctx.relations[node] = PROGRAMS[type(node)](node, ctx)
        return ctx

    def _report(self, ctx: BatchContext, rows: int, began: float, jobs: int) -> BatchReport:
        return BatchReport(
            ctx.batch,
            0,
            rows,
            ctx.rounds,
            self.store.jobs - jobs,
            time.perf_counter() - began,
            self.store.rows(),
        )

    def view_part(self) -> int:
        """A state store part no plan node uses (for the driver's delta view)."""
        return len(self.nodes)

    def save_state(self, path: str) -> None:
        """Write every state table under `path` (Parquet, in as many files as shuffle
        partitions; a checkpoint's state directory)."""
        files = int(self.spark.conf.get("spark.sql.shuffle.partitions"))
        self.store.everything().coalesce(files).write.mode("overwrite").parquet(path)
        self.store.jobs += 1

    def load_state(self, path: str) -> None:
        """Load the state tables `save_state` wrote under `path`."""
        self.store.load(self.spark.read.schema(WIRE).parquet(path))

    def _output(self, ctx: BatchContext) -> DataFrame:
        """The batch's output rows: the output nodes' deltas, labelled."""
        frames = []
        for root in self.outputs:
            delta = ctx.relations[root].delta
            if delta is not None:
                label = f"{literal(root.label)} AS label"
                frames.append(delta.selectExpr("src", "trg", label, "ts", "exp"))
        if not frames:
            return self.spark.createDataFrame([], OUTPUT)
        return reduce(DataFrame.unionByName, frames)
