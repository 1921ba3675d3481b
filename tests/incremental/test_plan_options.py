"""Every choice of PlanOptions (base/options.py) gives the reference's snapshots, at every change
point, and its delta view: each PATH operator, with every rewrite pass run or skipped (a
finite language left as PATH, joins left flat), over finite and infinite languages, derived
inputs and deletions; and each choice reaches the operators it names."""

from __future__ import annotations

import doctest

import pytest
import sgq.base.options
from hypothesis import given, settings
from incremental_support import assert_matches_reference, compile_text, edge_streams
from sgq.base.options import PATH_OPERATORS
from sgq.incremental.operators.path import PathOp
from sgq.incremental.operators.path_closure import PathClosureOp
from sgq.sga.algebra import Path
from sgq.sga.rewrite.pipeline import REWRITES

from sgq import PlanOptions, UserError

PROGRAMS = [
    "Answer(x, y) :- [a/b/c](x, y).",
    "Answer(x, y) :- [(a/b)|c](x, y).",
    "Answer(x, y) :- [a?/b](x, y).",
    "RL(x, y) :- a(x, z), b(z, y).\nAnswer(x, y) :- [RL/c](x, y), a+(x, y).",
    "Answer(x, y) :- a+(x, y), b(x, m), c(m, y).",
]
OPTIONS = [
    PlanOptions(path_operator=p, skip_rewrites=skip)
    for p in PATH_OPERATORS
    for skip in ((), tuple(REWRITES))
]


@pytest.mark.parametrize("text", PROGRAMS)
@pytest.mark.parametrize(
    "options", OPTIONS, ids=lambda o: f"{o.path_operator}-{'none' if o.skip_rewrites else 'all'}"
)
@settings(max_examples=25, deadline=None)
@given(edges=edge_streams(("a", "b", "c"), max_size=14, vertices=3))
def test_every_choice_matches_the_reference(text, options, edges):
    query = compile_text(".window 1\n" + text, window=4, slide=2, options=options)
    assert_matches_reference(query, edges, check_state=True)


def _path_ops(query):
    return [op for op in query.engine().dataflow.ops if isinstance(op, (PathOp, PathClosureOp))]


def test_the_choices_reach_the_operators():
    text = ".window 10\nAnswer(x, y) :- [a/b](x, y), c+(x, y)."
    default = compile_text(text)
    assert default.plan.rewrites == ("finite_paths",)
    [op] = _path_ops(default)
    assert type(op) is PathClosureOp and op.sparse_hands_over
    [op] = _path_ops(compile_text(text, options=PlanOptions(path_operator="closure")))
    assert type(op) is PathClosureOp and not op.sparse_hands_over
    flat = compile_text(
        text, options=PlanOptions(path_operator="spath", skip_rewrites=["finite_paths"])
    )
    assert flat.plan.rewrites == ()
    assert len([n for n in flat.plan.nodes() if isinstance(n, Path)]) == 2
    assert [type(op) for op in _path_ops(flat)] == [PathOp, PathOp]


def test_bad_choices_are_user_errors_naming_the_valid_ones():
    with pytest.raises(
        UserError, match="unknown PATH operator 'trees'; the choices are auto, closure, spath"
    ):
        PlanOptions(path_operator="trees")
    with pytest.raises(
        UserError,
        match="unknown rewrite 'x'; the rewrites are finite_paths, relax_simple_paths, "
        "shared_chains, bind_path_sources",
    ):
        PlanOptions(skip_rewrites=["shared_chains", "x"])


def test_options_are_frozen_values_with_a_json_form():
    options = PlanOptions(path_operator="closure", skip_rewrites=["shared_chains"])
    assert options.skip_rewrites == frozenset({"shared_chains"})
    assert PlanOptions(**options.as_dict()) == options
    assert PlanOptions().as_dict() == {
        "path_operator": "auto",
        "skip_rewrites": [],
        "optimize": True,
    }
    with pytest.raises(AttributeError):
        options.path_operator = "spath"


def test_doctests():
    failed, tried = doctest.testmod(sgq.base.options)
    assert failed == 0 and tried > 0
