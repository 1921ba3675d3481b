"""WSCAN(ω, β): an input label's edges as sgts (thesis Def 30, 5.4; specs/semantics.md §2).

Interval: an edge inserted at `t` is valid on `[t, ⌊t/β⌋·β + ω)`; every edge of one slide bucket
expires at the same instant. Expiry needs no message: the interval carries it. Re-inserting a
valid edge in the same bucket is covered and dropped (coalescing); in a later bucket it widens
the key's coverage and is emitted.

Explicit deletions (`scan`, for a batch holding `-` edges): the events of one instant apply in
input order (specs/semantics.md §1), so per key only the net effect leaves the operator. A `-` matches
when the key is valid at that point (before the batch, or by an earlier `+` of the batch);
otherwise it is counted in `unmatched` and changes nothing. A key valid before the batch and
not after it gets an end record `(s, t, start, now)` (a negative tuple, incremental/sgt.py); a
key deleted and re-inserted stays valid without a break (`[start, now)` then `[now, exp)`), so
only a widening, if any, is emitted. Cost per edge: O(1), plus O(log n) when emitted.
"""

from __future__ import annotations

from ..sgt import wscan_expiry
from .base import CoalescedOperator


class WScanOp(CoalescedOperator):
    __slots__ = ("label", "window", "slide", "paths", "deleted", "unmatched")

    def __init__(self, node, ctx) -> None:
        super().__init__(node)
        self.label = node.label
        self.window = node.window
        self.slide = node.slide
        self.paths = ctx.paths
        self.deleted = 0  # '-' edges that matched a valid edge
        self.unmatched = 0  # '-' edges that matched nothing

    def process(self, batches, now):
        """`batches[0]`: raw `+` edges `(src, trg, t, '+')` of this label, all with `t == now`
        (a batch with `-` edges goes to `scan`)."""
        admit, label, paths = self.out.admit, self.label, self.paths
        exp = wscan_expiry(now, self.window, self.slide)  # every edge here has `time == now`
        result = []
        for s, t, time, op in batches[0]:
            if op != "+":
                raise ValueError(f"WSCAN[{label}]: a '-' edge reached process(); use scan()")
            got = admit((s, t), time, exp, now)
            if got is not None:
                result.append((s, t, got[0], got[1], ((s, t, label),) if paths else None))
        return result

    def scan(self, edges, now):
        """Raw edges of this label at `now`, some of them `-`: `(new sgts, end records)`."""
        live = self.out.live
        net: dict = {}  # key -> [valid before the batch, valid now, inserted]
        for s, t, _time, op in edges:
            key = (s, t)
            state = net.get(key)
            if state is None:
                cur = live.get(key)
                valid = cur is not None and cur[1] > now
                state = net[key] = [valid, valid, False]
            if op == "+":
                state[1] = state[2] = True
            elif state[1]:
                state[1] = False
                self.deleted += 1
            else:
                self.unmatched += 1
        exp = wscan_expiry(now, self.window, self.slide)
        admit, cut, label, paths = self.out.admit, self.out.cut, self.label, self.paths
        result: list = []
        ended: list = []
        for key, (before, valid, inserted) in net.items():
            if valid:
                if inserted:
                    got = admit(key, now, exp, now)
                    if got is not None:
                        result.append(
                            (
                                key[0],
                                key[1],
                                got[0],
                                got[1],
                                ((key[0], key[1], label),) if paths else None,
                            )
                        )
            elif before:
                got = cut(key, now, now)
                ended.append((key[0], key[1], got[0], got[1], None))
        return result, ended
