"""PATTERN's join order from index statistics (`_replan`, once per slide): the plan follows
the fan-out of the indexes, and any plan, under any statistics, changing from slide to slide,
gives the reference's snapshots."""

from __future__ import annotations

import random
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from incremental_support import assert_matches_reference, compile_text, norm
from sgq.incremental.operators.join_plan import fuse_meets
from sgq.incremental.operators.join_plan import join_plan as _join_plan
from sgq.incremental.operators.pattern import PatternOp

PROGRAMS = [
    "Answer(m1, m2) :- k(x, y), h(m1, x), h(m2, y), r(m2, m1).",
    "Answer(x, y) :- a(x, m), b(m, n), c(n, y).",
    "Answer(x, y) :- a(x, m), a(m, y), b(y, x).",
    "Answer(x, w) :- b(y, z), b(_, y), a(w, x), z = y.",
    "Answer(x, y) :- a(x, m), b(m, y), c(x, y), x != y.",
    # m meets three ways: from a(x, y), b(x, m) binds m and c(y, m), r(m, x) fold into it
    "Answer(x, y) :- a(x, y), b(x, m), c(y, m), r(m, x), m != y.",
]

# SGA Q5's pattern with slots x=0 y=1 m1=2 m2=3: knows(x, y), hasCreator(m1, x),
# hasCreator(m2, y), replyOf(m2, m1)
Q5 = [(0, 1), (2, 0), (3, 1), (3, 2)]


def _order(fanout):
    _conds, steps = _join_plan(Q5, [], {0, 1}, [1, 2, 3], fanout)
    return [j for j, *_rest in steps]


def test_without_statistics_the_most_bound_variables_decide():
    assert _order(None) == [1, 2, 3]  # then both hasCreator, then replyOf with both bound


def test_a_small_fan_out_goes_first():
    # many messages per person (by trg of hasCreator), few replies per message
    fanout = [(1, 1), (0, 8), (0, 8), (0, 1)]
    assert _order(fanout) == [1, 3, 2]  # hasCreator, replyOf by m1, hasCreator with both bound


def test_a_cycle_closes_by_a_meet_from_every_start():
    """SGA Q5 is a 4-cycle: whichever input changed, the last atom constrains the variable the
    step before it binds from an endpoint bound earlier, so the two become one meet step."""
    for start in range(4):
        _conds, steps = _join_plan(Q5, [], set(Q5[start]), [j for j in range(4) if j != start])
        fused = fuse_meets(steps, set(Q5[start]))
        assert len(fused) == 2 and not fused[0][5], fused
        ((j2, _v_is_src, _w),) = fused[1][5]
        assert j2 == steps[2][0]


def test_a_chain_has_no_meet():
    chain = [(0, 1), (1, 2), (2, 3)]
    _conds, steps = _join_plan(chain, [], {0, 1}, [1, 2])
    assert all(not also for *_rest, also in fuse_meets(steps, {0, 1}))


def test_two_atoms_fold_into_one_meet():
    # a(x, y), b(x, m), c(y, m), r(m, x) with x=0 y=1 m=2
    star = [(0, 1), (0, 2), (1, 2), (2, 0)]
    _conds, steps = _join_plan(star, [], {0, 1}, [1, 2, 3])
    (step,) = fuse_meets(steps, {0, 1})
    assert step[0] == 1 and sorted(j for j, _s, _w in step[5]) == [2, 3]


def test_replan_reads_the_indexes_and_changes_the_plan_of_sga_q5():
    q = compile_text(
        ".window 100\n.slide 10\nAnswer(m1, m2) :- k(x, y), h(m1, x), h(m2, y), r(m2, m1)."
    )
    eng = q.engine()
    op = next(op for op in eng.dataflow.ops if isinstance(op, PatternOp))
    assert op.bindings == Q5  # the atoms' order, slots numbered as they appear
    assert [j for j, *_ in op.plans[0][1]] == [1, 2, 3]
    edges = [("p0", "p1", "k", 1)]
    edges += [(f"m{i}", f"p{i % 2}", "h", 1) for i in range(64)]  # 32 per person
    edges += [(f"m{i + 1}", f"m{i}", "r", 1) for i in range(0, 64, 2)]  # 1 per message
    eng.push_batch(norm(edges))
    eng.push_batch(norm([("p1", "p0", "k", 15)]))  # the next slide's first batch: purge, re-plan
    assert [j for j, *_ in op.plans[0][1]] == [1, 3, 2]
    eng.close()


@pytest.mark.parametrize("text", PROGRAMS)
@settings(max_examples=40, deadline=None)
@given(
    raw=st.lists(
        st.tuples(
            st.integers(0, 3),
            st.integers(0, 3),
            st.sampled_from("abckhr"),
            st.integers(0, 2),
            st.sampled_from("+++-"),
        ),
        min_size=1,
        max_size=30,
    ),
    window=st.integers(1, 6),
    seed=st.integers(0, 2**32),
)
def test_any_plan_under_any_statistics_gives_the_reference(text, raw, window, seed):
    """Each purge draws random statistics: the plans change from slide to slide."""
    rng = random.Random(seed)

    def random_replan(op):
        op.fanout = [(rng.randrange(4), rng.randrange(4)) for _ in op.bindings]
        op._plan(op.fanout)

    t, edges = 0, []
    for s, d, label, dt, sign in raw:
        t += dt
        edges.append((s, d, label, t, sign))
    query = compile_text(".window 1\n" + text, window=window, slide=1)
    with mock.patch.object(PatternOp, "_replan", random_replan):
        assert_matches_reference(query, norm(edges), check_state=True)
