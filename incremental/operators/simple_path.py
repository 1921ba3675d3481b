"""PATH under simple-path semantics (RSPQ, RPQ paper §4; specs/semantics.md §4a) for automata
that may conflict: `simple [a/b*](x, y)` holds when a path from x to y that visits no vertex
twice spells a word of L(R). (Conflict-free automata never come here: the rewrite
sga/rewrite/relax_simple_paths.py runs them on the arbitrary-path operators.)

Each round re-evaluates the roots a change can touch, by the search of
state/simple_search.py (the widest arbitrary walks, then a budgeted search over simple paths
where a walk conflicts), and emits through a Coalescer what widens or cuts the output:

- new tuples (`process`): a simple path that uses a new edge `(u, v)` reaches `u` without
  it, so the roots whose product graph reaches `(u, s)` (a backward search) are the ones to
  re-evaluate; each result is admitted on `[ts, exp)` of its best simple path;
- end records (`retract`, explicit deletions): the same roots, found in the round's final
  graph (a simple path through the deleted edge reaches `u` without it), are re-evaluated and
  a result whose best simple path now ends earlier than emitted gets an end record; ε-pairs
  `(v, v)` of a nullable regex re-read the domain index, as in S-PATH;
- expiry needs nothing: a result was emitted until the end of its best simple path, and the
  paths left after an expiry end no later (append-only input, as S-PATH's max-exp argument).

Intervals: a path is valid on the intersection of its edges' intervals; a result on the union
over its simple paths, coalesced. `(x, x)` only by the empty path: the ε-pairs of the domain
port (VERTICES) when ε ∈ L(R). Witnesses (`--paths`) are the best simple path's edges.

Cost per round: the backward search, then per touched root a max-min Dijkstra over its
product graph (O(E k log)), plus the simple-path search where conflicts are, which is
exponential at worst and bounded by `PlanOptions.simple_budget` steps per round.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..state.coalescer import Coalescer
from ..state.simple_search import Budget, Graph, search_root
from ..stateful import restore_into, state_of
from .base import BuildContext, PhysicalOperator
from .path import epsilon_pairs, path_automaton

if TYPE_CHECKING:
    from ...sga.algebra import Op


class SimplePathOp(PhysicalOperator):
    """PATH with `simple` whose automaton can conflict (see the module docstring)."""

    __slots__ = ("dfa", "letters", "graph", "out", "paths", "domain", "budget", "reached")

    STATE_VERSION = 1

    def __init__(self, node: Op, ctx: BuildContext) -> None:
        super().__init__(node)
        self.dfa, self.letters = path_automaton(node)
        window = {letter: ctx.index_of(inp) for letter, inp in zip(self.letters, node.inputs)}
        self.graph = Graph(self.dfa, self.letters, window)
        self.out = Coalescer()
        self.paths = ctx.paths
        nullable_domain = node.domain is not None and self.dfa.nullable
        self.domain = ctx.index_of(node.domain) if nullable_domain else None
        self.budget = Budget(ctx.options.simple_budget, f"'{node.label}'")
        self.reached: dict[str, set] = {}  # root -> vertices it had results for

    def process(self, batches: list, now: int) -> list:
        result: list = []
        self._reevaluate(self._starts(batches, now, result, inserts=True), now, result, False)
        return result

    def retract(self, batches: list, now: int) -> list:
        result: list = []
        self._reevaluate(self._starts(batches, now, result, inserts=False), now, result, True)
        return result

    def _starts(self, batches: list, now: int, result: list, inserts: bool) -> set:
        """The product nodes `(u, s)` that the round's tuples (or end records) of each letter
        leave; the domain port's go straight to the ε-pairs."""
        starts: set = set()
        nletters = len(self.letters)
        for port, batch in enumerate(batches):
            if not batch:
                continue
            if port == nletters:
                if not inserts:
                    for v, _v, _ts, _exp, _wit in batch:
                        self._reread_epsilon(v, now, result)
                elif self.dfa.nullable:
                    epsilon_pairs(self.out, batch, now, result, () if self.paths else None)
                continue
            for u, _v, _ts, exp, _wit in batch:
                if exp > now or not inserts:
                    starts.update(self.graph.sources_of(self.letters[port], u))
        return starts

    def _reevaluate(self, starts: set, now: int, result: list, cuts: bool) -> None:
        """Search every root that reaches a node of `starts` again; admit what widens the
        output and, with `cuts` (end records: `retract`), cut what now ends earlier than
        emitted."""
        if not starts:
            return
        dfa, graph, budget = self.dfa, self.graph, self.budget
        budget.renew()
        admit, cut, until = self.out.admit, self.out.cut, self.out.until
        for x in graph.roots_reaching(starts, dfa.start, now):
            found = search_root(x, dfa, graph, now, budget)
            before = self.reached.get(x, set())
            for y in before - found.keys() if cuts else ():
                got = cut((x, y), now, now, self.paths)
                if got is not None:
                    g_ts, g_end = got
                    result.append((x, y, g_ts, g_end, () if self.paths else None))
            for y, (exp, ts, entries) in found.items():
                emitted = until((x, y))
                if emitted is not None and exp < emitted:
                    if not cuts:
                        continue
                    got = cut((x, y), exp, now, self.paths)
                else:
                    got = admit((x, y), ts, exp, now)
                if got is not None:
                    g_ts, g_exp = got
                    result.append((x, y, g_ts, g_exp, self._witness(entries)))
            keep = set(found) if cuts else before | found.keys()
            if keep:
                self.reached[x] = keep
            else:
                self.reached.pop(x, None)

    def _witness(self, entries: tuple) -> tuple | None:
        """The edges of a simple path (each input tuple's own witness, in path order)."""
        if not self.paths:
            return None
        return tuple(edge for entry in entries for edge in (entry.wit or ()))

    def _reread_epsilon(self, v: str, now: int, result: list) -> None:
        """`(v, v)` after an end record of the domain: its ε-pair's interval, or nothing."""
        best = now
        if self.domain is not None:
            entry = self.domain.get(v, v)
            if entry is not None and entry.exp > best:
                best = entry.exp
        got = self.out.cut((v, v), best, now, self.paths)
        if got is not None:
            g_ts, g_end = got
            result.append((v, v, g_ts, g_end, () if self.paths else None))

    def purge(self, now: int) -> None:
        self.out.purge(now)

    def size(self) -> int:
        return len(self.out) + sum(len(ys) for ys in self.reached.values())

    def state(self) -> dict:
        """The output's coverage and the vertices each root had results for."""
        return {
            "output": state_of(self.out),
            "reached": {x: sorted(ys) for x, ys in self.reached.items()},
        }

    def restore(self, state: dict) -> None:
        restore_into(self.out, state["output"])
        self.reached = {x: set(ys) for x, ys in state["reached"].items()}

    def _check(self) -> None:
        self.out._check()
