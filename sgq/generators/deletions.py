"""A bounded pool of recently inserted edge keys that `-` lines may delete.

A `-` line must name an edge `(src, trg, label)` inserted strictly earlier and not deleted since
(specs/semantics.md §1-2), and should be recent, so that it is still valid in a typical window and
really truncates something (the thesis's deletion experiments, Ch. 4.5). Keeping every insert
would cost O(N) memory, so the pool keeps at most `capacity` keys: an insert at time `t` waits
in `fresh` until time moves past `t` (so a deletion never shares its insert's instant), then
joins the pool, replacing a random member when the pool is full (older keys fade out
geometrically). Taking a key removes it, so one insert is deleted at most once.
"""

from __future__ import annotations

from collections.abc import Callable

Key = tuple[str, str, str]


class DeletionPool:
    """`add(key, t)` after each insert, `take(t)` for a key to delete at `t` (or None)."""

    __slots__ = ("capacity", "pool", "members", "fresh", "fresh_t", "random")

    def __init__(self, random: Callable[[], float], capacity: int = 1 << 15):
        self.capacity = capacity
        self.pool: list[Key] = []
        self.members: set[Key] = set()
        self.fresh: dict[Key, None] = {}
        self.fresh_t: int | None = None
        self.random = random

    def add(self, key: Key, t: int) -> None:
        """Record an insert of `key` at `t` (times never decrease). O(1) amortised."""
        if t != self.fresh_t:
            self._settle(t)
        fresh = self.fresh
        # Past capacity, only keys already in the pool are tracked (take() must skip them).
        if len(fresh) < self.capacity or key in self.members:
            fresh[key] = None

    def take(self, t: int) -> Key | None:
        """Remove and return a random key whose last insert was before `t`, not deleted since.

        None when the pool is empty (or a few draws hit keys re-inserted at `t`). O(1).
        """
        if t != self.fresh_t:
            self._settle(t)
        pool, fresh = self.pool, self.fresh
        for _ in range(4):
            if not pool:
                return None
            j = int(self.random() * len(pool))
            key = pool[j]
            if key in fresh:
                continue  # re-inserted at this very instant: a delete now would not be later
            last = pool.pop()
            if j < len(pool):
                pool[j] = last
            self.members.discard(key)
            return key
        return None

    def _settle(self, t: int) -> None:
        """Time moved to `t`: the keys inserted before it become deletable."""
        pool, members, capacity, random = self.pool, self.members, self.capacity, self.random
        for key in self.fresh:
            if key in members:
                continue
            if len(pool) < capacity:
                pool.append(key)
            else:
                j = int(random() * capacity)
                members.discard(pool[j])
                pool[j] = key
            members.add(key)
        self.fresh.clear()
        self.fresh_t = t

    def _check(self) -> None:
        """Invariants: pool and members agree, no duplicates, sizes bounded."""
        assert len(self.pool) == len(self.members) == len(set(self.pool))
        assert set(self.pool) == self.members
        assert len(self.pool) <= self.capacity and len(self.fresh) <= 2 * self.capacity
