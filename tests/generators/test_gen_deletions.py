"""`--deletions`: '-' lines delete present, earlier keys; the ratio holds; the pool is bounded."""

from __future__ import annotations

import random

import pytest
from generators.gen_support import check_deletions
from hypothesis import given
from hypothesis import strategies as st

from sgq.generators import KINDS, generate
from sgq.generators.deletions import DeletionPool


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("ratio", [0.05, 0.2, 0.5])
def test_deletions_delete_present_earlier_keys_at_the_ratio(kind, ratio):
    rows = list(generate(kind, 40000, 9, days=3, deletions=ratio))
    assert len(rows) == 40000
    assert [r[3] for r in rows] == sorted(r[3] for r in rows)
    ins, dels = check_deletions(rows)
    assert abs(dels / len(rows) - ratio) < 0.03, dels / len(rows)


def test_deletions_target_recent_edges():
    # With 100 days and a bounded pool, the deleted edge was inserted recently: the median
    # age is far below the span (it is likely still inside a typical window).
    rows = list(generate("so", 50000, 1, deletions=0.2))
    inserted = {}
    ages = []
    for src, trg, label, ts, op in rows:
        if op == "+":
            inserted[(src, trg, label)] = ts
        else:
            ages.append(ts - inserted[(src, trg, label)])
    ages.sort()
    assert ages[len(ages) // 2] < 20 * 86400


def test_no_deletions_means_the_insert_stream_is_unchanged_by_the_flag_value_zero():
    assert list(generate("snb", 3000, 4)) == list(generate("snb", 3000, 4, deletions=0.0))


def test_check_deletions_helper_catches_a_bad_delete():
    with pytest.raises(AssertionError):
        check_deletions([("a", "b", "l", 1, "+"), ("a", "c", "l", 2, "-")])
    with pytest.raises(AssertionError):
        check_deletions([("a", "b", "l", 1, "+"), ("a", "b", "l", 1, "-")])
    with pytest.raises(AssertionError):
        check_deletions([("a", "b", "l", 1, "+"), ("a", "b", "l", 2, "-"), ("a", "b", "l", 3, "-")])


@given(
    st.lists(
        st.tuples(st.booleans(), st.integers(0, 5), st.integers(0, 2)),
        max_size=300,
    ),
    st.integers(1, 8),
)
def test_pool_model(actions, capacity):
    """Random adds and takes against a naive model of 'present and inserted before t'."""
    pool = DeletionPool(random.Random(0).random, capacity=capacity)
    present: dict[tuple, int] = {}
    t = 0
    for is_take, key_no, dt in actions:
        t += dt
        if is_take:
            key = pool.take(t)
            if key is not None:
                assert key in present and present[key] < t
                del present[key]
        else:
            key = (f"v{key_no}", "w", "l")
            pool.add(key, t)
            present[key] = t
        pool._check()
