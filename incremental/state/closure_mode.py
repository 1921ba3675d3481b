"""What the closure PATH's two modes have in common (state/interval_rows.py, operators/
closure_deltas.py): a closure of the product of the window graph and the regex's automaton
(`closure`: a LevelClosure or a WindowClosure), fed a round's product edges.

Contract: `product_edges(batches, now)` interns the vertices of a round's valid input tuples
and returns the product edges `(a, b, exp)`; `exceeds_levels` says whether they would make
too many live levels; `new_rows` is the round's empty result; `density` the closure's size
against S-PATH's trees (operators/path_closure.py `_sparse`). Cost: O(tuples x moves) per
round. The why: docs/design/path-closure.md.
"""

from __future__ import annotations

from ..fan_rows import FanRows


class ClosureMode:
    """The closure of a PATH mode, the automaton's moves per input port (`moves[port]`:
    `(p, q)` on the port's letter), whether the rows go out as fans (`fans`), and whether a
    new edge source is interned cold (`cold`: the followers of interval rows)."""

    __slots__ = ("closure", "moves", "fans", "cold")

    def __init__(self, closure, moves: list, fans: bool, cold: bool) -> None:
        self.closure = closure
        self.moves = moves
        self.fans = fans
        self.cold = cold

    def product_edges(self, batches: list, now: int) -> list:
        """The product edges `(a, b, exp)` of the tuples of `batches` valid after `now`, a
        batch per letter."""
        closure, moves, cold = self.closure, self.moves, self.cold
        ns, intern = closure.nstates, closure.intern
        edges: list = []
        for port in range(min(len(moves), len(batches))):
            batch = batches[port]
            if not batch:
                continue
            letter = moves[port]
            if not letter:
                continue
            for u, v, _ts, exp, _wit in batch:
                if exp <= now:
                    continue
                a = intern(u, exp, cold) * ns
                b = intern(v, exp) * ns
                for s, q in letter:
                    edges.append((a + s, b + q, exp))
        return edges

    def exceeds_levels(self, edges: list, most: int) -> bool:
        """Whether `edges` would make more than `most` live levels."""
        closure = self.closure
        live = closure.live_levels()  # (a bound first: a round's new levels are fewer)
        return (
            live + len(edges) > most and live + closure.new_levels(e for _a, _b, e in edges) > most
        )

    def new_rows(self) -> FanRows | list:
        """The round's empty result: fans where only the engine's output reads the rows (made
        after the round's vertices are interned: `plain` holds for them)."""
        return FanRows(self.closure.plain) if self.fans else []

    def density(self) -> tuple:
        """`(rows, pairs, start pairs, words per bitset)` of the closure (ProductNodes)."""
        return self.closure.density()
