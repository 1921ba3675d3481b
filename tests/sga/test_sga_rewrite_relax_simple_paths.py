"""sga/rewrite/relax_simple_paths.py and the simple case of finite_paths: which simple PATHs
run as arbitrary-path PATHs, and what a finite simple language becomes."""

from __future__ import annotations

from sgq.datalog.check import check_text
from sgq.sga.algebra import Filter, Path, Pattern
from sgq.sga.translate import translate


def _plan(atom: str, skip=()):
    return translate(check_text(f".window 10\nAnswer(x, y) :- {atom}(x, y)."), skip=skip)


def _paths(plan):
    return [n for n in plan.nodes() if isinstance(n, Path)]


def test_a_conflict_free_simple_path_without_epsilon_stays_the_output():
    """No FILTER `src != trg`: the arbitrary-path operators of a simple PATH drop `(x, x)`
    themselves, so the PATH stays the output (native deltas)."""
    plan = _plan("simple knows+")
    (path,) = _paths(plan)
    assert path.simple and path.conflict_free and path.domain is None
    assert not any(isinstance(n, Filter) for n in plan.nodes())
    assert path in plan.outputs or any(path in o.inputs for o in plan.outputs)
    assert "relax_simple_paths" in plan.rewrites


def test_a_nullable_conflict_free_simple_path_needs_no_filter():
    plan = _plan("simple [(a|b)*]")
    (path,) = _paths(plan)
    assert path.conflict_free and path.domain is not None
    assert not any(isinstance(n, Filter) for n in plan.nodes())


def test_a_simple_path_that_may_conflict_stays_as_it_is():
    plan = _plan("simple [a/b*]")
    (path,) = _paths(plan)
    assert path.simple and not path.conflict_free
    assert "relax_simple_paths" not in plan.rewrites
    skipped = _plan("simple knows+", skip={"relax_simple_paths"})
    assert not _paths(skipped)[0].conflict_free


def test_a_finite_simple_language_is_a_chain_of_distinct_hops():
    plan = _plan("simple [a/b]")
    assert not _paths(plan)
    (join,) = [n for n in plan.nodes() if isinstance(n, Pattern)]
    assert {c.text() for c in join.conditions} == {"_v0 != _v1", "_v0 != _v2", "_v1 != _v2"}
