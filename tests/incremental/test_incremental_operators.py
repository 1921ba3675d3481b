"""Interval edge cases of each physical operator, on hand-built plans (sga/algebra.py nodes)."""

from __future__ import annotations

from incremental_support import OperatorContext
from sgq.incremental.engine import Engine
from sgq.incremental.operators.path import PathOp
from sgq.sga.algebra import (
    EdgeCondition,
    Filter,
    Path,
    Pattern,
    Plan,
    Rename,
    Union,
    VarCondition,
    Vertices,
    WScan,
)


def run(plan, edges, paths=False):
    eng = Engine(plan, paths=paths)
    for e in edges:
        eng.push(*e)
    eng.close()
    eng.dataflow._check()
    return eng, [(r.src, r.trg, r.label, r.ts, r.exp) for r in eng.drain()]


A = WScan("a", 10, 5)
B = WScan("b", 10, 1)


def test_wscan_exact_expiry_instant_and_slide_bucket():
    eng, out = run(Plan((A,)), [(1, 2, "a", 7)])
    assert out == [("1", "2", "a", 7, 15)]  # ⌊7/5⌋·5 + 10
    assert eng.snapshot(14) == {("1", "2", "a")}
    assert eng.snapshot(15) == set()
    assert eng.snapshot(6) == set()


def test_wscan_coalesces_same_bucket_and_ties_and_widens_later_bucket():
    _, out = run(Plan((A,)), [(1, 2, "a", 5), (1, 2, "a", 5), (1, 2, "a", 9), (1, 2, "a", 10)])
    assert out == [("1", "2", "a", 5, 15), ("1", "2", "a", 5, 20)]


def test_wscan_after_expiry_starts_a_new_interval():
    eng, out = run(Plan((A,)), [(1, 2, "a", 0), (1, 2, "a", 12)])
    assert out == [("1", "2", "a", 0, 10), ("1", "2", "a", 12, 20)]
    assert eng.snapshot(10) == set() and eng.snapshot(11) == set()


def test_wscan_deletion_cuts_and_counts_unmatched():
    eng, out = run(
        Plan((A,)), [(1, 2, "a", 0), (1, 2, "a", 3, "-"), (1, 2, "a", 4, "-"), (5, 6, "a", 4, "-")]
    )
    assert out == [("1", "2", "a", 0, 10), ("1", "2", "a", 0, 3)]  # the end record at 3
    assert eng.snapshot(2) == {("1", "2", "a")} and eng.snapshot(3) == set()
    assert eng.stats()["deletions"] == 1 and eng.stats()["unmatched_deletions"] == 2


def test_wscan_ties_apply_in_input_order():
    # + then - at one instant: never visible; - then + : present without a break
    eng, out = run(
        Plan((A,)),
        [(1, 2, "a", 0), (3, 4, "a", 1), (3, 4, "a", 1, "-"), (1, 2, "a", 2, "-"), (1, 2, "a", 2)],
    )
    assert out == [("1", "2", "a", 0, 10)]
    assert eng.snapshot(1) == {("1", "2", "a")} and eng.snapshot(9) == {("1", "2", "a")}
    assert eng.stats()["deletions"] == 2 and eng.stats()["unmatched_deletions"] == 0


def test_filter_and_rename():
    f = Filter(A, (EdgeCondition("trg", "=", "3", right_const=True),))
    loop = Filter(A, (EdgeCondition("src", "=", "trg"),))
    _, out = run(
        Plan((Rename(f, "R", reverse=True), Rename(loop, "L"))),
        [(1, 3, "a", 0), (1, 2, "a", 0), (4, 4, "a", 1), (3, 3, "a", 2)],
    )
    assert sorted(out) == [
        ("3", "1", "R", 0, 10),
        ("3", "3", "L", 2, 10),
        ("3", "3", "R", 2, 10),
        ("4", "4", "L", 1, 10),
    ]


