"""Native deltas of a PATH on one window closure (operators/path_closure.py delegates to it in
a delta-mode engine whose output is the PATH, or a RENAME of it read by nothing else:
runtime._native_outputs).

A delta needs a result's instant of entry and the level it leaves at, not its exp on entry, so
the state is one closure of the whole window (state/window_closure.py), not one per level. A
pair enters the output when a round first reaches it (`insert`), and leaves at the level L it
is last in: dropping L (`drop`: before the next round, at a purge, or when the frontier passes
L, `settle`) rebuilds the closure without L's tuples and reports exactly the pairs whose
bottleneck is L. Pairs are per vertex; with a nullable regex `(v, v)` is the domain's ε-pair's
(a native key of `out`, operators/native_keys.py), never the closure's.

Contract: the closure side of operators/path_closure.py (`insert`, `begin`, `end`, `purge`,
`settle`, ...), results written to the engine's DeltaView (`sink`) as fans `{src: [trg, ...]}`
per instant. Cost: a round's edges one closure update each; a dropped level one rebuild,
O(edges) bitset operations; O(1) per delta. The why: docs/design/path-closure.md.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import TYPE_CHECKING

from ..state.closure_mode import ClosureMode
from ..state.coalescer import Coalescer
from ..state.window_closure import WindowClosure
from ..stateful import restore_into, state_of
from .native_keys import NativeKeys, adopt_as_rows
from .path import enter_epsilon

if TYPE_CHECKING:
    from .sideways import SidewaysMask


class ClosureDeltas(ClosureMode):
    """A PATH's results as native deltas of `sink`, under `label` (`reverse`: an output
    RENAME swapped src and trg)."""

    STATE_VERSION = 1  # the window closure and the ε-pairs' keys

    __slots__ = ("out", "epsilon", "sink", "label", "reverse", "own_vertex", "mask")

    def __init__(
        self, auto, moves: list, sink, key: tuple, own_vertex: bool, nullable: bool, fans: bool
    ) -> None:
        """`own_vertex`: `(v, v)` is no result of the closure (an ε-pair's, or none for a
        simple PATH); `nullable`: the domain's ε-pairs are native keys of `out`."""
        super().__init__(WindowClosure(auto.size, auto.start, auto.finals), moves, fans, cold=False)
        self.out = Coalescer()  # the ε-pairs' keys
        self.sink = sink
        self.label, self.reverse = key
        self.own_vertex = own_vertex
        self.epsilon = (
            NativeKeys(self.out, sink, self.label, self.reverse, few=True) if nullable else None
        )
        #: the pairs an intersection's partner holds, the only ones named while it is on
        #: (operators/sideways.py; the ε-pairs are named all the same)
        self.mask: SidewaysMask | None = None

    # ---- a round
    def begin(self, now: int) -> list:
        """Before a round at `now`: the pairs of the levels `<= now` leave."""
        self.drop(now, strict=False)
        return []

    def insert(self, edges: list, now: int, result) -> float:
        """The round's product edges; the pairs they make reachable enter at `now`. Returns
        the bitset words the closure spent (`take_work`)."""
        entering: list = []
        self.closure.insert(edges, entering)
        # (x, x) is an ε-pair's, or none (a simple PATH), never the closure's
        fans = self._fans(entering, self.own_vertex) if entering else None
        if fans:
            if self.reverse:
                self.sink.enter(now, self._reversed_keys(fans))
            else:
                self.sink.enter_fans(now, self.label, fans, self.closure.plain)
        return self.closure.take_work()

    def admit_epsilon(self, batch: list, now: int, result) -> None:
        enter_epsilon(self.epsilon, batch, now)

    def end(self, now: int, result) -> None:
        """Nothing: the levels at `now` go before the next round."""

    def drop(self, upto, strict: bool) -> None:
        """Drop the levels `<= upto` (`< upto` when `strict`): what leaves with each level L
        leaves the output at L."""
        for level, rows in self.closure.drop_reporting(upto, strict):
            fans = self._fans(rows, self.own_vertex) if rows else None
            if not fans:
                continue
            if self.reverse:
                self.sink.leave(level, self._reversed_keys(fans))
            else:
                self.sink.leave_fans(level, self.label, fans, self.closure.plain)

    # ---- between rounds
    def defers_rows(self) -> bool:
        return False

    def coarsen(self, every: int) -> None:
        """Nothing: one closure of the window."""

    def purge(self, now: int) -> None:
        self.drop(now, strict=False)
        self.closure.purge(now)
        if self.epsilon is not None:
            self.epsilon.settle(now)  # an ε-pair ending at `now` may still go on this round
        else:
            self.out.purge(now)

    def settle(self, frontier: float) -> None:
        """Time has reached `frontier`: every level before it is over, so its results' '-'
        are final."""
        if self.epsilon is not None:
            self.epsilon.settle(frontier)
        self.drop(frontier, strict=True)

    def __len__(self) -> int:
        return len(self.closure) + len(self.out)

    # ---- the hand-over to S-PATH
    def stop(self, now: int) -> None:
        """Before a hand-over at an explicit deletion: every live result becomes an ordinary
        output key, in `out` and in the sink's open segments (`adopt_as_rows`), so S-PATH's
        rows widen and cut it as if it had been rows all along (the ε-pairs' keys first)."""
        if self.epsilon is not None:
            self.epsilon.stop(now)
            self.epsilon = None
        closure = self.closure
        names, ns = closure.names, closure.nstates
        live = closure.live_pairs(self.own_vertex)
        results = {(names[x // ns], names[y // ns]): until for (x, y), until in live.items()}
        adopt_as_rows(self.out, self.sink, results, self.label, self.reverse)

    def handed_over(self, now: int) -> Coalescer:
        """What was emitted as rows (the ε-pairs' keys, or every result after `stop`)."""
        return self.out

    def holds(self, x, y) -> bool:
        """Whether the result `(x, y)` entered (S-PATH's replay announces only the others)."""
        return self.closure.holds(x, y)

    def leave_missing(self, results: set, now: int) -> None:
        """The results the closure held that S-PATH's replay does not (this round's end
        records cut their derivations before the replay read the indexes) leave now."""
        gone = self.closure.results(self.own_vertex) - results
        if gone:
            label = self.label
            keys = [(y, x, label) if self.reverse else (x, y, label) for x, y in gone]
            self.sink.leave(now, sorted(keys))

    # ---- sideways (operators/sideways.py)
    def name_pairs(self, now: int, pairs: dict, sign: str, held: bool = False) -> None:
        """Pairs `{x: [y, ...]}` (vertex names) that become wanted (`sign` '+') or stop being
        wanted ('-') at `now`: those the closure holds enter or leave the sink at `now`
        (`held`: they are known to be held)."""
        held_targets, own = self.closure.held_targets, self.own_vertex
        fans: dict = {}
        for x, ys in pairs.items():
            got = ys if held else held_targets(x, ys)
            if own and x in got:
                got = [y for y in got if y != x]
            if got:
                fans[x] = got
        if fans:
            if sign == "+":
                self.sink.enter_fans(now, self.label, fans)
            else:
                self.sink.leave_fans(now, self.label, fans)

    def results(self) -> set:
        """Every result `(x, y)` the closure holds now."""
        return self.closure.results(self.own_vertex)

    # ---- fans
    def _reversed_keys(self, fans: dict) -> list:
        """The flat keys `(trg, src, label)` of fans, for an output RENAME that swapped src
        and trg (the view's fans are by source, so these go flat)."""
        label = self.label
        return [(t, s, label) for s, trgs in fans.items() for t in trgs]

    def _fans(self, rows, own: bool) -> dict:
        """`{src: [trg, ...]}` of `(start node, vertex mask)` rows (a source in several rows
        gets their lists joined; sources may share a target list: the view copies before it
        extends one). Each mask is named by the closure's kept sorted lists
        (`sorted_vertex_names`); rows sharing a mask object name it once. `own`: x's own
        vertex is left out. While the sideways mask is on, only the pairs it wants are named
        (operators/sideways.py): a source none of whose pairs is wanted is left out at one
        lookup; otherwise each wanted target is tested against the row's names (a set of them,
        once per list), or each name against the wanted, whichever are fewer."""
        closure = self.closure
        names, ns, named = closure.names, closure.nstates, closure.sorted_vertex_names
        wanted = self.mask.wanted if self.mask is not None and self.mask.on else None
        fans: dict = {}
        first = fans.setdefault
        per_mask: dict = {}  # id(mask) -> its names (rows share masks: state/window_closure.py)
        among: dict = {}  # id(a mask's names) -> the set of them (tested for wanted targets)
        for x, vm in rows:
            src = names[x // ns]
            if wanted is not None:
                want = wanted.get(src)
                if not want:
                    continue
            full = per_mask.get(id(vm))
            if full is None:
                full = per_mask[id(vm)] = named(vm)
            if wanted is None:
                trgs = full
                if own:  # (its own vertex found by bisection in the sorted names)
                    i = bisect_left(full, src)
                    if i < len(full) and full[i] == src:
                        trgs = full[:i] + full[i + 1 :]
            else:
                if len(want) < len(full):
                    got = among.get(id(full))
                    if got is None:
                        got = among[id(full)] = set(full)
                    trgs = [y for y in want if y in got]
                else:
                    trgs = [y for y in full if y in want]
                if own and src in want:
                    trgs = [y for y in trgs if y != src]
            if not trgs:
                continue
            got = first(src, trgs)
            if got is not trgs:
                fans[src] = got + trgs
        return fans

    # ---- checkpoints and checks
    def state(self) -> dict:
        return {"closure": state_of(self.closure), "epsilon_pairs": state_of(self.out)}

    def restore(self, state: dict) -> None:
        restore_into(self.closure, state["closure"])
        restore_into(self.out, state["epsilon_pairs"])

    def _check(self, inputs: list) -> None:
        assert self.epsilon is None or self.epsilon.out is self.out, "ε-pairs in another out"
        closure = self.closure
        closure._check(closure.graph_of(inputs, self.moves))
        self.out._check()
