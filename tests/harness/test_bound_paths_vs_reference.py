"""The engine against the brute-force reference at every change point (interval rows and
native deltas) on Q6-shaped programs, where sga/rewrite/bind_path_sources.py binds a closure
to the sources of the atoms joined with it (incremental/operators/bound_path.py): roots enter
and leave the seed set, with ties, `-` edges of either side and expiries."""

from __future__ import annotations

import pytest
from case_generators import DataChooser, gen_bound_path_program, gen_stream
from harness_support import judge_with_reference, query_of, report
from hypothesis import given, settings
from hypothesis import strategies as st
from sgq.base.options import PlanOptions
from sgq.datalog.check import check_text
from sgq.incremental.operators.bound_path import BoundPathOp

pytest.importorskip("sgq.api", reason="the engine (sgq.api) is not there yet")

#: the plan with the opt-in rewrite (sga/rewrite/bind_path_sources.py)
BOUND = PlanOptions(rewrites={"bind_path_sources"})

per_run = settings(max_examples=max(1, settings.default.max_examples // 2))


def _judge(data, deletions: bool) -> None:
    ch = DataChooser(data)
    text = gen_bound_path_program(ch)
    checked = check_text(text, "generated.dl")
    edges = gen_stream(ch, checked.edb, max_len=24, deletions=deletions)
    mismatch = judge_with_reference(text, checked, edges, BOUND)
    assert mismatch is None, report(text, edges, mismatch)


@per_run
@given(st.data())
def test_bound_paths_match_the_reference_append_only(data):
    _judge(data, deletions=False)


@per_run
@given(st.data())
def test_bound_paths_match_the_reference_with_deletions(data):
    _judge(data, deletions=True)


def test_the_programs_run_the_bound_path():
    text = ".window 5\nAnswer(x, y) :- a+(x, y), c(x, m), b(m, y).\n"
    ops = query_of(text, BOUND).engine().dataflow.ops
    assert any(type(op) is BoundPathOp for op in ops)


#: cases the property found: a root that left its seeds keeps its pairs (stale) until a
#: deleted edge cuts them, also when it comes back in the round of the deletion (its new tree
#: is built from the window the deletion already cut)
CASES = [
    (
        ".window 7\nAnswer(x, y) :- a+(x, y), c(x, m), b(m, y).\n",
        [
            ("1", "1", "a", 0, "+"),
            ("1", "1", "b", 0, "+"),
            ("1", "1", "c", 1, "+"),
            ("1", "1", "a", 4, "+"),
            ("1", "1", "b", 7, "+"),
            ("1", "1", "a", 7, "+"),
            ("1", "1", "a", 7, "-"),
        ],
    ),
]


@pytest.mark.parametrize(("text", "edges"), CASES)
def test_found_cases(text, edges):
    checked = check_text(text, "case.dl")
    mismatch = judge_with_reference(text, checked, edges, BOUND)
    assert mismatch is None, report(text, edges, mismatch)
