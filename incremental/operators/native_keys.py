"""Native deltas for a coalesced output (PATTERN, UNION): its keys enter and leave the
engine's DeltaView directly, without rows (incremental/deltas.py, "Native producers").

An operator whose output is the engine's, in delta mode, and read by no other operator
(runtime._native_outputs) needs no rows: the view would only coalesce them again. Its
Coalescer keeps each key's coverage as before, but says when a key *enters* (`Coalescer.entering`:
it had no coverage reaching `now`; a coverage ending exactly at `now` goes on without a break),
and the keys whose coverage ends before the frontier *leave* at that end (`settle`, and a
purge at a slide's start, which is a settle at `now`: a key ending at `now` may still go on in
this round). Widenings cost one comparison and no expiry entry. The first explicit deletion
turns the live keys into ordinary output keys (`stop`, as the PATH operators do) and rows take
over: an end record needs the segments the view then holds.

A producer may go further and admit only the keys that may enter, not widenings of live ones
(`rederive`: PATTERN once its renewals are many, whose widened inputs would otherwise re-join
every combination they are in, each only to move an end). Its recorded ends are then lower
bounds, and a key whose recorded end comes up is re-derived from the inputs' indexes: it
leaves only if no derivation outlives that end (Coalescer.leaving_rederived). Before a round
with deletions the ends are made exact again and the producer admits widenings as before
(`exact_ends`).

Cost: O(1) per key admitted, O(keys leaving) per settle, plus the keys' entries and exits in
the view (no segment, no expiry entry there).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING

from ..deltas import csv_plain
from ..sgt import FOREVER, NEVER
from ..state.coalescer import Coalescer

if TYPE_CHECKING:
    from ..deltas import DeltaView
    from .sideways import SidewaysMask


class NativeKeys:
    """The output keys of the Coalescer `out` as native deltas in `sink`, under `label`
    (`reverse`: an output RENAME swapped src and trg)."""

    __slots__ = ("out", "sink", "label", "reverse", "rederive", "few", "tap")

    def __init__(
        self, out: Coalescer, sink: DeltaView, label: str, reverse: bool, few: bool = False
    ) -> None:
        """`few`: the keys are few beside the other producers' (the ε-pairs of a PATH: a
        key per vertex): their vertices are checked for what CSV would quote as they go to
        the view, so an instant they share with a producer that knows its vertices plain
        (the closure PATH's fans) is written without a check of its whole text."""
        self.out = out
        self.sink = sink
        self.label = label
        self.reverse = reverse
        self.few = few
        #: set by a producer that admits new keys only, not widenings: `(keys, cutoff) ->
        #: {key: (ts, exp)}`, its longest derivations now, read by key
        #: (Coalescer.leaving_rederived)
        self.rederive: Callable[[Mapping, int], dict] | None = None
        #: told of the keys that enter (an intersection's sideways mask: operators/
        #: sideways.py), or None
        self.tap: SidewaysMask | None = None

    def admit(self, rows: Iterable[tuple], now: int) -> None:
        """Take `(key, (ts, exp))` results of the round at `now` (a PATTERN's keys: its dict's
        items); the keys that enter go to the sink at their start, as fans (one target list
        per source: no event tuple per key, and the view sorts and writes them per source)."""
        entering = self.out.entering(rows, now, self.reverse)
        if self.tap is not None:
            self.tap.want(entering, now)
        label, enter, few = self.label, self.sink.enter_fans, self.few
        for ts, fans in entering.items():
            enter(ts, label, fans, few and _plain(fans))

    def settle(self, frontier: float) -> None:
        """Every key whose coverage ends before `frontier` leaves then (its '-' is final:
        nothing before `frontier` can come)."""
        upto = frontier - 1 if frontier < FOREVER else FOREVER
        if not self.out.ends_by(upto):  # most instants: nothing ends (one test, no walk)
            return
        reverse = self.reverse
        if self.rederive is None:
            leaving = self.out.leaving(upto, reverse)
        else:
            leaving = self.out.leaving_rederived(upto, self.rederive, reverse)
        label, leave, few = self.label, self.sink.leave_fans, self.few
        for until, fans in leaving.items():
            leave(until, label, fans, few and _plain(fans))

    def rederive_ends(self, rederive: Callable[[Mapping, int], dict]) -> None:
        """The producer admits new keys only, not widenings: re-derive ends by `rederive`."""
        self.rederive = rederive

    def exact_ends(self, now: int) -> None:
        """Before a round at `now` that may hold explicit deletions: from now on the producer
        admits widenings too, and every recorded end is made exact (as of `now - 1`: what an
        end record then cuts, `stop` hands over)."""
        if self.rederive is not None:
            self.out.rederive_all(self.rederive, now - 1)
            self.rederive = None

    def stop(self, now: int) -> None:
        """Before an explicit deletion at `now`: what ended has left, and every live key
        becomes an ordinary output key (`adopt_as_rows`), so that rows cut it."""
        self.settle(now)
        adopt_as_rows(self.out, self.sink, self.out.coverage(), self.label, self.reverse)


def _plain(fans: dict) -> bool:
    """Whether every vertex of `{src: [trg, ...]}` is `csv_plain`."""
    return all(csv_plain(src) and all(map(csv_plain, trgs)) for src, trgs in fans.items())


def adopt_as_rows(out: Coalescer, sink, results: dict, label: str, reverse: bool) -> None:
    """Native results `{(x, y): until}` become ordinary output keys, in the Coalescer `out`
    and in the sink's open segments, so that rows widen and cut them from now on. Their true
    start is not kept: both take NEVER for it, so no later derivation starts before it (the
    Coalescer would move its start, the view would not) and every cut reads as an end record;
    a key that entered at `now` and is cut at `now` gets a '+' and a '-' at `now`, which
    cancel. (The closure PATH's hand-over at a deletion, S-PATH's and PATTERN's first
    deletion.)"""
    for (x, y), until in results.items():
        out.adopt((x, y), NEVER, until)
        sink.adopt((y, x, label) if reverse else (x, y, label), NEVER, until)
