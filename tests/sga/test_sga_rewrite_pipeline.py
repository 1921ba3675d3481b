"""The rewrite passes in one list (sga/rewrite/pipeline.py): their order, skipping each by
name, `Plan.rewrites` naming those that changed the plan, and `map_plan` handing back the
plan itself when nothing changed."""

from __future__ import annotations

import doctest

import pytest
from sgq.datalog.check import check_text
from sgq.sga import translate as translate_module
from sgq.sga.algebra import Path, Pattern, Plan, WScan, map_plan
from sgq.sga.rewrite import pipeline
from sgq.sga.rewrite.pipeline import REWRITES, rewrite
from sgq.sga.translate import translate

Q11 = ".window 10\nAnswer(x, y) :- [knows/likes/hasCreator](x, y)."


def _kinds(plan: Plan) -> list[str]:
    return sorted(type(n).__name__ for n in plan.nodes())


def test_the_passes_in_order():
    assert list(REWRITES) == [
        "finite_paths",
        "relax_simple_paths",
        "shared_chains",
        "bind_path_sources",
    ]


@pytest.mark.parametrize(
    ("skip", "rewrites", "paths", "nested"),
    [
        ((), ("finite_paths", "shared_chains"), 0, True),
        (("shared_chains",), ("finite_paths",), 0, False),
        (("finite_paths",), (), 1, False),
        (tuple(REWRITES), (), 1, False),
    ],
)
def test_each_pass_is_skipped_by_name(skip, rewrites, paths, nested):
    plan = translate(check_text(Q11), skip=skip)
    assert plan.rewrites == rewrites
    assert sum(isinstance(n, Path) for n in plan.nodes()) == paths
    assert (
        any(
            isinstance(n, Pattern) and any(isinstance(i, Pattern) for i in n.inputs)
            for n in plan.nodes()
        )
        == nested
    )


def test_canonical_skips_shared_chains_and_bind_path_sources_only():
    checked = check_text(Q11)
    canonical = translate(checked, canonical=True)
    assert canonical == translate(checked, skip={"shared_chains", "bind_path_sources"})


def test_a_plan_with_nothing_to_rewrite_is_kept():
    plan = translate(check_text(".window 10\nAnswer(x, y) :- a+(x, y), b(y, x)."))
    assert plan.rewrites == ()
    assert map_plan(plan, lambda op: op) is plan
    assert REWRITES["shared_chains"](plan) is plan


def test_map_plan_keeps_shared_nodes_shared():
    a, b = WScan("a", 10, 1), WScan("b", 10, 1)
    plan = Plan(
        (
            Pattern((a, b), (("x", "y"), ("y", "z")), ("x", "z"), "P"),
            Pattern((a, a), (("x", "y"), ("y", "z")), ("x", "z"), "Q"),
        )
    )
    c = WScan("c", 10, 1)
    got = map_plan(plan, lambda op: c if op == a else op)
    assert got.outputs[0].inputs == (c, b) and got.outputs[1].inputs == (c, c)
    assert got.outputs[1].inputs[0] is got.outputs[0].inputs[0]


def test_an_unknown_name_is_refused():
    with pytest.raises(ValueError, match="unknown rewrite nope; the rewrites are"):
        rewrite(Plan(()), skip={"nope"})


def test_doctests():
    for module in (pipeline, translate_module):
        failed, tried = doctest.testmod(module)
        assert failed == 0 and tried > 0
