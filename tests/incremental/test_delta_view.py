"""The delta view (incremental/deltas.py) against a one-heap-entry-per-event model of it.

The model is the straightforward reading of specs/semantics.md §5 the view first had: every
segment end and every event its own heap entry. The bucketed view must release the same events
in the same order for any rows a producer can send (starts, widenings, end records, gaps) and
any frontiers.
"""

from __future__ import annotations

import heapq
import math

from hypothesis import given, settings
from hypothesis import strategies as st
from sgq.incremental.deltas import DeltaView


class HeapDeltaView:
    """Feed results (anything with src, trg, label, ts, exp) and the engine's time frontier."""

    __slots__ = ("open", "ends", "events", "dropped")

    def __init__(self) -> None:
        self.open: dict[tuple, list] = {}  # key -> [start, until]
        self.ends: list = []  # (until, key), possibly stale
        self.events: list = []  # (τ, 0 for '+' / 1 for '-', src, trg, label)
        self.dropped: dict[tuple, int] = {}  # (τ, key) -> '+' events withdrawn before release

    def feed(self, results, frontier=math.inf) -> list[tuple]:
        """Take new results; return the events at instants `< frontier`, in order."""
        for r in results:
            key = (r[0], r[1], r[2])
            ts, exp = r[3], r[4]
            seg = self.open.get(key)
            if seg is not None and ts <= seg[1]:
                if exp > seg[1]:
                    seg[1] = exp
                    heapq.heappush(self.ends, (exp, key))
                elif exp < seg[1] and ts >= seg[0]:  # an end record
                    if exp > seg[0]:
                        seg[1] = exp
                        heapq.heappush(self.ends, (exp, key))
                    else:  # cut where it began: it never showed
                        del self.open[key]
                        drop = (seg[0], key)
                        self.dropped[drop] = self.dropped.get(drop, 0) + 1
                continue
            if exp <= ts:
                continue
            if seg is not None:  # a gap: the old segment ends before this one starts
                heapq.heappush(self.events, (seg[1], 1, *key))
            self.open[key] = [ts, exp]
            heapq.heappush(self.ends, (exp, key))
            heapq.heappush(self.events, (ts, 0, *key))
        return self._release(frontier)

    def close(self) -> list[tuple]:
        """End of input: every remaining event, the '-' of every open key included."""
        return self._release(math.inf)

    def _release(self, frontier) -> list[tuple]:
        ends, open_, events, dropped = self.ends, self.open, self.events, self.dropped
        while ends and ends[0][0] < frontier:
            until, key = heapq.heappop(ends)
            seg = open_.get(key)
            if seg is not None and seg[1] == until:
                del open_[key]
                heapq.heappush(events, (until, 1, *key))
        out = []
        while events and events[0][0] < frontier:
            tau, op, s, t, label = heapq.heappop(events)
            if op == 0 and dropped:
                drop = (tau, (s, t, label))
                n = dropped.get(drop)
                if n:
                    if n == 1:
                        del dropped[drop]
                    else:
                        dropped[drop] = n - 1
                    continue
            out.append((tau, "+" if op == 0 else "-", s, t, label))
        return out


@st.composite
def row_streams(draw):
    """Rounds of rows as a coalescing producer sends them: per round (instant `now`), rows of
    a few keys that start at `now`, widen a live key, or cut it (end records)."""
    keys = [("a", "b", "L"), ("a", "c", "L"), ("b", "a", "L"), ("c", "c", "M")]
    live: dict = {}
    now = 0
    rounds = []
    for _ in range(draw(st.integers(1, 12))):
        now += draw(st.integers(0, 4))
        rows = []
        for key in draw(st.lists(st.sampled_from(keys), max_size=4)):
            seg = live.get(key)
            if seg is not None and seg[1] <= now:
                seg = None
            kind = draw(st.sampled_from(["start", "widen", "cut"]))
            if seg is None:
                exp = now + draw(st.integers(1, 6))
                live[key] = [now, exp]
                rows.append((*key, now, exp))
            elif kind == "widen":
                seg[1] += draw(st.integers(1, 5))
                rows.append((*key, seg[0], seg[1]))
            elif kind == "cut":
                seg[1] = draw(st.integers(now, seg[1]))
                rows.append((*key, seg[0], seg[1]))
                if seg[1] <= now:
                    del live[key]
        rounds.append((now, rows))
    return rounds


@given(row_streams(), st.booleans())
@settings(max_examples=300, deadline=None)
def test_bucketed_view_releases_what_the_heap_model_releases(rounds, release_each_round):
    view, model = DeltaView(), HeapDeltaView()
    got, want = [], []
    for now, rows in rounds:
        frontier = now if release_each_round else -math.inf
        got += view.feed(rows, frontier)
        want += model.feed(rows, frontier)
        assert got == want
    assert got + view.close() == want + model.close()
    assert not view.open and not view.plus and not view.minus and not view.instants


def test_native_keys_enter_once_go_on_at_their_end_and_leave_when_settled():
    """A coalesced output's keys as native deltas (operators/native_keys.py): a key enters at
    its start; a widening says nothing; a coverage ending exactly at the round's instant goes
    on when re-derived then (no '-' and '+' at 5); the key leaves at its last end once the
    frontier has passed it; an explicit deletion turns the live keys into ordinary ones."""
    from sgq.incremental.operators.native_keys import NativeKeys
    from sgq.incremental.state.coalescer import Coalescer

    view = DeltaView()
    native = NativeKeys(Coalescer(), view, "Answer", reverse=False)
    native.admit([(("a", "b"), (0, 5)), (("a", "c"), (0, 5))], 0)
    native.admit([(("a", "b"), (0, 7))], 1)  # a widening
    native.settle(5)  # nothing ends before 5
    native.admit([(("a", "c"), (3, 9))], 5)  # ends at 5, re-derived at 5: goes on
    native.settle(8)  # (a, b) ended at 7
    native.admit([(("c", "d"), (8, 12))], 8)
    native.stop(9)  # a deletion at 9: (a, c) and (c, d) become ordinary keys
    events = view.feed([("c", "d", "Answer", 8, 9)], 10)  # an end record cuts (c, d) at 9
    events += view.close()
    assert events == [
        (0, "+", "a", "b", "Answer"),
        (0, "+", "a", "c", "Answer"),
        (7, "-", "a", "b", "Answer"),
        (8, "+", "c", "d", "Answer"),
        (9, "-", "a", "c", "Answer"),
        (9, "-", "c", "d", "Answer"),
    ]