def test_union_coalesces_across_inputs():
    u = Union((A, Rename(B, "b2", reverse=True)), "U")
    _, out = run(Plan((u,)), [(1, 2, "a", 0), (2, 1, "b", 3), (2, 1, "b", 12)])
    # a gives [0, 10); b reversed gives [3, 13) -> widened to [0, 13); at 12 [12, 22)
    assert out == [("1", "2", "U", 0, 10), ("1", "2", "U", 0, 13), ("1", "2", "U", 0, 22)]


def test_pattern_intersection_and_empty_intersection():
    p = Pattern((A, B), (("x", "y"), ("y", "z")), ("x", "z"), "P")
    _, out = run(Plan((p,)), [(1, 2, "a", 0), (2, 3, "b", 4)])
    assert out == [("1", "3", "P", 4, 10)]  # [0,10) ∩ [4,14)
    _, out = run(Plan((p,)), [(1, 2, "a", 0), (2, 3, "b", 10)])
    assert out == []  # a expired at 10, exactly


def test_pattern_coalesces_bindings_and_reemits_when_exp_grows():
    p = Pattern((B, B), (("x", "y"), ("y", "z")), ("x", "z"), "P")
    _, out = run(
        Plan((p,)),
        [
            (1, 2, "b", 0),
            (2, 3, "b", 0),
            (1, 4, "b", 1),
            (4, 3, "b", 1),
            (1, 5, "b", 2),
            (5, 3, "b", 2),
        ],
    )
    assert out == [("1", "3", "P", 0, 10), ("1", "3", "P", 0, 11), ("1", "3", "P", 0, 12)]


def test_pattern_conditions():
    p = Pattern(
        (B, B),
        (("x", "y"), ("y", "z")),
        ("x", "z"),
        "P",
        (VarCondition("x", "!=", "z"), VarCondition("y", "=", "2", right_const=True)),
    )
    _, out = run(
        Plan((p,)), [(1, 2, "b", 0), (2, 1, "b", 0), (2, 3, "b", 0), (1, 4, "b", 0), (4, 3, "b", 0)]
    )
    assert out == [("1", "3", "P", 0, 10)]


def test_vertices():
    v = Vertices((A, B))
    _, out = run(Plan((v,)), [(1, 2, "a", 0), (2, 2, "b", 1), (2, 3, "b", 11)])
    assert out == [
        ("1", "1", "V", 0, 10),
        ("2", "2", "V", 0, 10),
        ("2", "2", "V", 0, 11),
        ("2", "2", "V", 11, 21),
        ("3", "3", "V", 11, 21),
    ]


def test_path_cycle_plus():
    path = Path((B,), ("plus", ("label", "b")), "P")
    eng, out = run(Plan((path,)), [(1, 2, "b", 0), (2, 3, "b", 1), (3, 1, "b", 2)])
    got = {(s, t): (ts, exp) for s, t, _l, ts, exp in out}
    assert got == {
        ("1", "2"): (0, 10),
        ("2", "3"): (1, 11),
        ("1", "3"): (1, 10),
        ("3", "1"): (2, 12),
        ("3", "2"): (2, 10),
        ("3", "3"): (2, 10),
        ("2", "1"): (2, 11),
        ("2", "2"): (2, 10),
        ("1", "1"): (2, 10),
    }
    assert len(out) == len(got)


def test_path_reemits_when_a_later_path_outlives():
    path = Path((B,), ("plus", ("label", "b")), "P")
    _, out = run(Plan((path,)), [(1, 2, "b", 0), (2, 3, "b", 1), (1, 2, "b", 5)])
    # rows in emission order per key (specs/semantics.md §5; keys of one round in any order)
    per_key: dict = {}
    for s, t, _label, ts, exp in out:
        per_key.setdefault((s, t), []).append((ts, exp))
    assert per_key == {
        ("1", "2"): [(0, 10), (0, 15)],
        ("2", "3"): [(1, 11)],
        ("1", "3"): [(1, 10), (1, 11)],
    }


