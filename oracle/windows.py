"""WSCAN in batch: input validity intervals (specs/semantics.md §2) and the input snapshot at every
change point, as one DataFrame `(cid, tau, src, trg, label, props)`.

- A '+' at t is valid on `[t, t - (t mod β) + ω(label))` (`pmod`, so floor division also for
  negative times); per-label windows come from the checked program.
- A tuple is `(src, trg, label, props)`, `props` the sorted array of its properties
  (oracle/properties.py): tuples with other property values are other tuples (§1).
- A '-' at t' cuts every earlier (in input order) interval of the same `(src, trg, label)`
  valid at t' whose properties include every property the '-' gives (all of them when it gives
  none) to end at t': its end is the least such t'. Ties therefore follow input order (§1).
- Change points: every input time and every expiry instant (§4). The snapshot at a change
  point τ holds each key with an interval `ts ≤ τ < end`.
`cid` is the case id and `pid` the program id: many streams of many programs (each with its
own windows and slide) are evaluated together.
"""

from __future__ import annotations

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T
from sgq.datalog.checked import CheckedProgram

from .properties import PROPS_TYPE, encode_props, included

EVENT_SCHEMA = T.StructType(
    [
        T.StructField("pid", T.IntegerType(), False),
        T.StructField("cid", T.IntegerType(), False),
        T.StructField("seq", T.LongType(), False),
        T.StructField("src", T.StringType(), False),
        T.StructField("trg", T.StringType(), False),
        T.StructField("label", T.StringType(), False),
        T.StructField("t", T.LongType(), False),
        T.StructField("op", T.StringType(), False),
        T.StructField("props", PROPS_TYPE, False),
    ]
)


def events_frame(
    spark: SparkSession, streams: dict[int, list], program_of: dict[int, int]
) -> DataFrame:
    """The input events of every case `cid` (of program `program_of[cid]`), with their
    position `seq` in input order; an edge is `(src, trg, label, t, op)` or has a sixth field,
    the dict of its present properties."""
    rows = [
        (
            program_of[cid],
            cid,
            seq,
            str(s),
            str(d),
            str(lbl),
            int(t),
            str(op),
            encode_props(p[0] if p else None),
        )
        for cid, edges in streams.items()
        for seq, (s, d, lbl, t, op, *p) in enumerate(edges)
    ]
    return spark.createDataFrame(rows, EVENT_SCHEMA)


def _per_program(programs: dict[int, CheckedProgram], value) -> F.Column:
    """A column holding `value(checked, label_or_None)` for each row's program and label."""
    expr = None
    for pid, checked in programs.items():
        conds = [
            ((F.col("pid") == pid) & (F.col("label") == F.lit(label)), value(checked, label))
            for label, _size in checked.label_windows
        ]
        conds.append((F.col("pid") == pid, value(checked, None)))
        for cond, v in conds:
            lit = F.lit(v).cast("long")
            expr = F.when(cond, lit) if expr is None else expr.when(cond, lit)
    return expr


def _window(checked: CheckedProgram, label: str | None) -> int:
    return checked.window if label is None else checked.window_of(label)


def _slide(checked: CheckedProgram, label: str | None) -> int:
    return checked.slide


def intervals_frame(programs: dict[int, CheckedProgram], events: DataFrame) -> DataFrame:
    """`(pid, cid, src, trg, label, props, ts, end, exp)`: each insert's validity interval
    after deletions (`exp` before them)."""
    beta = _per_program(programs, _slide)
    plus = events.filter(F.col("op") == "+").select(
        "pid",
        "cid",
        "seq",
        "src",
        "trg",
        "label",
        "props",
        F.col("t").alias("ts"),
        (F.col("t") - F.pmod(F.col("t"), beta) + _per_program(programs, _window)).alias("exp"),
    )
    minus = events.filter(F.col("op") == "-").select(
        F.col("cid").alias("d_cid"),
        F.col("seq").alias("d_seq"),
        F.col("src").alias("d_src"),
        F.col("trg").alias("d_trg"),
        F.col("label").alias("d_label"),
        F.col("t").alias("d_t"),
        F.col("props").alias("d_props"),
    )
    cond = (
        (plus.cid == minus.d_cid)
        & (plus.src == minus.d_src)
        & (plus.trg == minus.d_trg)
        & (plus.label == minus.d_label)
        & (minus.d_seq > plus.seq)
        & (minus.d_t >= plus.ts)
        & (minus.d_t < plus.exp)
        & included(minus.d_props, plus.props)
    )
    cut = (
        plus.join(minus, cond, "left")
        .groupBy("pid", "cid", "seq", "src", "trg", "label", "props", "ts", "exp")
        .agg(F.min("d_t").alias("cut"))
    )
    return cut.select(
        "pid",
        "cid",
        "src",
        "trg",
        "label",
        "props",
        "ts",
        F.least(F.col("exp"), F.coalesce(F.col("cut"), F.col("exp"))).alias("end"),
        "exp",
    )


def change_points_frame(events: DataFrame, intervals: DataFrame) -> DataFrame:
    """`(pid, cid, tau)`: input times and expiry instants, distinct."""
    times = events.select("pid", "cid", F.col("t").alias("tau"))
    expiries = intervals.select("pid", "cid", F.col("exp").alias("tau"))
    return times.unionByName(expiries).distinct()


def snapshot_frame(intervals: DataFrame, points: DataFrame) -> DataFrame:
    """`(pid, cid, tau, src, trg, label, props)`: the input tuples valid at every change point
    (equal tuples coalesce)."""
    live = (
        intervals.filter(F.col("end") > F.col("ts"))
        .withColumnRenamed("cid", "i_cid")
        .withColumnRenamed("pid", "i_pid")
    )
    cond = (live.i_cid == points.cid) & (live.ts <= points.tau) & (points.tau < live.end)
    return (
        live.join(points, cond)
        .select("pid", "cid", "tau", "src", "trg", "label", "props")
        .distinct()
    )
