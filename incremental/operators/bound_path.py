"""PATH bound to sources (sga/algebra.py BoundPath, made by sga/rewrite/bind_path_sources.py):
S-PATH (operators/path.py, thesis Appendix A) keeping the spanning trees of the seeded roots
only, the roots that are sources of the seed stream (its last input port).

Contract: while a root `x` has a seed tuple `(x, z)` valid, every PATH pair `(x, y)` is in
the output at every instant, with S-PATH's intervals; every tuple ever emitted is a PATH pair
over its whole interval (specs/semantics.md §6), so the PATTERN above, which joins the seed
stream on `x`, gives the PATH's results exactly. The pairs of roots no longer seeded may stay
in the output until they expire: they are true.

- A root enters the seeded set when a seed tuple of it comes while it holds none (`until`,
  per root the latest end of its seed tuples): its tree is built then from the window's
  edges valid at that instant, by S-PATH's Expand from `(x, s0)` over the letters' shared
  indexes (the RAPQ Δ-tree of a new root), and its pairs go out through the Coalescer.
- An edge extends the trees that hold its source (Expand / Propagate); an edge leaving the
  start state opens a tree for a seeded root only. The automaton never returns to its start
  state (the rewrite's condition), so `(u, s0)` is in `T_u` only.
- A root leaves when its seed tuples end: at the purge after their end, or at a deletion of
  the seed tuples (`retract`, re-read from the seed's index). Its tree is dropped; what it
  emitted stays true while no input edge is deleted. Such a root is *stale* until its
  pairs expire: a round with an end record of an input edge cuts every live pair of every
  stale root to what its tree holds then, to that instant when it has no tree (end
  records), so nothing emitted outlives its paths. A stale root that comes back gets a new
  tree, which holds each live pair at least as long as emitted, unless an edge was deleted
  in that very round (then the cut re-reads its pairs against the new tree).
- Deletions of input edges in the seeded trees: as S-PATH (`PathOp.retract`).
- Bound to pairs (the reader joins the seed stream on both endpoints): the contract holds for
  the pairs `(x, y)` that are seed tuples, so only those go out, when the tree reaches them
  or, for a pair that becomes a seed tuple later, then, as its tree holds it (`_offer`).

Cost: S-PATH's per update, over the seeded trees only; a new root costs one Expand of its
tree over the window; a round deleting input edges also costs one pass over the output's
keys when some root is stale.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...sga.algebra import Path
from ..sgt import NEVER
from ..stateful import restore_into, state_of
from .base import BuildContext
from .path import PathOp

if TYPE_CHECKING:
    from ...sga.algebra import BoundPath


class BoundPathOp(PathOp):
    """S-PATH over the seeded roots of a BoundPath (see the module docstring)."""

    __slots__ = ("windows", "seed_index", "until", "stale", "later", "opening", "pairs")

    STATE_VERSION = 1  # S-PATH's state, the seeded roots' ends, the stale roots' ends

    def __init__(self, node: BoundPath, ctx: BuildContext) -> None:
        super().__init__(Path(node.letters, node.regex, node.label), ctx)
        self.windows = [ctx.index_of(inp) for inp in node.letters]
        self.seed_index = ctx.index_of(node.seeds)
        self.pairs = node.pairs  # only the pairs that are seed tuples go out
        self.until: dict = {}  # seeded root -> the latest end of its seed tuples
        self.stale: dict = {}  # dropped root -> the latest end of its pairs then
        start = self.dfa.start
        #: per letter port: the moves that leave the start state, and the others
        self.opening = [
            [(s, q) for s, q in self.dfa.by_letter.get(letter, ()) if s == start]
            for letter in self.letters
        ]
        self.later = [
            [(s, q) for s, q in self.dfa.by_letter.get(letter, ()) if s != start]
            for letter in self.letters
        ]

    def process(self, batches: list, now: int) -> list:
        """The round's edges to the seeded trees, then the roots its seed tuples add."""
        result: list = []
        nletters = len(self.letters)
        until = self.until
        insert, rows = self.delta_path.insert, self._emit
        reached: list = []
        for port, batch in enumerate(batches[:nletters]):
            if not batch:
                continue
            opening, later = self.opening[port], self.later[port]
            every = opening + later
            for u, v, ts, exp, wit in batch:
                if exp <= now:
                    continue
                insert(u, v, every if u in until else later, ts, exp, wit, now, reached)
                if reached:
                    rows(reached, now, result)
                    reached.clear()
        seeds = batches[nletters] if len(batches) > nletters else None
        if seeds:
            for x, _z, _ts, exp, _wit in seeds:
                if exp <= now:
                    continue
                held = until.get(x)
                if held is None:
                    until[x] = exp
                    self._open(x, now, result)
                    continue
                if exp > held:
                    until[x] = exp
                if self.pairs:
                    self._offer(x, _z, now, result)
        return result

    def _emit(self, reached: list, now: int, result: list) -> None:
        """S-PATH's rows; bound to pairs, only for the pairs that are seed tuples now (a
        pair that becomes one later goes out then: `_offer`)."""
        if self.pairs:
            get, kept = self.seed_index.get, []
            for found in reached:
                x, y, _key, _ts, _exp, _before = found
                if _seeded(get(x, y), now):
                    kept.append(found)
            reached = kept
        self._rows(reached, now, result)

    def _offer(self, x, y, now: int, result: list) -> None:
        """Bound to pairs: the row of `(x, y)` as `T_x` holds it, a seed tuple now."""
        top = self.delta_path.top_final(x, y, now)
        if top is None:
            return
        exp, key = top
        ts, _exp, _parent, _wit = self.delta_path.trees[x][key]
        got = self.out.admit((x, y), ts, exp, now)
        if got is not None:
            g_ts, g_exp = got
            wit = self.delta_path.path_to(x, key) if self.paths else None
            result.append((x, y, g_ts, g_exp, wit))

    def _open(self, x, now: int, result: list) -> None:
        """Build `T_x` from the window's edges valid at `now` (the root `x` enters). If
        `x` is stale, its tree holds each of its live pairs at least as long as emitted
        unless an edge was deleted since it left: only in this round, whose `retract` then
        cuts them (`_cut_stale`)."""
        insert, rows = self.delta_path.insert, self._emit
        reached: list = []
        for port, moves in enumerate(self.opening):
            if not moves:
                continue
            row = self.windows[port].by_src.get(x)
            if not row:
                continue
            for w, e in list(row.items()):
                if e.exp > now and e.ts <= now:
                    insert(x, w, moves, e.ts, e.exp, e.wit, now, reached)
                    if reached:
                        rows(reached, now, result)
                        reached.clear()

    def _drop(self, x, now: int) -> None:
        """The root `x` leaves: its tree goes, its live pairs stay (stale) until they end."""
        del self.until[x]
        state = self.delta_path
        end = NEVER
        for v in state.final_vertices(x) | {x}:
            top = state.top_final(x, v, now)
            if top is not None:
                exp, _key = top
                end = max(end, exp)
        state.drop_root(x)
        end = max(end, self.stale.get(x, NEVER))  # (pairs from before it came back)
        if end > now:
            self.stale[x] = end

    def retract(self, batches: list, now: int) -> list:
        """Seed tuples deleted: roots left with none leave. Input edges deleted: S-PATH's
        reconnection in the seeded trees, and every live pair of a stale root cut now."""
        nletters = len(self.letters)
        seeds = batches[nletters] if len(batches) > nletters else None
        if seeds:
            for x in {x for x, _z, _ts, _exp, _wit in seeds}:
                if x in self.until:
                    self._reseed(x, now)
        letters = batches[:nletters]
        if not any(letters):
            return []
        result = super().retract(letters, now)
        if self.stale:
            self._cut_stale(now, result)
        return result

    def _cut_stale(self, now: int, result: list) -> None:
        """Every live pair of a stale root cut to what its tree holds now (to `now` when it
        has none: the root is not seeded, or its new tree was built from a window that a
        deleted edge already left): an edge on the paths it was emitted for may be the one
        deleted. The roots are stale no more."""
        cut, stale, until, state = self.out.cut, self.stale, self.until, self.delta_path
        for key in self.out.keys():
            x, y = key
            if x not in stale:
                continue
            top = state.top_final(x, y, now) if x in until else None
            end = now
            if top is not None:
                end, _key = top
            got = cut(key, end, now)
            if got is not None:
                g_ts, g_end = got
                result.append((x, y, g_ts, g_end, None))
        stale.clear()

    def _reseed(self, x, now: int) -> None:
        """`until[x]` re-read from the seed's index (its round's final state); `x` leaves
        when no seed tuple of it is valid after `now`."""
        row = self.seed_index.by_src.get(x)
        end = max((e.exp for e in row.values()), default=NEVER) if row else NEVER
        if end > now:
            self.until[x] = end
        else:
            self._drop(x, now)

    def purge(self, now: int) -> None:
        super().purge(now)
        for x in [x for x, end in self.until.items() if end <= now]:
            self._drop(x, now)
        for x in [x for x, end in self.stale.items() if end <= now]:
            del self.stale[x]

    def size(self) -> int:
        return super().size() + len(self.until) + len(self.stale)

    def state(self) -> dict:
        """S-PATH's state (trees and output coverage), the seeded roots with the ends of
        their seed tuples, the stale roots with the ends of their pairs."""
        return {
            "spath": state_of(self.delta_path),
            "output": state_of(self.out),
            "seeded": [[x, end] for x, end in self.until.items()],
            "stale": [[x, end] for x, end in self.stale.items()],
        }

    def restore(self, state: dict) -> None:
        restore_into(self.delta_path, state["spath"])
        restore_into(self.out, state["output"])
        self.until = {x: end for x, end in state["seeded"]}
        self.stale = {x: end for x, end in state["stale"]}

    def _check(self) -> None:
        super()._check()
        assert set(self.delta_path.trees) <= set(self.until), "a tree of an unseeded root"


def _seeded(entry, now: int) -> bool:
    """Whether the seed index entry `entry` (or None) is valid after `now`."""
    return entry is not None and entry.exp > now
