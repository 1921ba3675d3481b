"""The start of each tuple's run of validity: what `atom@t` binds (specs/semantics.md §4b).

A tuple's *run* is the longest stretch of consecutive instants during which it is valid
without a break; `@t` binds the start of the run that holds the snapshot's instant. An sgt
that overlaps or abuts the current run (the run held `now - 1`) extends it and keeps its
start; one that comes after a gap opens a new run starting `now` (by timeliness, specs/
semantics.md §5, a tuple's validity before `now` was announced in earlier rounds, so a run
not on record did not hold `now - 1`). An end record shortens the run; it keeps its start.

Kept per stream that a timed PATTERN reads (incremental/operators/timed_pattern.py), fed with
every sgt and end record of that stream. A run that ended at `now` is kept one instant longer
(`purge` drops runs that ended before `now`), so a tuple re-derived at the very instant its
run ended continues it. Cost: O(1) per sgt (O(log k) for a new expiry instant).
"""

from __future__ import annotations

from collections.abc import Hashable

from ..stateful import restore_into, state_of
from .expiry import ExpiryBuckets


class RunStarts:
    """`runs[key] = [start, until]`: the run of `key` that holds, or last held, `now`."""

    __slots__ = ("runs", "heap")

    STATE_VERSION = 1

    def __init__(self) -> None:
        self.runs: dict = {}
        self.heap = ExpiryBuckets()  # until -> keys, possibly stale

    def see(self, key: Hashable, exp: int, now: int) -> None:
        """An sgt of `key` valid until `exp` arrived at `now`."""
        if exp <= now:
            return
        cur = self.runs.get(key)
        if cur is not None and cur[1] >= now:
            if exp > cur[1]:
                cur[1] = exp
                self.heap.add(exp, key)
            return
        self.runs[key] = [now, exp]
        self.heap.add(exp, key)

    def cut(self, key: Hashable, exp: int) -> None:
        """An end record: the run of `key` now ends at `exp` (unchanged start)."""
        cur = self.runs.get(key)
        if cur is not None and exp < cur[1]:
            cur[1] = exp
            self.heap.add(exp, key)

    def start(self, key: Hashable) -> int | None:
        """The start of the run of `key`, or None when none is on record."""
        cur = self.runs.get(key)
        return None if cur is None else cur[0]

    def purge(self, now: int) -> None:
        """Forget the runs that ended before `now` (one that ended at `now` may continue)."""
        runs = self.runs
        for key in self.heap.expired(now - 1):
            cur = runs.get(key)
            if cur is not None and cur[1] < now:
                del runs[key]

    def __len__(self) -> int:
        return len(self.runs)

    def state(self) -> dict:
        """The checkpoint contract (incremental/stateful.py): each run, the expiry index."""
        return {"runs": self.runs, "expiry": state_of(self.heap)}

    def restore(self, state: dict) -> None:
        self.runs = {key: [start, until] for key, (start, until) in state["runs"].items()}
        restore_into(self.heap, state["expiry"])

    def _check(self) -> None:
        """Invariants: runs are not reversed; each has a heap entry at its `until`."""
        self.heap._check()
        entries: dict = {}
        for until, key in self.heap.pairs():
            entries.setdefault(key, set()).add(until)
        for key, (start, until) in self.runs.items():
            assert start <= until, (key, start, until)
            assert until in entries.get(key, ()), (key, until)
