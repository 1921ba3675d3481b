"""PATH by S-PATH: regular path queries over interval-annotated streams (thesis Def 34, 5.4
and Appendix A, with the erratum fixed: ExpandableTrees takes trees whose `(u, s)` is still
valid).

The regex becomes a minimal DFA (incremental/dfa.py). The Δ-PATH index (state/delta_path.py)
keeps one spanning tree per root vertex; per `(root, vertex, state)` the path that expires
last, and runs Expand / Propagate for every new sgt. This operator routes the input ports
to it and coalesces what it reaches: a final-state node yields `(root, v)` on the node's
interval, re-emitted only when its coverage widens (a Coalescer).

Intervals: a path is valid on the intersection of its edges' intervals; a node keeps the max
exp over paths (and the min ts while it stays valid), so expiry needs no re-derivation for
append-only input: when a node expires no other path to it remains. Inputs may be derived
streams (PATTERN output) with arbitrary intervals: only `ts <= now < exp` is assumed. ε-pairs
of a nullable regex come from the `domain` port (VERTICES). Cost per new sgt: O(trees holding
(u, s) × nodes improved × their out-degree).

Deletions (`retract`, thesis 4.3.2 Algorithm Delete with S-PATH's max-expiry coalescing): an end
record of `(u, v)` with letter l matters only where it is a *tree edge* (Def 24); deleting a
non-tree edge only changes the window graph (the shared index). The Δ-PATH index invalidates
the subtrees below the tree edges and reconnects each node through its best valid derivation
(`DeltaPath.reconnect`). Each final-state node that changed re-reads its output key `(x, v)`:
the best final node, or the ε-pair from the domain index; an end record follows when that
ends earlier than emitted.
Cost per end record: O(trees holding (v, q)) plus O(invalidated nodes × their in- and
out-degree × log) in the trees where it is a tree edge.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...sga.algebra import regex_labels
from ..dfa import compile_regex
from ..state.coalescer import Coalescer
from ..state.delta_path import DeltaPath
from ..stateful import restore_into, state_of
from .base import BuildContext, PhysicalOperator

if TYPE_CHECKING:
    from ...sga.algebra import Op


class PathOp(PhysicalOperator):
    """PATH by S-PATH. `out` may be given: the Coalescer of what was emitted so far (a
    hand-over from operators/path_closure.py)."""

    __slots__ = ("dfa", "letters", "delta_path", "out", "owns_out", "paths", "domain")

    def __init__(self, node: Op, ctx: BuildContext, out: Coalescer | None = None) -> None:
        super().__init__(node)
        self.dfa, self.letters = path_automaton(node)
        window = {letter: ctx.index_of(inp) for letter, inp in zip(self.letters, node.inputs)}
        self.delta_path = DeltaPath(self.dfa, window)
        self.owns_out = out is None  # else the Coalescer of the operator handing over
        self.out = Coalescer() if out is None else out
        self.paths = ctx.paths
        nullable_domain = node.domain is not None and self.dfa.nullable
        self.domain = ctx.index_of(node.domain) if nullable_domain else None

    def process(self, batches: list, now: int) -> list:
        result: list = []
        state = self.delta_path
        nletters = len(self.letters)
        admit, paths = self.out.admit, self.paths
        reached: list = []
        for port, batch in enumerate(batches):
            if not batch:
                continue
            if port == nletters:
                self._epsilon(batch, now, result)
                continue
            moves = self.dfa.by_letter.get(self.letters[port])
            if not moves:
                continue
            insert = state.insert
            for u, v, ts, exp, wit in batch:
                if exp <= now:
                    continue
                insert(u, v, moves, ts, exp, wit, now, reached)
                if not reached:
                    continue
                for x, y, key, n_ts, n_exp in reached:
                    got = admit((x, y), n_ts, n_exp, now)
                    if got is not None:
                        g_ts, g_exp = got
                        wit_out = state.path_to(x, key) if paths else None
                        result.append((x, y, g_ts, g_exp, wit_out))
                reached.clear()
        return result

    def _epsilon(self, batch, now, result) -> None:
        if self.dfa.nullable:
            epsilon_pairs(self.out, batch, now, result, () if self.paths else None)

    def retract(self, batches: list, now: int) -> list:
        state = self.delta_path
        nletters = len(self.letters)
        below: dict = {}  # root -> [child nodes of deleted tree edges]
        keys: dict = {}  # output keys to re-read
        for port, batch in enumerate(batches):
            if not batch:
                continue
            if port == nletters:
                for v, _v, _ts, _exp, _wit in batch:
                    keys[(v, v)] = None
                continue
            moves = self.dfa.by_letter.get(self.letters[port], ())
            for u, v, _ts, exp, _wit in batch:
                state.below_tree_edges(u, v, moves, exp, now, self.paths, below)
        finals = self.dfa.finals
        for x, starts in below.items():
            for v, q in state.reconnect(x, starts, now):
                if q in finals:
                    keys[(x, v)] = None
        return self.reread(keys, now)

    def reread(self, keys, now) -> list:
        """End records for the output keys `(x, v)` whose best derivation now ends earlier
        than emitted: the best final node of `v` in `T_x`, or the ε-pair of the domain."""
        state, paths, domain = self.delta_path, self.paths, self.domain
        cut = self.out.cut
        result = []
        for key in keys:
            x, v = key
            best, wit = now, None
            if domain is not None and x == v:
                entry = domain.get(v, v)
                if entry is not None and entry.exp > best:
                    best, wit = entry.exp, ()
            final = state.best_final(x, v, best, paths)
            if final is not None:
                best, wit = final
            got = cut(key, best, now, paths)
            if got is not None:
                g_ts, g_end = got
                result.append((x, v, g_ts, g_end, wit if paths else None))
        return result

    def purge(self, now: int) -> None:
        self.delta_path.purge(now)
        self.out.purge(now)

    def size(self) -> int:
        return len(self.delta_path) + len(self.out)

    def state(self) -> dict:
        """The Δ-PATH trees, and the output's coverage when this operator owns it."""
        saved = {"trees": state_of(self.delta_path)}
        if self.owns_out:
            saved["output"] = state_of(self.out)
        return saved

    def restore(self, state: dict) -> None:
        restore_into(self.delta_path, state["trees"])
        if self.owns_out:
            restore_into(self.out, state["output"])

    def _check(self) -> None:
        self.delta_path._check()
        self.out._check()


def path_automaton(node) -> tuple:
    """`(minimal DFA, letters)` of a PATH node; its inputs come one per letter, in order."""
    letters = regex_labels(node.regex)
    if len(letters) != len(node.inputs):
        raise ValueError(f"PATH {node.label}: {len(node.inputs)} inputs for letters {letters}")
    return compile_regex(node.regex), letters


def epsilon_pairs(out, batch, now, result, wit) -> None:
    """(v, v) for every vertex `v` of the active domain (the VERTICES port of a PATH whose
    regex is nullable: ε ∈ L(R), specs/semantics.md), through the Coalescer `out`."""
    admit = out.admit
    for v, _v, ts, exp, _wit in batch:
        got = admit((v, v), ts, exp, now)
        if got is not None:
            g_ts, g_exp = got
            result.append((v, v, g_ts, g_exp, wit))
