"""Sideways information passing into an intersection's closure side: the closure PATH reports
only the pairs its partner, a PATTERN, holds (docs/design/intersections.md).

`Answer(x, y) :- a2q+(x, y), c2a(x, m), c2q(m, y).` runs as the intersection of the closure
`a2q+` and the chain `[c2a/c2q]` (operators/intersect.py). Its snapshot at every instant is
`A ∩ C`; a side that holds `A ∩ M` for any `M ⊇ C` gives the same intersection. So the
closure's side need not hear of every pair the closure reaches, only of the pairs in `M`, the
*wanted* pairs: every key the PATTERN admitted, until a sweep finds it held no more. The
closure keeps its whole state (it must, to know what it reaches) but names only the wanted
pairs it gains and loses (`ClosureDeltas`, operators/closure_deltas.py), and the
intersection keeps and intersects those only.

Exactness rests on three rules, each at one instant `now` of the closure:

- a pair becomes wanted when the PATTERN admits it (`want`, called from its NativeKeys in the
  round of its first instant, which the runtime runs before the closure's: runtime `order`),
  and enters the closure's side at `now` if the closure holds it then: its state, its levels
  up to `now` dropped, is the closure's at `now` before the round's inputs;
- a pair stops being wanted, once the wanted pairs are twice the PATTERN's keys, when the
  PATTERN does not hold it (`_sweep`, within a `want` at `now`), and leaves the closure's side
  at `now` if the closure holds it (no key of the PATTERN's, so none of the output's, is lost);
- `off(now)` (the first deletion, or the closure's hand-over to S-PATH) names every pair the
  closure holds and did not name, and the side hears of every pair from then on.

Cost: a lookup per source the closure's changes touch, a set test per wanted target of a
source that changes (or per target it gains, if fewer), a bit test per pair that becomes or
stops being wanted, and a sweep, O(wanted), each time they double; state: the wanted pairs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..state.coalescer import Coalescer
    from .closure_deltas import ClosureDeltas


class SidewaysMask:
    """The pairs an intersection's closure side reports (`wanted`), from its partner's keys."""

    __slots__ = ("wanted", "count", "closure", "partner", "on")

    def __init__(self) -> None:
        self.wanted: dict[str, set] = {}  # src -> {trg, ...}: the pairs the closure names
        self.count = 0  # how many pairs are wanted
        self.closure: ClosureDeltas | None = None  # (set by the runtime)
        #: the partner's Coalescer: its live keys `(src, trg)` are those it holds now
        self.partner: Coalescer | None = None  # (set by the runtime)
        self.on = True

    def want(self, entering: dict, now: int) -> None:
        """The partner's keys `{instant: {src: [trg, ...]}}` admitted in its round at `now`:
        those not wanted yet are, and enter the closure's side at `now` where the closure
        holds them. Once the wanted pairs are twice the partner's keys (and some), those it
        does not hold stop being wanted (`_sweep`): a key that leaves and comes back costs
        nothing, and the mask stays within a constant of the partner's keys."""
        if not self.on:
            return
        closure = self.closure
        closure.begin(now)  # (the levels up to `now` go first: the closure's state at `now`)
        wanted = self.wanted
        new: dict = {}
        for fans in entering.values():
            for src, trgs in fans.items():
                have = wanted.get(src)
                if have is None:
                    wanted[src] = set(trgs)
                    fresh = trgs
                else:
                    fresh = [trg for trg in trgs if trg not in have]
                    if not fresh:
                        continue
                    have.update(fresh)
                got = new.get(src)
                if got is None:
                    new[src] = list(fresh)
                else:
                    got += fresh
                self.count += len(fresh)
        if new:
            closure.name_pairs(now, new, "+")
        if self.count > 2 * len(self.partner.live) + SWEEP_SLACK:
            self._sweep(now)

    def _sweep(self, now: int) -> None:
        """The wanted pairs the partner does not hold stop being wanted: those the closure
        holds leave its side at `now`."""
        held = self.partner.live
        out: dict = {}
        for src, trgs in list(self.wanted.items()):
            gone = [trg for trg in trgs if (src, trg) not in held]
            if gone:
                out[src] = gone
                trgs.difference_update(gone)
                if not trgs:
                    del self.wanted[src]
                self.count -= len(gone)
        if out:
            self.closure.name_pairs(now, out, "-")

    def off(self, now: int) -> None:
        """From `now` on the closure's side hears of every pair: those it holds and did not
        name enter at `now`."""
        if not self.on:
            return
        self.on = False
        closure = self.closure
        closure.begin(now)
        wanted = self.wanted
        unnamed: dict = {}
        for src, trg in closure.results():
            if src not in wanted or trg not in wanted[src]:
                unnamed.setdefault(src, []).append(trg)
        if unnamed:
            closure.name_pairs(now, unnamed, "+", held=True)
        self.wanted, self.count = {}, 0

    def state(self) -> dict:
        return {
            "on": self.on,
            "wanted": sorted((src, trg) for src, trgs in self.wanted.items() for trg in trgs),
        }

    def restore(self, state: dict) -> None:
        self.on = state["on"]
        self.wanted = {}
        for src, trg in state["wanted"]:
            self.wanted.setdefault(src, set()).add(trg)
        self.count = len(state["wanted"])


#: wanted pairs beyond twice the partner's keys before a sweep (a small mask is never swept)
SWEEP_SLACK = 1024
