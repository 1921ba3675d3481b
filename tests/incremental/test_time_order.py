"""The bounds a timing order implies (incremental/operators/time_order.py), against brute
force: over every assignment of small starts, a bound holds whenever the comparisons do, and
it is the tightest such bound."""

from __future__ import annotations

import itertools
import operator

from hypothesis import given, settings
from hypothesis import strategies as st
from sgq.incremental.operators.time_order import difference_bounds

OPS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}
OPS |= {"=": operator.eq, "!=": operator.ne}


def test_a_chain_bounds_its_ends():
    # t0 < t1 < t2, t2 <= t0 + 5
    got = difference_bounds([(0, "<", 1, 0), (1, "<", 2, 0), (2, "<=", 0, 5)])
    assert got[(0, 2)] == -2 and got[(2, 0)] == 5 and got[(1, 0)] == 4 and got[(2, 1)] == 4


def test_an_impossible_order_bounds_a_start_by_itself():
    got = difference_bounds([(0, "<", 1, 0), (1, "<=", 0, 0)])
    assert got[(0, 0)] < 0  # t0 - t0 <= c < 0: no match, and the check says so


conditions = st.lists(
    st.tuples(
        st.integers(0, 2), st.sampled_from(sorted(OPS)), st.integers(0, 2), st.integers(-2, 2)
    ),
    max_size=4,
)


@settings(max_examples=150)
@given(conditions)
def test_the_bounds_are_implied_and_tightest(conds):
    got = difference_bounds(conds)
    allowed = [
        starts
        for starts in itertools.product(range(8), repeat=3)
        if all(OPS[op](starts[l], starts[r] + d) for l, op, r, d in conds)
    ]
    for (a, b), c in got.items():
        assert all(s[a] - s[b] <= c for s in allowed), (a, b, c)
    if allowed and all(op != "!=" for _l, op, _r, _d in conds):
        # tightest (`!=` is no difference bound): some allowed assignment reaches each bound
        # (starts 0..7 leave room for any difference a path of two comparisons can force)
        for (a, b), c in got.items():
            assert max(s[a] - s[b] for s in allowed) == c, (a, b, c)
