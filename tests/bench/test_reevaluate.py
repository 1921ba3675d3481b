"""The re-evaluation baseline (benchmarks/reevaluate.py) computes the one-time meaning: on
random snapshots it agrees with the brute-force reference, whatever join order it picks."""

from __future__ import annotations

import pytest
import snapshot_reference as ref
from hypothesis import given, settings
from hypothesis import strategies as st
from sgq.benchmarks.reevaluate import evaluate

import sgq

PROGRAMS = [
    "A(m1, m2) :- a(x, y), b(m1, x), b(m2, y), c(m2, m1).",  # SGA Q5's cycle
    "A(x, y) :- a(x, m), b(m, n), c(n, y).",
    "A(x, y) :- a(x, m), b(m, y), c(x, y), x != y.",
    'A(y, x) :- a("0", x), b(y, x), c(y, _).',
    "A(x, w) :- b(y, z), b(_, y), a(w, x), z = y.",  # disconnected
    "A(x, x) :- a(x, y), b(y, x), c(x, x).",
    "R(x, y) :- a+(x, y), b(x, m), c(m, y).\nA(x, m) :- R+(x, y), c(m, y).",
    "A(x, y) :- [(a/b)*/c?](x, y), b(y, _).",
]

snapshots = st.sets(
    st.tuples(st.integers(0, 3).map(str), st.integers(0, 3).map(str), st.sampled_from("abc")),
    max_size=16,
)


@pytest.mark.parametrize("text", PROGRAMS)
@settings(max_examples=60, deadline=None)
@given(snapshot=snapshots)
def test_the_baseline_agrees_with_the_reference(text, snapshot):
    checked = sgq.compile(".window 1\n.output A\n" + text).checked
    relations = {}
    for s, t, label in snapshot:
        relations.setdefault(label, set()).add((s, t))
    got = evaluate(checked, relations)
    want = ref.evaluate(checked, snapshot)
    for pred in checked.idb:
        assert got[pred] == want[pred], pred
