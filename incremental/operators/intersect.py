"""INTERSECT: a PATTERN that is the intersection of its two inputs, computed on their delta
streams.

`Answer(x, y) :- a+(x, y), [b/c](x, y).` joins two inputs on both variables: its snapshot at
every instant is the intersection of theirs (snapshot reducibility, specs/semantics.md §3), so
its output enters a key when the second input to hold it gets it and leaves it when the first
one to lose it does. Where such a PATTERN is an output of an engine in delta mode and reads two
inputs that no other operator reads (runtime `intersections`), each input writes its native
deltas (or, after a deletion turned them into rows, its rows) into a DeltaView of its own, a
*side*, as it would write the engine's output; this operator keeps which keys each side holds
and, when the engine's view releases the instants before its frontier, releases both sides up
to it and writes the keys that enter and leave the intersection there.

A PATH read by a PATTERN otherwise gives rows, every widening of every pair, which the PATTERN
indexes, joins and purges, though only the pairs the other input holds can join; through
sides, the PATH keeps one closure of the window and reports only entries and exits (operators/
path_closure.py, native deltas). Cost: per instant, a few set operations per source of each
side's events (in C, O(1) per event), plus the sides' own release (incremental/deltas.py
`release_chunks`: the fans as written); state: the keys each side holds, as a set of targets
per source. Where one input is a closure PATH and the other a PATTERN, the closure names only
the pairs the PATTERN holds (operators/sideways.py, `mask`). The why: docs/design/
intersections.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..deltas import DeltaView
from ..stateful import StateError
from .base import BuildContext, PhysicalOperator

if TYPE_CHECKING:
    from ...sga.algebra import Op
    from .sideways import SidewaysMask


class IntersectOp(PhysicalOperator):
    __slots__ = ("sides", "reverse", "label", "held", "mask")

    STATE_VERSION = 3  # the keys each side holds (the output's: those both hold), the mask

    def __init__(self, node: Op, ctx: BuildContext, sides: tuple, reverse: tuple) -> None:
        """`sides`: the DeltaViews the two inputs write to (the runtime made them before the
        inputs were built); `reverse[i]`: input i's variables are the head's swapped (its
        keys are written swapped: the runtime's `output_key`)."""
        super().__init__(node)
        self.sides: tuple[DeltaView, DeltaView] = sides
        self.reverse = reverse
        self.label = node.label
        # the keys each side holds, `{label: {src: {trg, ...}}}` (the label: the output's,
        # under an output RENAME too); the output's are those both hold
        self.held: tuple[dict, dict] = ({}, {})
        #: where a closure side names only the pairs its partner holds (operators/
        #: sideways.py; set by the runtime), their mask, kept here for checkpoints
        self.mask: SidewaysMask | None = None
        view = ctx.delta_sink(node)
        view.upstream.append(self)

    def process(self, batches: list, now: int | None) -> list:
        """Rows of an input whose native deltas were turned into rows (a deletion): to its
        side, as the engine feeds its own view; nothing goes out as rows."""
        label = self.label
        for i, batch in enumerate(batches):
            if batch:
                if self.reverse[i]:
                    rows = [(t, s, label, ts, exp) for s, t, ts, exp, _w in batch]
                else:
                    rows = [(s, t, label, ts, exp) for s, t, ts, exp, _w in batch]
                self.sides[i].feed_grouped(rows, float("-inf"))
        return []

    def retract(self, batches: list, now: int) -> list:
        """End records are rows of the side (DeltaView reads an end record by its interval)."""
        return self.process(batches, now)

    def spans(self) -> bool:
        return True  # the rows' own instants are read, not the round's

    def release_into(self, view: DeltaView, frontier: float) -> None:
        """Release both sides up to `frontier` and write the intersection's events at those
        instants into `view` (called by `view` before it releases its own). Each side's
        events are read per source, as its fans give them: a source's targets meet the other
        side's in one set operation, with no key made for an event that changes nothing."""
        events: dict = {}  # τ -> [(side, sign, [(label, {src: [trg, ...]}), ...]), ...]
        for i, side in enumerate(self.sides):
            for tau, sign, chunks in side.release_chunks(frontier):
                got = events.get(tau)
                if got is None:
                    events[tau] = [(i, sign, chunks)]
                else:
                    got.append((i, sign, chunks))
        held = self.held
        for tau in sorted(events):
            # the losses first: a key both sides held that one of them loses at τ leaves (a
            # side that loses a key and gets it again at τ never lost it: it leaves and
            # enters the output at τ, which the output's view nets); then the gains: a key
            # the other side holds enters
            groups = events[tau]
            leaving: list = []
            for i, sign, chunks in groups:
                if sign == "-":
                    for label, fans in chunks:
                        mine = held[i].get(label)
                        if mine is None:
                            continue
                        other = held[1 - i].get(label, _NONE)
                        for src, trgs in fans.items():
                            have = mine.get(src)
                            if have is None:
                                continue
                            there = other.get(src)
                            if there:
                                gone = there.intersection(trgs)
                                gone &= have
                                leaving += [(src, trg, label) for trg in gone]
                            have.difference_update(trgs)
                            if not have:
                                del mine[src]
            entering: list = []
            for i, sign, chunks in groups:
                if sign == "+":
                    for label, fans in chunks:
                        mine = held[i].get(label)
                        if mine is None:
                            mine = held[i][label] = {}
                        other = held[1 - i].get(label, _NONE)
                        for src, trgs in fans.items():
                            there = other.get(src)
                            have = mine.get(src)
                            if have is None:
                                mine[src] = set(trgs)
                                new = there.intersection(trgs) if there else ()
                            else:
                                new = there.intersection(trgs) - have if there else ()
                                have.update(trgs)
                            if new:
                                entering += [(src, trg, label) for trg in new]
            if entering:
                view.enter(tau, entering)
            if leaving:
                view.leave(tau, leaving)

    def size(self) -> int:
        return sum(sum(map(len, fans.values())) for side in self.held for fans in side.values())

    def state(self) -> dict:
        return {
            "sides": [side.state() for side in self.sides],
            "held": [
                sorted(
                    (src, trg, label)
                    for label, fans in side.items()
                    for src, trgs in fans.items()
                    for trg in trgs
                )
                for side in self.held
            ],
            "sideways": None if self.mask is None else self.mask.state(),
        }

    def restore(self, state: dict) -> None:
        for side, saved in zip(self.sides, state["sides"]):
            side.restore(saved)
        self.held = tuple(_held(keys) for keys in state["held"])
        if (self.mask is None) != (state["sideways"] is None):
            raise StateError("a sideways mask saved where this plan has none, or the reverse")
        if self.mask is not None:
            self.mask.restore(state["sideways"])


def _held(keys) -> dict:
    """`{label: {src: {trg, ...}}}` of keys `(src, trg, label)`."""
    held: dict = {}
    for src, trg, label in keys:
        held.setdefault(label, {}).setdefault(src, set()).add(trg)
    return held


_NONE: dict = {}  # (the other side's keys of a label it has none of: read only)
