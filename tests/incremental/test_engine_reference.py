"""Random small streams over many programs, compared with the brute-force reference at every
change point (snapshot reducibility + timeliness, specs/semantics.md §4-5)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from incremental_support import assert_matches_reference, compile_text

PROGRAMS = {
    "plus": "Answer(x, y) :- a+(x, y).",
    "star": "Answer(x, y) :- a*(x, y).",
    "a_bstar": "Answer(x, y) :- [a/b*](x, y).",
    "abplus": "Answer(x, y) :- [(a/b)+](x, y).",
    "alt_opt": "Answer(x, y) :- [(a|b)/a?/b](x, y).",
    "astar_bstar": "Answer(x, y) :- [a*/b*](x, y).",
    "join2": "Answer(x, z) :- a(x, y), b(y, z).",
    "join_cmp": "Answer(x, z) :- a(x, y), b(y, z), x != z.",
    "join_const": 'Answer(x, y) :- a(x, y), b(y, "1").',
    "triangle": "Answer(x, y) :- a(x, y), a(y, z), b(z, x).",
    "self_loop": "Answer(x, x) :- a(x, x).",
    "reverse": "Answer(y, x) :- a(x, y).",
    "anon": "Answer(x, x) :- a(x, _), b(_, x).",
    "cross": "Answer(x, z) :- a(x, _), b(z, _).",
    "union": "Answer(x, y) :- a(x, y).\nAnswer(x, y) :- b(y, x).\nAnswer(x, y) :- a(x, z), a(z, y).",
    "derived_plus": "RL(x, y) :- a(x, z), b(z, y).\nAnswer(x, y) :- RL+(x, y).",
    "derived_star": "RL(x, y) :- a(x, z), b(y, z).\nAnswer(x, y) :- RL*(x, y).",
    "q7_like": "RL(x, y) :- a+(x, y), b(x, m), c(m, y).\nAnswer(x, m) :- RL+(x, y), c(m, y).",
    "notification": (
        "RL(u1, u2) :- likes(u1, m1), follows+(u1, u2), posts(u2, m1).\n"
        "Answer(u, m) :- RL+(u, v), posts(v, m)."
    ),
    "path_join": "Answer(x, z) :- [a/b*](x, y), c(y, z), x != z.",
    "two_outputs": ".output P, Q\nP(x, y) :- a(x, y), b(y, x).\nQ(x, y) :- P+(x, y).",
    "per_label": ".window 2 for b\nAnswer(x, z) :- a(x, y), b(y, z).\nAnswer(x, y) :- b+(x, y).",
    "const_path": 'Answer(y, x) :- [a/b*]("0", x), a(y, x).',
}

LABELS = ("a", "b", "c", "likes", "follows", "posts")


def program_labels(name: str) -> tuple[str, ...]:
    return tuple(
        label
        for label in LABELS
        if f"{label}(" in PROGRAMS[name]
        or f"{label}+" in PROGRAMS[name]
        or f"{label}*" in PROGRAMS[name]
        or f"[{label}" in PROGRAMS[name]
        or f"/{label}" in PROGRAMS[name]
        or f"({label}" in PROGRAMS[name]
        or f"|{label}" in PROGRAMS[name]
    )


@st.composite
def streams(draw, labels=LABELS, max_size=12, vertices=3):
    """Non-decreasing times with ties and gaps; few vertices (cycles, repeats); the
    program's own labels plus an unused one now and then."""
    n = draw(st.integers(1, max_size))
    t = draw(st.integers(0, 3))
    out = []
    for _ in range(n):
        t += draw(st.sampled_from((0, 0, 1, 1, 2, 4)))
        s = draw(st.integers(0, vertices - 1))
        d = draw(st.integers(0, vertices - 1))
        label = draw(st.sampled_from(labels + ("zz",)))
        out.append((s, d, label, t))
    return out


@pytest.mark.parametrize("name", sorted(PROGRAMS))
@settings(max_examples=60)
@given(data=st.data(), window=st.integers(1, 6), slide=st.integers(1, 3))
def test_engine_matches_reference(name, data, window, slide):
    edges = data.draw(streams(program_labels(name)))
    slide = min(slide, window, 2 if name == "per_label" else 3)
    query = compile_text(".window 1\n" + PROGRAMS[name], window=window, slide=slide)
    assert_matches_reference(query, edges, check_state=True)


@pytest.mark.parametrize("name", ["q7_like", "notification", "abplus", "union"])
@settings(max_examples=30)
@given(data=st.data(), window=st.integers(3, 8), slide=st.integers(1, 3))
def test_engine_matches_reference_longer(name, data, window, slide):
    edges = data.draw(streams(program_labels(name), max_size=16, vertices=4))
    # twice as long and denser: more cycles and re-derivations
    slide = min(slide, window)
    query = compile_text(".window 1\n" + PROGRAMS[name], window=window, slide=slide)
    doubled = edges + [(d, s, lab, t + 1) for s, d, lab, t in edges]
    doubled.sort(key=lambda e: e[3])
    assert_matches_reference(query, doubled, check_state=True)
