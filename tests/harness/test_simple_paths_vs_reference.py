"""Simple paths over automata that can conflict (incremental/operators/simple_path.py: S-PATH's
trees, conflict detection on their walks, the budgeted search of unmarked results) against
the brute-force reference at every change point, on streams dense enough for conflicts (more
vertices and edges than the general harness draws), append-only and with deletions, with
witness paths checked to be simple paths spelling a word of the language."""

from __future__ import annotations

import re

from harness_support import THOROUGH, judge_with_reference, report
from hypothesis import given, settings
from hypothesis import strategies as st
from sgq.datalog.check import check_text

import sgq

#: examples per property: 60 by default, 2000 in the thorough profile (HYPOTHESIS_PROFILE)
EXAMPLES = 2000 if THOROUGH else 60

#: conflicting expressions (none is conflict-free: the rewrite leaves them to the RSPQ operator)
REGEXES = ["a/b*", "a/b/c*", "(a/b)*", "a/b/c", "a/(b|c)*", "(a|b)/a*/b", "a*/b/a*", "a/b*/c/b"]


@st.composite
def cases(draw, deletions: bool):
    regex = draw(st.sampled_from(REGEXES))
    window = draw(st.integers(3, 12))
    text = f".window {window}\nAnswer(x, y) :- simple [{regex}](x, y).\n"
    vertices = [str(i) for i in range(draw(st.integers(2, 6)))]
    edges = []
    inserted = []
    t = 0
    for _ in range(draw(st.integers(1, 30))):
        t += draw(st.sampled_from([0, 0, 1, 1, 2, 3]))
        if deletions and inserted and draw(st.integers(0, 9)) < 2:
            s, d, lbl = draw(st.sampled_from(inserted))
            edges.append((s, d, lbl, t, "-"))
            continue
        s, d = draw(st.sampled_from(vertices)), draw(st.sampled_from(vertices))
        lbl = draw(st.sampled_from("abc"))
        edges.append((s, d, lbl, t, "+"))
        inserted.append((s, d, lbl))
    return text, edges


def _judge(text, edges):
    checked = check_text(text, "simple.dl")
    mismatch = judge_with_reference(text, checked, edges)
    assert mismatch is None, report(text, edges, mismatch)


@settings(max_examples=EXAMPLES, deadline=None)
@given(cases(deletions=False))
def test_conflicting_simple_paths_match_the_reference_append_only(case):
    _judge(*case)


@settings(max_examples=EXAMPLES, deadline=None)
@given(cases(deletions=True))
def test_conflicting_simple_paths_match_the_reference_with_deletions(case):
    _judge(*case)


@settings(max_examples=EXAMPLES // 2, deadline=None)
@given(cases(deletions=True))
def test_witnesses_of_conflicting_simple_paths_are_simple_words(case):
    text, edges = case
    engine = sgq.compile(text).engine(paths=True)
    engine.push_batch(edges)
    engine.close()
    regex = text.split("[")[1].split("]")[0].replace("/", "")  # one-letter labels: a Python re
    for r in engine.drain():
        if not r.path:
            continue
        vertices = [r.src] + [trg for _s, trg, _l in r.path]
        assert r.path[0][0] == r.src and vertices[-1] == r.trg, r
        assert all(a[1] == b[0] for a, b in zip(r.path, r.path[1:])), r
        assert len(set(vertices)) == len(vertices), r
        assert re.fullmatch(regex, "".join(label for _s, _t, label in r.path)), r
