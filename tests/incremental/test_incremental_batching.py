"""Batch pushing and one-at-a-time pushing give identical output (the runtime's batching)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from incremental_support import compile_text, norm, timed
from sgq.incremental.deltas import delta_rows

PROGRAMS = [
    "Answer(x, y) :- [a/b*](x, y).",
    "RL(x, y) :- a+(x, y), b(x, m), c(m, y).\nAnswer(x, m) :- RL+(x, y), c(m, y).",
    "Answer(x, z) :- a(x, y), b(y, z), x != z.\nAnswer(x, y) :- c*(x, y).",
]

edge_lists = st.lists(
    st.tuples(st.integers(0, 3), st.integers(0, 3), st.sampled_from("abc"), st.integers(0, 2)),
    min_size=1,
    max_size=25,
).map(timed)


def _final_intervals(eng):
    return {k: list(v) for k, v in eng.history.items()}


@pytest.mark.parametrize("text", PROGRAMS)
@settings(max_examples=40)
@given(edges=edge_lists, window=st.integers(2, 6), slide=st.integers(1, 2))
def test_batch_equals_one_by_one(text, edges, window, slide):
    q = compile_text(".window 1\n" + text, window=window, slide=slide)
    # one tuple at a time, each its own round
    single = q.engine()
    for e in edges:
        single.push(*e)
        single.flush()
    single.close()
    # one push_batch call
    batch = q.engine()
    batch.push_batch(edges)
    batch.close()
    # pushes buffered per timestamp vs push_batch per timestamp: identical raw results
    buffered = q.engine()
    for e in edges:
        buffered.push(*e)
    buffered.close()
    grouped = q.engine()
    times = sorted({e[3] for e in edges})
    for t in times:
        grouped.push_batch([e for e in edges if e[3] == t])
    grouped.close()
    a, b, c, d = single.drain(), batch.drain(), buffered.drain(), grouped.drain()
    assert _final_intervals(single) == _final_intervals(batch) == _final_intervals(buffered)
    assert delta_rows(a) == delta_rows(b) == delta_rows(c)
    assert c == d


def test_push_batch_accepts_ops_and_four_tuples():
    q = compile_text(".window 5\nAnswer(x, y) :- a(x, y).")
    eng = q.engine()
    eng.push_batch(norm([(1, 2, "a", 0)]) + [(2, 3, "a", 1)])
    assert len(eng.drain()) == 2
