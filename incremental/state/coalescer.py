"""Per-key coalescing of an operator's output (thesis Def 11, specs/semantics.md §2 and §5).

An operator emits a tuple for `(src, trg)` only if it widens what it already emitted for that
key: value-equivalent tuples coalesce, so duplicates never multiply downstream. Because every
tuple pushed at time `now` holds `now` (incremental/sgt.py), the emitted coverage of a live key
is one interval `[start, until)` holding `now`, and a new tuple `[ts, exp)` is covered iff
`exp <= until`. Expired keys (`until <= now`) count as absent; `purge` drops them (an
exp-bucketed index, stale entries skipped). Cost: O(1) per tuple (O(log k) for a new expiry instant).

With explicit deletions an operator may find that a key's coverage ends earlier than emitted:
`cut` shortens it (or ends it at `now`) and returns the end record to emit (specs/semantics.md §5).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable

from ..stateful import restore_into, state_of
from .expiry import ExpiryBuckets


class Coalescer:
    """`admit(key, ts, exp, now)` -> the interval to emit, or None when already covered."""

    __slots__ = ("live", "heap")

    STATE_VERSION = 1

    def __init__(self) -> None:
        self.live: dict = {}  # key -> [start, until]
        self.heap = ExpiryBuckets()  # until -> keys, possibly stale

    def admit(self, key: Hashable, ts: int, exp: int, now: int) -> tuple[int, int] | None:
        """Record `[ts, exp)` for `key`; return the coalesced `(start, exp)` to emit, or None.

        O(1) when covered, O(log n) otherwise.
        """
        if exp <= now:
            return None
        cur = self.live.get(key)
        if cur is not None and cur[1] > now:
            if exp <= cur[1]:
                return None
            if ts < cur[0]:
                cur[0] = ts
            cur[1] = exp
            self.heap.add(exp, key)
            return (cur[0], exp)
        self.live[key] = [ts, exp]
        self.heap.add(exp, key)
        return (ts, exp)

    def entering(self, rows: Iterable[tuple], now: int) -> list[tuple]:
        """`admit` for a native producer, which says only when a key enters and leaves the
        output (operators/pattern.py): record each `(key, ts, exp)` of `rows` and return
        `(key, ts)` of those that enter, i.e. had no coverage reaching `now`. A coverage ending
        exactly at `now` goes on without a break (the snapshot at `now` still holds the key);
        one ending earlier was reported and forgotten by `leaving`. A widening only moves the
        end: the expiry index keeps the key's first end, and `leaving` moves it on when it gets
        there (fewer entries than one per widening; `adopt` restores one entry per end). O(1)
        per row (O(log k) for a new expiry instant)."""
        live, add = self.live, self.heap.add
        out = []
        for key, ts, exp in rows:
            if exp <= now:
                continue
            cur = live.get(key)
            if cur is not None and cur[1] >= now:
                if exp > cur[1]:
                    cur[1] = exp
                continue
            live[key] = [ts, exp]
            add(exp, key)
            out.append((key, ts))
        return out

    def ends_by(self, upto: int) -> bool:
        """Whether some coverage may end at or before `upto` (`leaving` has work). O(1)."""
        return self.heap.any_by(upto)

    def leaving(self, upto: int) -> dict:
        """Forget the keys whose coverage ends at or before `upto` and return them by that end,
        `{until: [key, ...]}` (a native producer's '-' events; see `enter`)."""
        return self._leave(self._due(upto))

    def leaving_rederived(self, upto: int, rederive) -> dict:
        """`leaving` for a producer that reports entries but not widenings (its recorded ends
        are lower bounds of the true ones, operators/pattern.py): each key whose recorded end
        is at or before `upto` asks `rederive(keys, cutoff)` -> `{key: (ts, exp)}`, read by
        key, for the longest derivation it has now (those ending after `cutoff`). Every
        derivation on record started by the recorded end (no input came after it), so one
        outliving that end carries the key on without a break: its end moves there (leaving
        then if that is still by `upto`). Keys no derivation outlives leave at their recorded
        end."""
        due = self._due(upto)
        if not due:
            return {}
        best = rederive(due, min(due.values()))
        live, add = self.live, self.heap.add
        going_on = []
        for key, end in due.items():
            got = best.get(key)
            if got is not None and got[1] > end:
                end = got[1]
                if end > upto:
                    live[key][1] = end
                    add(end, key)
                    going_on.append(key)
                else:
                    due[key] = end  # (a value changed, no key added: the loop goes on)
        for key in going_on:
            del due[key]
        return self._leave(due)

    def _due(self, upto: int) -> dict:
        """`{key: recorded end}` of the live keys whose end is at or before `upto`; the expiry
        entries of keys widened since move on to their end."""
        live = self.live
        due: dict = {}
        later: list = []
        for _until, keys in self.heap.expired_buckets(upto):
            for key in keys:
                cur = live.get(key)
                if cur is None:
                    continue
                end = cur[1]
                if end <= upto:
                    due[key] = end
                else:  # widened past `upto` (so past its item's instant): the item moves on
                    later.append((end, key))
        add = self.heap.add
        for end, key in later:
            add(end, key)
        return due

    def _leave(self, due: dict) -> dict:
        """Forget the keys of `{key: end}` and return them by end, `{end: [key, ...]}`."""
        live = self.live
        out: dict = {}
        for key, end in due.items():
            del live[key]
            keys = out.get(end)
            if keys is None:
                out[end] = [key]
            else:
                keys.append(key)
        return out

    def rederive_all(self, rederive, cutoff: int) -> None:
        """Make every recorded end exact again (see `leaving_rederived`): each live key's end
        becomes the longest of it and its derivations now."""
        live = self.live
        if not live:
            return
        add = self.heap.add
        best = rederive(live, cutoff)
        for key, cur in live.items():
            got = best.get(key)
            if got is not None and got[1] > cur[1]:
                cur[1] = got[1]
                add(got[1], key)

    def adopt(self, key: Hashable, start: int, until: int) -> None:
        """Take `[start, until)` as the emitted coverage of `key` (a key another structure
        emitted so far, handed over: operators/path_closure.py)."""
        self.live[key] = [start, until]
        self.heap.add(until, key)

    def cut(
        self, key: Hashable, exp: int, now: int, refresh: bool = False
    ) -> tuple[int, int] | None:
        """The live coverage of `key` now ends at `exp` (at `now` when `exp <= now`): return the
        end record `(start, end)` to emit, or None when the key is not live or already ends by
        `exp` (with `refresh`, an unchanged end is returned too: a new witness for the same
        interval). O(1) (O(log k) for a new expiry instant)."""
        cur = self.live.get(key)
        if cur is None or cur[1] <= now or exp > cur[1] or (exp == cur[1] and not refresh):
            return None
        if exp > now:
            if exp < cur[1]:
                cur[1] = exp
                self.heap.add(exp, key)
            return (cur[0], exp)
        del self.live[key]
        return (cur[0], now)

    def until(self, key: Hashable) -> int | None:
        """The end of the coverage emitted for `key` (possibly `<= now`: over), or None."""
        cur = self.live.get(key)
        return None if cur is None else cur[1]

    def coverage(self) -> dict:
        """`{key: until}` of every key with emitted coverage (expired ones until `purge`)."""
        return {key: cur[1] for key, cur in self.live.items()}

    def keys(self) -> list:
        """Every key with emitted coverage (expired ones until `purge`)."""
        return list(self.live)

    def purge(self, now: int) -> None:
        """Forget keys whose coverage ended at or before `now`."""
        live = self.live
        for key in self.heap.expired(now):
            cur = live.get(key)
            if cur is not None and cur[1] <= now:
                del live[key]

    def __len__(self) -> int:
        return len(self.live)

    def state(self) -> dict:
        """The checkpoint contract (incremental/stateful.py): coverage per key, the expiry
        index."""
        return {"coverage": self.live, "expiry": state_of(self.heap)}

    def restore(self, state: dict) -> None:
        self.live = {key: [start, until] for key, (start, until) in state["coverage"].items()}
        restore_into(self.heap, state["expiry"])

    def _check(self) -> None:
        """Invariants: intervals non-empty; every live key has a heap entry at its `until`
        (at or before it, for a native producer's keys: `enter`)."""
        self.heap._check()
        entries = {}
        for until, key in self.heap.pairs():
            entries.setdefault(key, set()).add(until)
        for key, (start, until) in self.live.items():
            assert start < until, (key, start, until)
            assert any(u <= until for u in entries.get(key, ())), (key, until)