def test_path_node_expires_then_is_rederived_fresh():
    path = Path((B,), ("plus", ("label", "b")), "P")
    eng, out = run(Plan((path,)), [(1, 2, "b", 0), (2, 3, "b", 0), (1, 2, "b", 12)])
    assert ("1", "3", "P", 0, 10) in out
    assert ("1", "2", "P", 12, 22) in out
    assert not [r for r in out if r[:2] == ("1", "3") and r[3] >= 10]  # 2->3 expired at 10
    assert eng.snapshot(12) == {("1", "2", "P")}


def test_path_nullable_uses_domain():
    dom = Vertices((B,))
    path = Path((B,), ("star", ("label", "b")), "P", dom)
    eng, out = run(Plan((path,)), [(1, 2, "b", 0)])
    assert sorted(out) == [("1", "1", "P", 0, 10), ("1", "2", "P", 0, 10), ("2", "2", "P", 0, 10)]


def test_path_on_derived_input_with_arbitrary_intervals():
    """PATH over a derived stream: intervals that started in the past and end anywhere."""
    d = WScan("d", 100, 1)  # stands for a derived stream; only its index is used
    node = Path((d,), ("plus", ("label", "d")), "P")
    ctx = OperatorContext()
    op = PathOp(node, ctx)
    index = ctx.index_of(d)
    batch = [("x", "y", 2, 9, None), ("y", "z", 5, 7, None), ("z", "w", 3, 30, None)]
    for s, t, ts, exp, wit in batch:
        index.insert(s, t, ts, exp, wit, 6)
    out = {(s, t): (ts, exp) for s, t, ts, exp, _w in op.process([batch], 6)}
    assert out == {
        ("x", "y"): (2, 9),
        ("y", "z"): (5, 7),
        ("x", "z"): (5, 7),
        ("z", "w"): (3, 30),
        ("y", "w"): (5, 7),
        ("x", "w"): (5, 7),
    }
    op._check()
    # at 8, y->z is gone; a new y->z valid [8, 20) revives x->z etc. on fresh intervals
    more = [("y", "z", 8, 20, None)]
    index.insert("y", "z", 8, 20, None, 8)
    out = {(s, t): (ts, exp) for s, t, ts, exp, _w in op.process([more], 8)}
    assert out == {("y", "z"): (8, 20), ("x", "z"): (8, 9), ("y", "w"): (8, 20), ("x", "w"): (8, 9)}
    op.purge(9)
    op._check()
    assert (
        "x" not in op.delta_path.trees and "y" in op.delta_path.trees and "z" in op.delta_path.trees
    )


def test_shared_node_feeds_every_consumer_once():
    p1 = Rename(B, "R1")
    p2 = Pattern((B, B), (("x", "y"), ("y", "z")), ("x", "z"), "R2")
    eng, out = run(Plan((p1, p2)), [(1, 2, "b", 0), (2, 3, "b", 0)])
    kinds = [type(n).__name__ for n in eng.dataflow.nodes]
    assert kinds.count("WScan") == 1
    assert sorted(out) == [
        ("1", "2", "R1", 0, 10),
        ("1", "3", "R2", 0, 10),
        ("2", "3", "R1", 0, 10),
    ]


def test_pattern_shows_one_row_per_key_and_round_where_two_inputs_widen_it():
    """`Answer(x, z) :- P(x, y), c(y, z)` with P `[a*/b*]`: at 1, P's batch and c's batch
    each derive (0, 1), through (0, 1)/(1, 1) until 6 and through the ε-pair (0, 0)/(0, 1)
    until 7; the round shows one row, its last (the coverage's interval then), not both."""
    from incremental_support import compile_text, norm

    query = compile_text(
        "P(x, y) :- [a*/b*](x, y).\nAnswer(x, z) :- P(x, y), c(y, z).", window=6, slide=1
    )
    edges = norm([("0", "0", "a", 0), ("1", "1", "c", 0), ("0", "1", "a", 1), ("0", "1", "c", 1)])
    eng = query.engine()
    eng.push_batch(edges[:2])
    eng.advance(1)
    eng.drain()
    eng.push_batch(edges[2:])
    eng.advance(2)
    got = [(r.src, r.trg, r.ts, r.exp) for r in eng.drain() if (r.src, r.trg) == ("0", "1")]
    assert got == [("0", "1", 1, 7)]
