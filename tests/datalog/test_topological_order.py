"""datalog.dependency_graph.topological_order puts every predicate after all it reads."""

from __future__ import annotations

from dl_strategies import acyclic_edges, program_from_edges, valid_programs
from hypothesis import given
from sgq.datalog.dependency_graph import dependency_graph, topological_order
from sgq.datalog.parser import parse


def _respects(program) -> None:
    order = topological_order(program)
    graph = dependency_graph(program)
    assert sorted(order) == sorted(graph)  # every predicate, once
    position = {p: i for i, p in enumerate(order)}
    for reader, reads in graph.items():
        for read in reads:
            assert position[read] < position[reader], (read, reader, order)


@given(acyclic_edges())
def test_random_dags(case):
    preds, edges, _ = case
    _respects(parse(program_from_edges(preds, edges)))


@given(valid_programs())
def test_valid_programs(program):
    _respects(program)


def test_ties_follow_first_appearance():
    program = parse("Answer(x, y) :- B(x, y), A(x, y).\nB(x, y) :- b(x, y).\nA(x, y) :- a(x, y).")
    assert topological_order(program) == ("b", "B", "a", "A", "Answer")
