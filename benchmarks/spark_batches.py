"""`sgq bench --engine spark`: the Spark engine's per-batch latency beside the
single-process engine's on the same stream, split the way docs/scaling.md's cost model is.

Per batch of each workload and each shuffle-partition count: wall seconds, the Spark jobs
and their summed run time (the rest is the driver: planning, Python, py4j), closure rounds,
shuffle bytes read and written and rows written (Spark's status store:
benchmarks/spark_jobs.py; `profile` logs them per job and stage), and the state
rows after the batch with the largest share of them per partition when the tables are
hash-partitioned on `src` into that many partitions (what one executor of N holds). The
single-process engine's seconds for the same batch are measured in the same process: its
edges pushed, then time advanced to the batch's end. Medians over batches, after the first
(JVM warm-up).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from itertools import groupby
from pathlib import Path

import sgq

from ..generators import generate
from ..spark_engine.engine import SparkEngine
from ..spark_source import driver_batches
from .spark_jobs import job_metrics, profile, profile_lines

REPO = Path(__file__).resolve().parents[1]

#: (name, program, stream kind, edges, days, window, slide): small enough for local[2]
WORKLOADS = (
    ("sga-q1-so", "specs/queries/sga/so/q1.dl", "so", 3000, 6, 2 * 86400, 86400),
    ("sga-q5-snb", "specs/queries/sga/snb/q5.dl", "snb", 3000, 6, 2 * 86400, 86400),
    ("sga-q7-snb", "specs/queries/sga/snb/q7.dl", "snb", 3000, 6, 2 * 86400, 86400),
)


def _state_per_partition(engine: SparkEngine, partitions: int) -> int:
    """The most state rows one of `partitions` hash partitions on `src` would hold."""
    rows = (
        engine.store.everything()
        .selectExpr(f"pmod(hash(src), {partitions}) AS p")
        .groupBy("p")
        .count()
        .collect()
    )
    return max((r["count"] for r in rows), default=0)


def measure(
    spark,
    name: str,
    program: str,
    kind: str,
    edges: int,
    days: int,
    window: int,
    slide: int,
    partitions: int,
    log: Callable[[str], None],
    show_profile: bool = False,
) -> dict:
    """One workload at one partition count: per-batch rows and their medians; with
    `show_profile`, each batch's jobs and stages logged too."""
    spark.conf.set("spark.sql.shuffle.partitions", str(partitions))
    query = sgq.compile(path=REPO / program, window=window, slide=slide)
    stream = [tuple(e) for e in generate(kind, edges, seed=1, days=days)]
    engine = SparkEngine(query.plan, spark)
    reference = query.engine(history=False)
    by_batch = {k: list(g) for k, g in groupby(stream, key=lambda e: engine.grid.batch_of(e[3]))}
    batches = []
    for got in driver_batches(spark, stream, engine.grid, engine.labels, name):
        group = f"sgq-bench-{name}-{partitions}-{got.batch.index}"
        spark.sparkContext.setJobGroup(group, group)
        rows, report = engine.step(got.batch, got.edges, got.labels)
        spark.sparkContext.setJobGroup("sgq-bench-other", "other")
        began = time.perf_counter()
        reference.push_batch(by_batch[got.batch.index])
        reference.advance(got.batch.end)
        reference.drain_rows()
        single = time.perf_counter() - began
        row = {
            "batch": got.batch.index,
            "edges": got.count,
            "rows": len(rows),
            "seconds": report.seconds,
            "rounds": report.rounds,
            "state": report.state,
            "state_per_partition": _state_per_partition(engine, partitions),
            "single_seconds": single,
            **job_metrics(spark, group),
        }
        batches.append(row)
        log(
            f"{name} p={partitions} batch {row['batch']}: {row['seconds']:.2f}s "
            f"({row['jobs']} jobs, {row['rounds']} rounds), single {single * 1000:.1f} ms"
        )
        if show_profile:
            for line in profile_lines(profile(spark, group)):
                log(line)
    steady = batches[1:] or batches
    median = {
        key: statistics.median(b[key] for b in steady)
        for key in steady[0]
        if key != "batch" and all(b[key] is not None for b in steady)
    }
    return {"workload": name, "partitions": partitions, "batches": batches, "median": median}


def run_spark_bench(
    spark,
    partitions: tuple[int, ...],
    only: str | None,
    log: Callable[[str], None],
    edges: int | None = None,
    show_profile: bool = False,
) -> list[dict]:
    """Every workload (whose name contains `only`) at every partition count; `edges`
    replaces the workloads' stream sizes."""
    out = []
    for name, program, kind, size, days, window, slide in WORKLOADS:
        if only and not any(p in name for p in only.split(",")):
            continue
        size = edges or size
        for n in partitions:
            out.append(
                measure(spark, name, program, kind, size, days, window, slide, n, log, show_profile)
            )
    return out


def format_spark_table(results: list[dict]) -> str:
    """One line per workload and partition count: medians per batch."""
    head = (
        "workload        N  batch s  jobs  job s  rounds  shuffle KB  shuffle rows  state  "
        "max/part  single ms  ratio"
    )
    lines = [head]
    for r in results:
        m = r["median"]
        lines.append(
            f"{r['workload']:<14} {r['partitions']:>2}  {m['seconds']:7.2f}  {m['jobs']:4.0f}  "
            f"{m['job_seconds']:5.2f}  {m['rounds']:6.0f}  {m['shuffle_read'] / 1024:10.1f}  "
            f"{m['shuffle_records']:12,.0f}  {m['state']:5.0f}  "
            f"{m['state_per_partition']:8.0f}  {m['single_seconds'] * 1000:9.1f}  "
            f"{m['seconds'] / max(m['single_seconds'], 1e-9):5.0f}x"
        )
    return "\n".join(lines)
