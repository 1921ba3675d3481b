"""Times at either end of int64 mean what they mean near 0 (specs/semantics.md §1, §7): a
stream shifted by K (a multiple of the slide) gives the same results shifted by K, up to the
last expiry at the int64 maximum and from a first time at the int64 minimum, with every PATH
operator: the engine's "never" and "forever" (incremental/sgt.py) lie outside int64, so no
time read reaches them and every result ends."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sgq.base.options import PlanOptions

import sgq
from sgq.stream_io import INT64_MAX, INT64_MIN

PROGRAMS = [
    "Answer(x, y) :- knows+(x, y).",
    "Answer(x, y) :- knows*(x, y).",
    "Answer(x, y) :- knows(x, z), likes(z, y).",
    "Answer(x, y) :- [knows/likes*](x, y).",
    "Answer(x, y) :- simple [knows/likes+](x, y).",
]


@st.composite
def _streams(draw):
    n = draw(st.integers(1, 12))
    edges, t = [], 0
    for _ in range(n):
        t += draw(st.integers(0, 3))
        op = draw(st.sampled_from("++++-"))
        edges.append(
            (
                draw(st.sampled_from("abc")),
                draw(st.sampled_from("abc")),
                draw(st.sampled_from(["knows", "likes"])),
                t,
                op,
            )
        )
    return edges


def _shifted(rows, k: int, emit: str):
    if emit == "deltas":
        return sorted((r.time + k, r.op, r.src, r.trg, r.label) for r in rows)
    return sorted((r.src, r.trg, r.label, r.ts + k, r.exp + k) for r in rows)


@pytest.mark.parametrize("operator", ["closure", "spath"])
@pytest.mark.parametrize("emit", ["deltas", "intervals"])
@settings(max_examples=25)
@given(
    program=st.sampled_from(PROGRAMS),
    edges=_streams(),
    window=st.integers(1, 8),
    slide=st.sampled_from([1, 2, 3]),
)
def test_results_at_the_ends_of_int64_are_those_near_zero_shifted(
    operator, emit, program, edges, window, slide
):
    window = max(window, slide)
    text = f".window {window}\n.slide {slide}\n{program}\n"
    query = sgq.compile(text=text, options=PlanOptions(path_operator=operator))
    want = _shifted(query.run(edges, emit), 0, emit)
    last = max((t // slide) * slide + window for *_, t, _op in edges)
    first = min(t for *_, t, _op in edges)
    for k in (
        (INT64_MAX - last) // slide * slide,  # the last expiry at (or just before) the maximum
        -((first - INT64_MIN) // slide) * slide,  # the first time at (or just after) the minimum
    ):
        moved = [(s, t, label, ts + k, op) for s, t, label, ts, op in edges]
        assert _shifted(query.run(moved, emit), -k, emit) == want
