"""Programs are non-recursive: the predicate dependency graph is acyclic (specs/semantics.md §3,
thesis Def 14). Closure `p+`, `p*` and `[R]` are the only recursion; a rule that reads its own
head, directly or through other rules (`A(x,y) :- A+(x,y).` too), is an error naming the cycle.

Each strongly connected component with a cycle gets one error: the cycle starts at its
predicate written first in the file, and the caret sits on the body atom that closes it.
"""

from __future__ import annotations

from ...base.components import strongly_connected as components
from ..ast import Loc, Program
from ..dependency_graph import dependency_graph, find_cycle, first_appearance
from ..errors import RECURSION, DlError, clipped_chain
from .context import CheckContext
from .facts import literal_pred_locs


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's components of `graph`, roots and successors in sorted order (stable error
    messages)."""
    nodes = sorted(set(graph).union(*graph.values()))
    return components({p: sorted(graph.get(p, ())) for p in nodes})


def _closing_loc(program: Program, reader: str, read: str) -> Loc | None:
    """Where the first rule for `reader` reads `read`."""
    for rule in program.rules:
        if rule.head.pred != reader:
            continue
        for literal in rule.body:
            locs = literal_pred_locs(literal)
            if read in locs:
                return locs[read]
    return None


def cycles(program: Program) -> list[list[str]]:
    """One cycle `[p1, ..., p1]` per cyclic component (p1 reads p2 ... reads p1), each starting
    at its first-written predicate, in order of that predicate."""
    graph = dependency_graph(program)
    rank = first_appearance(program)
    found = []
    for component in strongly_connected(graph):
        members = set(component)
        if len(members) == 1 and component[0] not in graph[component[0]]:
            continue
        sub = {p: graph[p] & members for p in members}
        cycle = find_cycle(sub)
        if cycle is None:  # pragma: no cover - a cyclic component always has a cycle
            continue
        ring = cycle[:-1]
        start = min(range(len(ring)), key=lambda i: rank[ring[i]])
        ring = ring[start:] + ring[:start]
        found.append(ring + [ring[0]])
    found.sort(key=lambda c: rank[c[0]])
    return found


def check_no_recursion(ctx: CheckContext) -> list[DlError]:
    """`A :- B. B :- A.` -> recursion is not allowed: A -> B -> A (...)"""
    errors = []
    for cycle in cycles(ctx.program):
        loc = _closing_loc(ctx.program, cycle[-2], cycle[-1])
        errors.append(ctx.error(RECURSION.format(cycle=clipped_chain(cycle, " -> ")), loc))
    return errors
