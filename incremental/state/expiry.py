"""An exp-ordered index bucketed by expiry instant (thesis 5.4: the expiry priority queue).

Window expiries are slide-aligned (`⌊t/β⌋·β + ω`), and intersections only pick among them, so
few distinct instants exist at a time: one list per instant plus a heap of the instants makes
`add` O(1) (O(log k) for a new instant) and `expired(now)` O(entries returned). Entries may be
stale (their owner has since moved to a later exp); the owner checks when they come out.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from typing import Any


class ExpiryBuckets:
    __slots__ = ("buckets", "instants")

    STATE_VERSION = 1

    def __init__(self) -> None:
        self.buckets: dict[int, list] = {}
        self.instants: list[int] = []

    def add(self, exp: int, item: Any) -> None:
        """Remember `item` as expiring at `exp`."""
        bucket = self.buckets.get(exp)  # (most exist: no second call)
        if bucket is None:
            bucket = self.bucket(exp)
        bucket.append(item)

    def bucket(self, exp: int) -> list:
        """The list of the items expiring at `exp`, made if new: a caller adding many items
        of one exp appends them to it (no call per item)."""
        bucket = self.buckets.get(exp)
        if bucket is None:
            bucket = self.buckets[exp] = []
            heapq.heappush(self.instants, exp)
        return bucket

    def any_by(self, now: int) -> bool:
        """Whether some item expires at or before `now` (O(1))."""
        return bool(self.instants) and self.instants[0] <= now

    def expired(self, now: int) -> list:
        """Remove and return every item with `exp <= now`."""
        instants, buckets = self.instants, self.buckets
        out: list = []
        while instants and instants[0] <= now:
            out.extend(buckets.pop(heapq.heappop(instants)))
        return out

    def expired_buckets(self, now: int) -> list[tuple[int, list]]:
        """Remove and return every instant `exp <= now` with its items, `[(exp, items)]` in
        exp order (a caller that needs each item's instant loops over the items itself)."""
        instants, buckets = self.instants, self.buckets
        out: list = []
        while instants and instants[0] <= now:
            exp = heapq.heappop(instants)
            out.append((exp, buckets.pop(exp)))
        return out

    def pairs(self) -> Iterator[tuple[int, Any]]:
        """Every `(exp, item)` held (for `_check`)."""
        for exp, bucket in self.buckets.items():
            for item in bucket:
                yield exp, item

    def __len__(self) -> int:
        return sum(len(b) for b in self.buckets.values())

    def state(self) -> dict:
        """The checkpoint contract (incremental/stateful.py): the items by instant."""
        return {"items_by_exp": self.buckets}

    def restore(self, state: dict) -> None:
        self.buckets = {int(exp): list(items) for exp, items in state["items_by_exp"].items()}
        self.instants = sorted(self.buckets)  # a sorted list is a heap

    def _check(self) -> None:
        assert sorted(self.instants) == sorted(self.buckets), "instants out of sync"
        assert all(self.buckets.values())
