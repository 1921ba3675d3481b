"""The predicate dependency graph of a program and its deterministic topological order.

Nodes are predicate names; an edge `q -> p` means a rule for head `p` reads `q` in its body
(through an atom, a closure or a path atom). The program is non-recursive exactly when this
graph is acyclic (specs/semantics.md §3); closure is the only recursion and is not an edge to self.
Pure functions over the frozen AST: nothing is stored on the nodes (STYLE.md).
"""

from __future__ import annotations

import heapq

from .ast import Program, literal_preds


def first_appearance(program: Program) -> dict[str, int]:
    """Each predicate name -> the index of its first mention in source order (heads and bodies)."""
    index: dict[str, int] = {}
    for rule in program.rules:
        for name in (rule.head.pred, *[p for lit in rule.body for p in literal_preds(lit)]):
            index.setdefault(name, len(index))
    return index


def dependency_graph(program: Program) -> dict[str, set[str]]:
    """`p -> {q, ...}`: the predicates each predicate's rules read. Every predicate is a key."""
    graph: dict[str, set[str]] = {name: set() for name in first_appearance(program)}
    for rule in program.rules:
        for lit in rule.body:
            graph[rule.head.pred].update(literal_preds(lit))
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle `[p1, p2, ..., p1]` (p1 reads p2 reads ... reads p1), or None if acyclic.

    Deterministic: searches from predicates in sorted order, neighbours in sorted order.
    """
    WHITE, GREY, BLACK = 0, 1, 2
    colour = {node: WHITE for node in graph}
    for root in sorted(graph):
        if colour[root] != WHITE:
            continue
        colour[root] = GREY
        stack = [root]  # the grey path, with an iterator over each one's successors
        work = [iter(sorted(graph.get(root, ())))]
        while work:  # (iterative: a cycle may run through thousands of predicates)
            for nxt in work[-1]:
                if colour.get(nxt, BLACK) == GREY:
                    return stack[stack.index(nxt) :] + [nxt]
                if colour.get(nxt) == WHITE:
                    colour[nxt] = GREY
                    stack.append(nxt)
                    work.append(iter(sorted(graph.get(nxt, ()))))
                    break
            else:
                work.pop()
                colour[stack.pop()] = BLACK
    return None


def topological_order(program: Program) -> tuple[str, ...]:
    """Every predicate, each after all it reads; ties broken by first appearance in the file.

    Raises ValueError on a cycle (the checker reports cycles properly before this is used).
    """
    graph = dependency_graph(program)
    rank = first_appearance(program)
    pending = {p: len(deps) for p, deps in graph.items()}
    readers: dict[str, list[str]] = {p: [] for p in graph}
    for p, deps in graph.items():
        for q in deps:
            readers[q].append(p)
    ready = [(rank[p], p) for p, n in pending.items() if n == 0]
    heapq.heapify(ready)
    order: list[str] = []
    while ready:
        _, p = heapq.heappop(ready)
        order.append(p)
        for r in readers[p]:
            pending[r] -= 1
            if pending[r] == 0:
                heapq.heappush(ready, (rank[r], r))
    if len(order) != len(graph):
        raise ValueError(f"cycle among {sorted(set(graph) - set(order))}")
    return tuple(order)
