"""The delta view of interval results: `(τ, '+'|'-', src, trg, label)` (SEMANTICS.md §5).

'+' when a key enters the output snapshot, '-' when it leaves. Results arrive as rows
`(src, trg, label, ts, exp)` read as incremental/engine.py says: a start, a widening, or an
end record (an explicit deletion cut the interval: it now ends at `exp`). A key's coverage is
kept as one open segment `[start, until)`, widened by overlapping or touching rows and
shortened by end records. An event at instant τ is released only once time has passed τ (every
input with time ≤ τ consumed: `frontier > τ`), so a '-' is never premature, an end record at
the deletion time moves a not yet released '-' there, and a segment cut where it began takes
its unreleased '+' with it. The order within one instant is deterministic: '+' before '-', then
by (src, trg, label). `close()` releases the rest (time runs on).
"""

from __future__ import annotations

import heapq
import math


class DeltaView:
    """Feed results (anything with src, trg, label, ts, exp) and the engine's time frontier."""

    __slots__ = ("open", "ends", "events", "dropped")

    def __init__(self) -> None:
        self.open: dict[tuple, list] = {}   # key -> [start, until]
        self.ends: list = []                # (until, key), possibly stale
        self.events: list = []              # (τ, 0 for '+' / 1 for '-', src, trg, label)
        self.dropped: dict[tuple, int] = {}  # (τ, key) -> '+' events withdrawn before release

    def feed(self, results, frontier=math.inf) -> list[tuple]:
        """Take new results; return the events at instants `< frontier`, in order."""
        for r in results:
            key = (r.src, r.trg, r.label)
            ts, exp = r.ts, r.exp
            seg = self.open.get(key)
            if seg is not None and ts <= seg[1]:
                if exp > seg[1]:
                    seg[1] = exp
                    heapq.heappush(self.ends, (exp, key))
                elif exp < seg[1] and ts >= seg[0]:   # an end record
                    if exp > seg[0]:
                        seg[1] = exp
                        heapq.heappush(self.ends, (exp, key))
                    else:   # cut where it began: it never showed
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


def delta_rows(results) -> list[tuple]:
    """The whole delta view of a finished run's results."""
    view = DeltaView()
    return view.feed(results) + view.close()
