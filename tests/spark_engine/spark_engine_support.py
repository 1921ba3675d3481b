"""Run one program over one stream with both engines and compare what they give: the
interval coverage per key at every batch boundary, and the delta view of the whole run
(specs/semantics.md §5, §7: the split into rows is free, the snapshots are not)."""

from __future__ import annotations

from collections import defaultdict
from itertools import groupby

from sgq.incremental.deltas import DeltaView, rows_of
from sgq.spark_engine.engine import SparkEngine

from sgq.evaluation import Evaluation
from sgq.spark_source import driver_batches


def coverage(rows) -> dict:
    """Per key `(src, trg, label)`, its coalesced intervals (touching ones merge) from
    insert-only interval rows `(src, trg, label, ts, exp, ...)`."""
    spans = defaultdict(list)
    for r in rows:
        if r[4] > r[3]:
            spans[(r[0], r[1], r[2])].append((r[3], r[4]))
    out = {}
    for key, ivs in spans.items():
        ivs.sort()
        merged = [list(ivs[0])]
        for ts, exp in ivs[1:]:
            if ts <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], exp)
            else:
                merged.append([ts, exp])
        out[key] = [tuple(m) for m in merged]
    return out


def interval_rows(path) -> list[tuple]:
    """The interval rows `(src, trg, label, ts, exp)` of an output file (CSV, a header)."""
    return [(*f[:3], int(f[3]), int(f[4])) for f in _fields(path)]


def delta_rows(path) -> list[tuple]:
    """The delta rows `(time, op, src, trg, label)` of an output file (CSV, a header)."""
    return [(int(f[0]), *f[1:]) for f in _fields(path)]


def _fields(path) -> list[list[str]]:
    with open(path, encoding="utf-8") as handle:
        return [line.rstrip("\n").split(",") for line in handle][1:]


def flat(groups) -> list:
    """Delta groups `(τ, op, keys)` as rows `(τ, op, src, trg, label)`."""
    return rows_of(groups)


def compare(query, spark, edges, partitions: int = 1, broadcast: bool = True) -> dict:
    """Both engines over `edges` (time-ordered, insert-only); asserts that their coverages
    agree at every batch boundary and their delta views over the whole run; returns counts
    (`batches`, `rows`, `deltas`, `rounds`) so that a test can check it tested something.
    `broadcast=False`: Spark broadcasts nothing (autoBroadcastJoinThreshold -1), so a PATH
    runs its closure round by round over hash-partitioned edges (spark_engine/closure.py),
    not root by root in one job (spark_engine/local_closure.py)."""
    spark.conf.set("spark.sql.shuffle.partitions", str(partitions))
    threshold = spark.conf.get("spark.sql.autoBroadcastJoinThreshold")
    if not broadcast:
        spark.conf.set("spark.sql.autoBroadcastJoinThreshold", "-1")
    try:
        return _compare(query, spark, edges)
    finally:
        spark.conf.set("spark.sql.autoBroadcastJoinThreshold", threshold)


def _compare(query, spark, edges) -> dict:
    engine = SparkEngine(query.plan, spark)
    reference = query.engine(history=False)
    by_batch = {
        k: list(g) for k, g in groupby(edges, key=lambda e: engine.grid.batch_of(int(e[3])))
    }
    view = DeltaView()
    got_deltas, got_rows, ref_rows = [], [], []
    rounds = 0
    for got in driver_batches(spark, edges, engine.grid, engine.labels, "test", keys=engine.keys):
        rows, report = engine.step(got.batch, got.edges, got.labels)
        rounds += report.rounds
        got_rows += rows
        got_deltas += flat(view.feed_grouped(rows, got.batch.end))
        reference.push_batch(by_batch[got.batch.index])
        reference.advance(got.batch.end)
        ref_rows += reference.drain_rows()
        assert coverage(got_rows) == coverage(ref_rows), f"coverage after batch {got.batch}"
    got_deltas += flat(view.close_grouped())
    evaluation = Evaluation(query, "deltas", properties=_property_names(query, edges))
    want_deltas = flat(evaluation.push(edges) + evaluation.close())
    assert got_deltas == want_deltas
    return {
        "batches": len(by_batch),
        "rows": len(got_rows),
        "deltas": len(want_deltas),
        "rounds": rounds,
    }


def _property_names(query, edges) -> tuple[str, ...] | None:
    """The names a header would give the hand-made stream: every property its edges carry
    and every one the plan reads (specs/semantics.md §1); None for a stream without any."""
    from sgq.sga.algebra import properties_read

    names = [k for e in edges if len(e) > 5 for k in e[5]]
    names += [k for keys in properties_read(query.plan).values() for k in keys]
    return tuple(dict.fromkeys(names)) or None
