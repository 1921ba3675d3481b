"""Meet steps of PATTERN's frontier joins (incremental/operators/join_plan.py): cyclic patterns,
whose closing atoms are folded into the step that binds their variable, give the reference's
snapshots at every change point, with expiry (windows of a few slides) and deletions. Dense
small graphs, so that the intersected adjacency sets differ and their entries' intervals do."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from incremental_support import assert_matches_reference, compile_text, edge_streams

CYCLES = [
    # SGA Q5: a 4-cycle; every start closes by a meet
    "Answer(m1, m2) :- a(x, y), b(m1, x), b(m2, y), c(m2, m1).",
    # a triangle over one label, and one with a condition on the met variable
    "Answer(x, y) :- a(x, m), a(m, y), b(y, x).",
    "Answer(x, y) :- a(x, m), b(m, y), c(x, y), m != x.",
    # m met three ways at once
    "Answer(x, y) :- a(x, y), b(x, m), c(y, m), a(m, x).",
]


@pytest.mark.parametrize("text", CYCLES)
@settings(max_examples=60, deadline=None)
@given(
    edges=edge_streams(("a", "b", "c"), max_size=40, vertices=3, gaps=(0, 1, 1, 2)),
    window=st.integers(2, 5),
)
def test_cyclic_patterns_meet_to_the_reference(text, edges, window):
    query = compile_text(".window 1\n" + text, window=window, slide=1)
    assert_matches_reference(query, edges, check_state=True)


def test_a_met_atom_that_expires_first_bounds_the_result():
    """The closing c(m2, m1) arrives a slide before the rest: the result found through the
    meet ends when c does, not when the newer atoms do."""
    query = compile_text(".window 1\n" + CYCLES[0], window=3, slide=1)
    edges = [
        ("2", "1", "c", 0, "+"),
        ("1", "x", "b", 2, "+"),
        ("2", "y", "b", 2, "+"),
        ("x", "y", "a", 2, "+"),
    ]
    _eng, results = assert_matches_reference(query, edges)
    assert [(r.src, r.trg, r.ts, r.exp) for r in results] == [("1", "2", 2, 3)]
