"""Random programs with a planted cycle are rejected, and every recursion message names a real
cycle of the dependency graph (datalog/checks/recursion.py)."""

from __future__ import annotations

import re

from dl_strategies import acyclic_edges, program_from_edges
from hypothesis import given
from hypothesis import strategies as st
from sgq.datalog.check import check_text
from sgq.datalog.dependency_graph import dependency_graph
from sgq.datalog.errors import DlErrors
from sgq.datalog.parser import parse

CYCLE = re.compile(r"recursion is not allowed: (.*) \(a program may recurse only through")
CLIPPED = re.compile(r"\.\.\. \(\d+ more\)")


@st.composite
def cyclic_programs(draw):
    preds, edges, _ = draw(acyclic_edges())
    ring = draw(st.lists(st.sampled_from(preds), min_size=1, max_size=len(preds), unique=True))
    planted = [(ring[i], ring[(i + 1) % len(ring)]) for i in range(len(ring))]
    return program_from_edges(preds, sorted(set(edges) | set(planted))), ring


@given(cyclic_programs())
def test_planted_cycle_is_rejected_with_a_real_cycle(case):
    text, ring = case
    try:
        check_text(text, "cyclic.dl")
    except DlErrors as exc:
        caught = exc
        cycles = [CYCLE.match(e.message) for e in exc.errors]
        named = [m.group(1).split(" -> ") for m in cycles if m]
    else:
        raise AssertionError(f"accepted a program with the cycle {ring}:\n{text}")
    assert named, caught.render()
    graph = dependency_graph(parse(text))
    for cycle in named:
        assert cycle[0] == cycle[-1] and len(cycle) >= 2
        assert len(set(cycle[:-1])) == len(cycle) - 1  # a simple cycle
        for reader, read in zip(cycle, cycle[1:]):
            if CLIPPED.fullmatch(reader) or CLIPPED.fullmatch(read):
                continue  # a long cycle names its ends only (errors.clipped_chain)
            assert read in graph[reader], (cycle, text)
    # the planted ring's predicates are all on some reported cycle's component
    on_cycles = {p for cycle in named for p in cycle}
    assert on_cycles & set(ring)


@given(acyclic_edges())
def test_acyclic_programs_have_no_recursion_error(case):
    preds, edges, _ = case
    check_text(program_from_edges(preds, edges), "acyclic.dl")  # raises on any error


def test_every_cyclic_component_is_reported():
    text = program_from_edges(["A", "B", "C", "D"], [("A", "B"), ("B", "A"), ("C", "C")])
    try:
        check_text(text, "two.dl")
    except DlErrors as exc:
        messages = [CYCLE.match(e.message).group(1) for e in exc.errors]
    assert messages == ["A -> B -> A", "C -> C"]
