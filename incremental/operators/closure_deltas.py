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
        if entering and self.mask is not None and self.mask.on:
            entering = self._wanted(entering)
        if entering:
            # (x, x) is an ε-pair's, or none (a simple PATH), never the closure's
            fans = self._fans(entering, self.own_vertex)
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
        masked = self.mask is not None and self.mask.on
        for level, rows in self.closure.drop_reporting(upto, strict, self.own_vertex):
            if rows and masked:
                rows = self._wanted(rows)
            if not rows:
                continue
            fans = self._fans(rows)
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
    def _wanted(self, rows: list) -> list:
        """`(start node, vertices)` rows cut to the wanted pairs: a source none of whose
        pairs is wanted is left out at one lookup; otherwise each wanted target is tested
        against the row's vertices (a set of each list, once: rows share lists), or each
        vertex against the wanted, whichever are fewer."""
        names, vid, ns = self.closure.names, self.closure.vid, self.closure.nstates
        wanted = self.mask.wanted
        among: dict = {}  # id(vertices) -> the set of them
        out = []
        for x, vertices in rows:
            want = wanted.get(names[x // ns])
            if not want:
                continue
            if len(want) < len(vertices):
                got = among.get(id(vertices))
                if got is None:
                    got = among[id(vertices)] = set(vertices)
                kept = []
                for y in want:
                    v = vid.get(y)
                    if v is not None and v * ns in got:
                        kept.append(v * ns)
            else:
                kept = [v for v in vertices if names[v // ns] in want]
            if kept:
                out.append((x, kept))
        return out

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

    def _fans(self, rows, own: bool = False) -> dict:
        """`{src: [trg, ...]}` of `(start node, vertices)` rows (a source in several rows
        gets their lists joined; sources may share a target list: the view copies before it
        extends one). `own`: x's own vertex is left out."""
        names, ns = self.closure.names, self.closure.nstates
        fans: dict = {}
        first = fans.setdefault
        per_list: dict = {}  # rows share vertex lists (state/window_closure.py): names once
        if not own:
            for x, vertices in rows:
                trgs = per_list.get(id(vertices))
                if trgs is None:
                    trgs = per_list[id(vertices)] = [names[y // ns] for y in vertices]
                src = names[x // ns]
                got = first(src, trgs)
                if got is not trgs:
                    fans[src] = got + trgs
            return fans
        for x, vertices in rows:
            got = per_list.get(id(vertices))
            if got is None:
                trgs = [names[y // ns] for y in vertices]
                # (a short list is searched as it is: no set to build)
                got = per_list[id(vertices)] = (
                    trgs,
                    set(vertices) if len(vertices) > 8 else vertices,
                )
            trgs, among = got
            if x - x % ns in among:
                xv = names[x // ns]
                trgs = [t for t in trgs if t != xv]
                if not trgs:
                    continue
            src = names[x // ns]
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
