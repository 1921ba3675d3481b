"""PATH's closure in one Spark job per batch when the window's product edges are small:
partitioned by root, the live product edges broadcast, each root's semi-naive fixpoint run
to its end inside one task (issue 15's root-partitioned PATH; the vertex-partitioned rounds
of spark_engine/closure.py stay for product graphs too large to broadcast).

A root's closure rows depend only on its own rows and the product edges, so a task holding
every row of a root (the table hash-partitioned on `src`) can run that root's rounds without
Spark: the rounds are the ones closure.py runs as jobs, with the same merge (spark_engine/
coverage.py) per round, so the table it ends with is the same row for row. Round 0 extends
the root's live rows by the new product edges and starts a row at every new edge leaving the
start state from the root; each later round extends the rows the last one changed by every
live product edge; a round's candidates for a key coalesce to the smallest ts and largest
exp, then merge with the stored row (a run that goes on keeps its start; one that ended at
the batch's start and is not carried on by round 0 is dropped). Rows changed in some round
are `touched`.

Cost per batch: one job to collect the live product edges to the driver (they are
broadcast), one shuffle of the closure table and the new roots on `src`, and per root the
work of its rounds in Python; against closure.py's one job and one shuffle of the whole
closure per round.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

import pyarrow as pa
from pyspark import AccumulatorParam
from pyspark.sql import DataFrame

from .state_store import CLOSURE, StateStore

#: the closure rows as the task gives them
_OUT = "src string, trg string, q int, ts long, exp long, changed boolean, touched boolean"
_ARROW = pa.schema(
    [
        ("src", pa.string()),
        ("trg", pa.string()),
        ("q", pa.int32()),
        ("ts", pa.int64()),
        ("exp", pa.int64()),
        ("changed", pa.bool_()),
        ("touched", pa.bool_()),
    ]
)


def local_fixpoint(
    store: StateStore,
    cpart: int,
    start: int,
    start_state: int,
    every: DataFrame,
    new_edges: DataFrame,
) -> int:
    """Make the fixpoint of part `cpart`'s closure for the batch starting at `start` the
    part's table (flushed): `every` the live product edges `(a, qa, b, qb, ts, exp)`,
    `new_edges` those of the input deltas. Returns the rounds of the root that needed most
    (as many as closure.py would have run as jobs)."""
    spark = store.spark
    tagged = every.selectExpr("*", "false AS new").unionByName(
        new_edges.selectExpr("*", "true AS new")
    )
    edges: dict = defaultdict(list)
    new_out: dict = defaultdict(list)
    for r in tagged.collect():
        (new_out if r["new"] else edges)[(r["a"], r["qa"])].append(
            (r["b"], r["qb"], r["ts"], r["exp"])
        )
    store.jobs += 1
    shared = spark.sparkContext.broadcast((dict(edges), dict(new_out)))
    rounds = spark.sparkContext.accumulator(0, _Max())
    roots = new_edges.filter(f"qa = {start_state}").selectExpr(
        "a AS src",
        "CAST(NULL AS STRING) AS trg",
        "CAST(NULL AS INT) AS q",
        "CAST(NULL AS BIGINT) AS ts",
        "CAST(NULL AS BIGINT) AS exp",
    )
    rows = store.table(cpart).filter(f"exp >= {start}").select("src", "trg", "q", "ts", "exp")
    partitions = int(spark.conf.get("spark.sql.shuffle.partitions"))

    def task(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        got, new_got = shared.value
        yield from _close_partition(batches, got, new_got, start, start_state, rounds)

    closed = rows.unionByName(roots).repartition(partitions, "src").mapInArrow(task, _OUT)
    store.put(cpart, closed.select(*CLOSURE))
    store.flush()
    shared.destroy()
    return rounds.value


class _Max(AccumulatorParam):
    """An accumulator of the largest value added (a task run twice adds the same)."""

    def zero(self, value: int) -> int:
        return 0

    def addInPlace(self, a: int, b: int) -> int:  # noqa: N802 (pyspark's name)
        return max(a, b)


def _close_partition(
    batches: Iterator[pa.RecordBatch],
    edges: dict,
    new_out: dict,
    start: int,
    start_state: int,
    rounds,
) -> Iterator[pa.RecordBatch]:
    """Every root of one partition closed; its rows out as one record batch."""
    per_root: dict = defaultdict(dict)
    for batch in batches:
        cols = batch.to_pydict()
        for src, trg, q, ts, exp in zip(
            cols["src"], cols["trg"], cols["q"], cols["ts"], cols["exp"]
        ):
            rows = per_root[src]
            if trg is not None:
                rows[(trg, q)] = [ts, exp, False]
    out: dict = {name: [] for name in ("src", "trg", "q", "ts", "exp", "changed", "touched")}
    most = 0
    for root, rows in per_root.items():
        most = max(most, close_root(root, rows, edges, new_out, start, start_state))
        for (v, q), (ts, exp, touched) in rows.items():
            out["src"].append(root)
            out["trg"].append(v)
            out["q"].append(q)
            out["ts"].append(ts)
            out["exp"].append(exp)
            out["changed"].append(False)
            out["touched"].append(touched)
    rounds.add(most)
    yield pa.RecordBatch.from_pydict(out, schema=_ARROW)


def close_root(
    root: str, rows: dict, edges: dict, new_out: dict, start: int, start_state: int
) -> int:
    """Run root `root`'s rounds: `rows` maps `(v, q)` to `[ts, exp, touched]` (its stored
    rows with `exp >= start`), and ends holding its closure after the batch; `edges` and
    `new_out` map a product node `(a, qa)` to its live and its new product edges
    `(b, qb, ts, exp)`. Returns the number of rounds."""
    cands: dict = {}
    for b, qb, ts, exp in new_out.get((root, start_state), ()):
        _candidate(cands, (b, qb), ts, exp)
    for (v, q), (r_ts, r_exp, _t) in list(rows.items()):
        if r_exp > start:
            for b, qb, ts, exp in new_out.get((v, q), ()):
                _candidate(cands, (b, qb), max(r_ts, ts), min(r_exp, exp))
    frontier = _merge(rows, cands)
    for key in [k for k, row in rows.items() if row[1] <= start]:
        del rows[key]  # ended at the batch's start, not carried on
    rounds = 1
    while frontier:
        cands = {}
        for v, q in frontier:
            r_ts, r_exp, _t = rows[(v, q)]
            for b, qb, ts, exp in edges.get((v, q), ()):
                _candidate(cands, (b, qb), max(r_ts, ts), min(r_exp, exp))
        frontier = _merge(rows, cands)
        rounds += 1
    return rounds


def _candidate(cands: dict, key: tuple, ts: int, exp: int) -> None:
    got = cands.get(key)
    if got is None:
        cands[key] = [ts, exp]
    else:
        got[0] = min(got[0], ts)
        got[1] = max(got[1], exp)


def _merge(rows: dict, cands: dict) -> list:
    """coverage.merge for one root and round: the keys whose row changed."""
    changed = []
    for key, (c_ts, c_exp) in cands.items():
        row = rows.get(key)
        if row is None:
            rows[key] = [c_ts, c_exp, True]
            changed.append(key)
            continue
        o_ts, o_exp = row[0], row[1]
        goes_on = o_exp >= c_ts
        if not goes_on or c_exp > o_exp or c_ts < o_ts:
            row[0] = min(o_ts, c_ts) if goes_on else c_ts
            row[1] = max(o_exp, c_exp)
            row[2] = True
            changed.append(key)
    return changed
