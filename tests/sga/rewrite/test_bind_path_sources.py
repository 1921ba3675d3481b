"""sga/rewrite/bind_path_sources.py: a closure PATH joined on its source with another input
becomes a PATH bound to that input's sources, where the rule's conditions hold; the plans
before and after in `explain` text. (The engine's results with the bound plan: the harness,
tests/harness/test_bound_paths_vs_reference.py.)"""

from __future__ import annotations

import pytest
from sgq.datalog.check import check_text
from sgq.sga.algebra import BoundPath, Path
from sgq.sga.explain import explain_text
from sgq.sga.rewrite.bind_path_sources import bind_path_sources, unbind_paths
from sgq.sga.translate import translate

Q6 = ".window 10\nAnswer(x, y) :- a+(x, y), b(x, m), c(m, y).\n"

BEFORE = """\
order: a, b, c, Answer
output Answer:
  #1 PATTERN[src1, trg1 -> Answer](src1 = src2, trg1 = trg2)
    #2 PATH[a+]
      #3 WSCAN[a](ω=10, β=1)
    #4 PATTERN[src1, trg2 -> [b/c]](trg1 = src2)
      #5 WSCAN[b](ω=10, β=1)
      #6 WSCAN[c](ω=10, β=1)
"""

AFTER = """\
order: a, b, c, Answer
output Answer:
  #1 PATTERN[src1, trg1 -> Answer](src1 = src2, trg1 = trg2)
    #2 PATH[a+; pairs from [b/c]]
      #3 WSCAN[a](ω=10, β=1)
      #4 PATTERN[src1, trg2 -> [b/c]](trg1 = src2)
        #5 WSCAN[b](ω=10, β=1)
        #6 WSCAN[c](ω=10, β=1)
    #4 (shared) PATTERN[src1, trg2 -> [b/c]](trg1 = src2)
"""


def _plan(text: str, skip=()):
    return translate(check_text(text), skip=skip, enable={"bind_path_sources"})


def _bound(plan) -> list:
    return [n for n in plan.nodes() if isinstance(n, BoundPath)]


def test_q6_binds_the_closure_to_the_chain_sources():
    before = _plan(Q6, skip={"bind_path_sources"})
    assert explain_text(before) == BEFORE
    after = bind_path_sources(before)
    assert explain_text(after) == AFTER
    assert _plan(Q6).rewrites[-1] == "bind_path_sources"
    (bound,) = _bound(after)
    assert bound.seeds.label == "[b/c]" and [i.label for i in bound.letters] == ["a"]


def test_it_runs_only_when_asked_for():
    assert not _bound(translate(check_text(Q6)))
    assert _bound(translate(check_text(Q6), enable={"bind_path_sources"}))
    off = translate(check_text(Q6), skip={"bind_path_sources"}, enable={"bind_path_sources"})
    assert not _bound(off)


def test_unbinding_gives_the_plan_back():
    before = _plan(Q6, skip={"bind_path_sources"})
    assert unbind_paths(bind_path_sources(before)).outputs == before.outputs
    assert unbind_paths(before) is before


@pytest.mark.parametrize(
    "body",
    [
        "a*(x, y), b(x, m), c(m, y)",  # nullable: (v, v) over the active domain
        "simple a+(x, y), b(x, m)",  # simple paths: their own operator
        "a+(x, y), b(m, x)",  # the other input binds x as its target, not its source
        "a+(x, y), b+(x, m)",  # the seed side is itself a closure
        "a+(x, y), b(y, m)",  # joined on the PATH's target only
    ],
)
def test_left_as_it_is(body):
    plan = _plan(f".window 10\nAnswer(x, y) :- {body}.\n")
    assert not _bound(plan)
    assert "bind_path_sources" not in plan.rewrites


def test_a_path_read_twice_is_left():
    # one PATH node for both atoms (specs/plans.md); the second rule gives it no seed
    twice = ".window 10\nAnswer(x, y) :- a+(x, y), b(x, m).\n"
    twice += "Answer(x, y) :- a+(x, y), c(y, x).\n"
    plan = _plan(twice)
    assert not _bound(plan)
    assert len([n for n in plan.nodes() if isinstance(n, Path)]) == 1


def test_an_automaton_back_to_its_start_is_left():
    plan = _plan(".window 10\nAnswer(x, y) :- [(a/b)*/a](x, y), c(x, m).\n")
    paths = [n for n in plan.nodes() if isinstance(n, Path)]
    assert paths and not _bound(plan)


def test_time_variables_are_left():
    plan = _plan(".window 10\nAnswer(x, y) :- a+(x, y)@t, b(x, m)@u, t < u.\n")
    assert not _bound(plan)


def test_a_regex_closure_and_a_single_seed_atom_bind():
    plan = _plan(".window 10\nAnswer(x, m) :- [(a/b)+](x, y), c(x, m).\n")
    (bound,) = _bound(plan)
    assert bound.seeds.label == "c"
