"""PATTERN's breadth-first batch join (`_frontier`: project and merge by largest exp after each
step) against its tuple-by-tuple join and the brute-force reference, with and without explicit
deletions, on joins of every shape: chains, stars, self-joins, loops, constants, conditions and
disconnected parts (a step after which no bound variable is needed any more)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from incremental_support import assert_matches_reference, compile_text, norm, timed
from sgq.incremental.deltas import delta_rows
from sgq.incremental.engine import Engine

from sgq import PlanOptions, Tuning

PROGRAMS = [
    "Answer(x, y) :- a(x, m), b(m, n), c(n, y).",
    "Answer(x, y) :- a(x, m), a(m, y), b(y, x).",
    "Answer(x, x) :- a(x, y), b(y, x), c(x, x).",
    "Answer(x, w) :- b(y, z), b(_, y), a(w, x), z = y.",  # disconnected
    "Answer(x, y) :- a(x, m), b(m, y), c(x, y), x != y.",
    'Answer(y, x) :- a("0", x), b(y, x), c(y, _).',
    "D(x, y) :- a(x, m), b(m, y).\nAnswer(x, y) :- D(x, m), D(m, y), c(y, _).",
]

streams = st.lists(
    st.tuples(
        st.integers(0, 3),
        st.integers(0, 3),
        st.sampled_from("abc"),
        st.integers(0, 2),
        st.sampled_from("+++-"),
    ),
    min_size=1,
    max_size=30,
)


def _run(query, edges, frontier: bool):
    # batched_joins=False: back to the tuple-by-tuple join
    options = PlanOptions(tuning=Tuning(batched_joins=frontier))
    eng = Engine(query.plan, options=options)
    eng.push_batch(edges)
    eng.close()
    return eng


@pytest.mark.parametrize("text", PROGRAMS)
@settings(max_examples=40, deadline=None)
@given(raw=streams, window=st.integers(1, 6), slide=st.integers(1, 2))
def test_frontier_join_equals_tuple_by_tuple_and_reference(text, raw, window, slide):
    edges = norm(timed(raw))
    query = compile_text(".window 1\n" + text, window=window, slide=min(slide, window))
    batch, single = _run(query, edges, True), _run(query, edges, False)
    assert batch.history == single.history
    assert delta_rows(batch.drain()) == delta_rows(single.drain())
    assert_matches_reference(query, edges, check_state=True)


def test_regression_disconnected_pattern_has_an_empty_projection():
    # found by the Spark harness: after b(y, z), b(_, y) nothing bound is needed any more
    query = compile_text(".window 10\nAnswer(x, w) :- b(y, z), b(_, y), b*(w, x), z = y.")
    eng = _run(query, norm([(1, 1, "b", 2), (1, 1, "b", 9), (2, 1, "b", 10)]), True)
    assert eng.history == {
        ("1", "1", "Answer"): [(2, 19)],
        ("1", "2", "Answer"): [(10, 19)],
        ("2", "2", "Answer"): [(10, 19)],
    }
