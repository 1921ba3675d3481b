"""WSCAN over several labels (thesis rule 13, incremental/operators/union_wscan.py): each
label's coverage kept apart, so that `-` edges and expiry give what the UNION of one WSCAN per
label gives, rows, deltas, end records and state alike; its checkpoint state round-trips."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from incremental_support import timed
from sgq.incremental.engine import Engine
from sgq.incremental.operators.union_wscan import UnionWScanOp
from sgq.sga.algebra import Pattern, Plan, Rename, Union, WScan

MERGED = WScan("d", 10, 5, (), ("a", "b"))
C = WScan("c", 10, 5)
UNION = Union((Rename(WScan("a", 10, 5), "d"), WScan("b", 10, 5)), "d")


def run(plan, edges, emit="rows"):
    """The engine after `edges`, and its interval rows (end records included) or, with
    `emit="deltas"`, the delta events of an engine in delta mode (native producers on)."""
    eng = Engine(plan, deltas=emit == "deltas", history=emit == "rows")
    view = eng.delta_view()
    events: list = []
    for e in edges:
        eng.push(*e)
        if emit == "deltas":
            eng.flush()
            events += view.feed(eng.drain(), eng.time)
    eng.close()
    eng.dataflow._check()
    if emit == "deltas":
        return eng, events + view.feed(eng.drain(), eng.time) + view.close()
    return eng, [(r.src, r.trg, r.label, r.ts, r.exp) for r in eng.drain()]


def test_a_deletion_of_one_label_keeps_the_key_another_label_covers():
    edges = [(1, 2, "a", 0), (1, 2, "b", 6), (1, 2, "a", 7, "-"), (1, 2, "b", 12, "-")]
    eng, out = run(Plan((MERGED,)), edges)
    # b's edge at 6 widens the key to 15; a's '-' at 7 leaves b's coverage; b's '-' ends it
    assert out == [("1", "2", "d", 0, 10), ("1", "2", "d", 0, 15), ("1", "2", "d", 0, 12)]
    assert eng.snapshot(11) == {("1", "2", "d")} and eng.snapshot(12) == set()
    assert eng.stats()["deletions"] == 2 and eng.stats()["unmatched_deletions"] == 0


def test_a_deletion_cuts_the_key_back_to_what_another_label_still_gives():
    # a at 5 (to 15) outlives b at 0 (to 10): deleting a cuts the key back to 10
    eng, out = run(Plan((MERGED,)), [(1, 2, "b", 0), (1, 2, "a", 5), (1, 2, "a", 6, "-")])
    assert out == [("1", "2", "d", 0, 10), ("1", "2", "d", 0, 15), ("1", "2", "d", 0, 10)]
    assert eng.snapshot(9) == {("1", "2", "d")} and eng.snapshot(10) == set()


def test_a_deletion_of_a_label_that_never_covered_the_key_is_unmatched():
    eng, out = run(Plan((MERGED,)), [(1, 2, "b", 0), (1, 2, "a", 3, "-"), (3, 4, "a", 3, "-")])
    assert out == [("1", "2", "d", 0, 10)]
    assert eng.stats()["deletions"] == 0 and eng.stats()["unmatched_deletions"] == 2


EDGES = st.lists(
    st.tuples(
        st.sampled_from("12"),
        st.sampled_from("12"),
        st.sampled_from(("a", "b", "c")),
        st.integers(0, 3),
        st.sampled_from("++-"),
    ),
    max_size=16,
)


@settings(max_examples=60, deadline=None)
@given(EDGES, st.booleans())
def test_merged_scan_gives_what_the_union_of_scans_gives(edges, read_by_a_pattern):
    """Rows (with end records) and native deltas equal; in a PATTERN's input too."""
    edges = timed(edges)
    plans = [Plan((MERGED,)), Plan((UNION,))]
    if read_by_a_pattern:
        plans = [
            Plan((Pattern((p.outputs[0], C), (("x", "y"), ("y", "z")), ("x", "z"), "P"),))
            for p in plans
        ]
    merged, union = plans
    for emit in ("rows", "deltas"):
        assert run(merged, edges, emit)[1] == run(union, edges, emit)[1]


def test_checkpoint_state_round_trips():
    edges = [(1, 2, "a", 0), (1, 2, "b", 1), (2, 1, "b", 2), (1, 2, "a", 3, "-")]
    eng, _ = run(Plan((MERGED,)), edges)
    (op,) = [o for o in eng.dataflow.ops if isinstance(o, UnionWScanOp)]
    fresh = Engine(Plan((MERGED,)))
    fresh.dataflow.restore(eng.dataflow.state())
    (again,) = [o for o in fresh.dataflow.ops if isinstance(o, UnionWScanOp)]
    assert again.state() == op.state()
    assert again.deletion_counts("a") == (1, 0) and again.deletion_counts("b") == (0, 0)


@pytest.mark.parametrize("emit", ["rows", "deltas"])
def test_expiry_of_one_label_leaves_the_other(emit):
    edges = [(1, 2, "a", 0), (1, 2, "b", 7), (1, 2, "a", 12), (1, 2, "b", 12, "-")]
    assert run(Plan((MERGED,)), edges, emit)[1] == run(Plan((UNION,)), edges, emit)[1]
