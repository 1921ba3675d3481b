"""PATH under simple-path semantics (RSPQ, RPQ paper §4.1; specs/semantics.md §4a) for automata
that may conflict: `simple [a/b*](x, y)` holds when a path from x to y that visits no vertex
twice spells a word of L(R). (Conflict-free automata never come here: the rewrite
sga/rewrite/relax_simple_paths.py runs them on the arbitrary-path operators.)

As Algorithm RSPQ, this keeps S-PATH's spanning trees (the Δ index, state/delta_path.py: per
root `x` and product node the walk that expires last, maintained by Expand / Propagate, expiry
and Delete at S-PATH's cost) and per tree the results whose walk conflicts:

- a final node `(y, f)` of `T_x` bounds the simple result `(x, y)` from above; where the tree's
  walk to it is simple, or becomes simple by cuts between states without a conflict
  (Definitions 15-16, state/tree_conflicts.py), the simple result is exactly the tree's:
  *marked*, nothing more to do, so conflict-free inputs cost what S-PATH costs plus one check
  of the walk per node that grows;
- otherwise the result is *unmarked* (`unmarked[x]`, the paper's Unmark) and its best simple
  path is searched (state/simple_search.py, the paper's Extend through unmarked nodes: a
  budgeted depth-first search over the simple paths of `T_x`'s product nodes).

Rounds:
- new tuples (`process`): the trees take each sgt; every final node that grows is checked
  (marked, or searched), and the unmarked results of each tree that a new edge leaves (a tree
  holding `(u, s)`) are searched again for a simple path that ends later than the one
  emitted. Each result is admitted on `[ts, exp)` of its best simple path, so the output's
  coverage of `(x, y)` always ends where its best simple path does;
- expiry: the trees drop expired nodes (S-PATH's purge); the output needs nothing (the paths
  left after an expiry end no later than the one emitted, append-only input);
- end records (`retract`, explicit deletions): the trees reconnect the nodes below deleted tree
  edges (S-PATH's Delete); a simple path through a deleted `(u, v)` runs through `(u, s)`, so
  every result of each tree that held `(u, s)` is checked (or searched) again from scratch and
  cut where it now ends earlier. ε-pairs `(v, v)` of a nullable regex re-read the domain index.

Intervals: a path is valid on the intersection of its edges' intervals; a result on the union
over its simple paths, coalesced. `(x, x)` only by the empty path: the ε-pairs of the domain
port (VERTICES) when ε ∈ L(R). Witnesses (`--paths`) are the best simple path's edges.

Cost: S-PATH's per tuple, plus per grown final node its walk's length; where conflicts are,
the search, exponential at worst and bounded by `PlanOptions.simple_budget` steps per round.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...base.suffix_languages import conflict_free_states
from ..state.coalescer import Coalescer
from ..state.delta_path import DeltaPath
from ..state.simple_search import Budget, Graph, search_unmarked
from ..state.tree_conflicts import moving_letters, simple_walk
from ..stateful import restore_into, state_of
from .base import BuildContext, PhysicalOperator
from .path import epsilon_pairs, path_automaton

if TYPE_CHECKING:
    from ...sga.algebra import Op


class SimplePathOp(PhysicalOperator):
    """PATH with `simple` whose automaton can conflict (see the module docstring)."""

    __slots__ = (
        "dfa",
        "letters",
        "delta_path",
        "graph",
        "letters_of",
        "free",
        "unmarked",
        "out",
        "paths",
        "domain",
        "budget",
    )

    STATE_VERSION = 2  # S-PATH's trees, the output's coverage and the unmarked results

    def __init__(self, node: Op, ctx: BuildContext) -> None:
        super().__init__(node)
        self.dfa, self.letters = path_automaton(node)
        window = {letter: ctx.index_of(inp) for letter, inp in zip(self.letters, node.inputs)}
        self.delta_path = DeltaPath(self.dfa, window)
        self.graph = Graph(self.dfa, self.letters, window)
        self.letters_of = moving_letters(self.dfa)
        self.free = conflict_free_states(self.dfa)  # past these states no walk conflicts
        self.unmarked: dict[str, set] = {}  # root -> vertices whose tree walk conflicts
        self.out = Coalescer()
        self.paths = ctx.paths
        nullable_domain = node.domain is not None and self.dfa.nullable
        self.domain = ctx.index_of(node.domain) if nullable_domain else None
        self.budget = Budget(ctx.options.simple_budget, f"'{node.label}'")

    # ---- new tuples
    def process(self, batches: list, now: int) -> list:
        result: list = []
        self.budget.renew()
        state, unmarked = self.delta_path, self.unmarked
        inv = state.inv
        grown: dict[str, set] = {}  # root -> vertices whose final node grew
        touched: set = set()  # roots with unmarked results whose trees a new edge leaves
        reached: list = []
        nletters = len(self.letters)
        for port, batch in enumerate(batches):
            if not batch:
                continue
            if port == nletters:
                if self.dfa.nullable:
                    epsilon_pairs(self.out, batch, now, result, () if self.paths else None)
                continue
            moves = self.dfa.by_letter.get(self.letters[port])
            if not moves:
                continue
            for u, v, ts, exp, wit in batch:
                if exp <= now:
                    continue
                if unmarked:
                    for s, _q in moves:
                        roots = inv.get((u, s))
                        if roots:
                            if len(roots) < len(unmarked):
                                touched.update(x for x in roots if x in unmarked)
                            else:
                                touched.update(x for x in unmarked if x in roots)
                state.insert(u, v, moves, ts, exp, wit, now, reached)
                for x, y, _key, _ts, _exp, _before in reached:
                    if x != y:
                        got = grown.get(x)
                        if got is None:
                            grown[x] = {y}
                        else:
                            got.add(y)
                reached.clear()
        for x in touched.union(grown):
            fresh = grown.get(x, set())
            targets = fresh | unmarked.get(x, set()) if x in touched else fresh
            self._resolve(x, targets, fresh, now, result, inserts=True)
        return result

    def _resolve(self, x: str, targets, fresh, now: int, result: list, inserts: bool) -> None:
        """The simple results `(x, y)` for `y` in `targets`: marked where `T_x`'s walk gives
        them (checked for the `fresh` ones, whose node grew, and for the marked ones), searched
        where it conflicts; admitted where they end later than emitted and, after end records
        (not `inserts`), cut where they end earlier."""
        state = self.delta_path
        opened = self.unmarked.get(x, set())
        bounds: dict = {}  # unmarked y -> the tree's exp (an upper bound)
        known: dict = {}  # unmarked y -> the simple result emitted, still valid
        for y in targets:
            top = state.top_final(x, y, now)
            if top is None:
                opened.discard(y)
                if not inserts:
                    self._emit(x, y, None, now, result, True)
                continue
            upper, key = top
            got = None
            if y in fresh or y not in opened:
                got = simple_walk(state, self.letters_of, x, key, now)
            if got is not None:
                opened.discard(y)
                self._emit(x, y, got, now, result, not inserts)
                continue
            bounds[y] = upper
            if inserts:
                until = self.out.until((x, y))
                if until is not None and until > now:
                    known[y] = until
        if bounds:
            reach = state.nodes(x)
            found = search_unmarked(
                x, self.dfa, self.graph, now, self.budget, bounds, reach, known, self.free
            )
            for y, upper in bounds.items():
                got = found.get(y)
                if got is not None or not inserts:
                    self._emit(x, y, got, now, result, not inserts)
                have = known.get(y, now)
                if got is not None:
                    have, _ts, _entries = got
                if have < upper:
                    opened.add(y)
                else:
                    opened.discard(y)
        if opened:
            self.unmarked[x] = opened
        else:
            self.unmarked.pop(x, None)

    def _emit(self, x: str, y: str, got, now: int, result: list, cuts: bool) -> None:
        """Make the output's coverage of `(x, y)` end where its best simple path `got`
        (`(exp, ts, entries)`, None: there is none) does: widen it, or with `cuts` cut it (an
        end record, also for a new witness of the same end with `--paths`)."""
        key = (x, y)
        until = self.out.until(key)
        exp, ts, entries = (now, now, ()) if got is None else got
        if got is not None and (until is None or exp > until):
            span = self.out.admit(key, ts, exp, now)
        elif not cuts:
            return
        else:
            span = self.out.cut(key, exp, now, self.paths)
        if span is not None:
            start, end = span
            wit = tuple(w for e in entries for w in (e.wit or ())) if self.paths else None
            result.append((x, y, start, end, wit))

    # ---- end records
    def retract(self, batches: list, now: int) -> list:
        result: list = []
        self.budget.renew()
        state = self.delta_path
        nletters = len(self.letters)
        touched: set = set()  # roots whose trees held the source of a deleted edge
        below: dict = {}  # root -> [child nodes of deleted tree edges]
        for port, batch in enumerate(batches):
            if not batch:
                continue
            if port == nletters:
                for v, _v, _ts, _exp, _wit in batch:
                    self._reread_epsilon(v, now, result)
                continue
            moves = self.dfa.by_letter.get(self.letters[port], ())
            for u, v, _ts, exp, _wit in batch:
                for s, _q in moves:
                    roots = state.inv.get((u, s))
                    if roots:
                        touched.update(roots)
                state.below_tree_edges(u, v, moves, exp, now, False, below)
        for x, starts in below.items():
            state.reconnect(x, starts, now)
        for x in touched:
            ys = state.final_vertices(x)
            self._resolve(x, ys, ys, now, result, inserts=False)
        return result

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
        self.delta_path.purge(now)
        self.out.purge(now)
        top_final = self.delta_path.top_final
        for x in list(self.unmarked):
            ys = {y for y in self.unmarked[x] if top_final(x, y, now) is not None}
            if ys:
                self.unmarked[x] = ys
            else:
                del self.unmarked[x]

    def size(self) -> int:
        return len(self.delta_path) + len(self.out) + sum(map(len, self.unmarked.values()))

    def state(self) -> dict:
        """S-PATH's trees, the output's coverage and the unmarked results of each root."""
        return {
            "trees": state_of(self.delta_path),
            "output": state_of(self.out),
            "unmarked": {x: sorted(ys) for x, ys in self.unmarked.items()},
        }

    def restore(self, state: dict) -> None:
        restore_into(self.delta_path, state["trees"])
        restore_into(self.out, state["output"])
        self.unmarked = {x: set(ys) for x, ys in state["unmarked"].items()}

    def _check(self) -> None:
        self.delta_path._check()
        self.out._check()
