"""Per-key coalescing of an operator's output (thesis Def 11, specs/semantics.md §2 and §5).

An operator emits a tuple for `(src, trg)` only if it widens what it already emitted for that
key: value-equivalent tuples coalesce, so duplicates never multiply downstream. Because every
tuple pushed at time `now` holds `now` (incremental/sgt.py), the emitted coverage of a live key
is one interval `[start, until)` holding `now`, and a new tuple `[ts, exp)` is covered iff
`exp <= until`. Expired keys (`until <= now`) count as absent; `purge` drops them (an
exp-bucketed index holding an item at or before each key's end, moved on when it comes up).
Cost: O(1) per tuple (O(log k) for a new expiry instant).

With explicit deletions an operator may find that a key's coverage ends earlier than emitted:
`cut` shortens it (or ends it at `now`) and returns the end record to emit (specs/semantics.md §5).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator

from ..deltas import fans_by_instant
from ..stateful import restore_into, state_of
from .expiry import ExpiryBuckets

#: keys re-derived at a time by `Coalescer.leaving_rederived` (whole sources per part)
REDERIVE_PART = 1 << 16


class Coalescer:
    """`admit(key, ts, exp, now)` -> the interval to emit, or None when already covered.

    A native producer's keys (`entering` ... `rederive_all`, operators/native_keys.py) hold
    their end only, `live[key] = until`: nothing reads their start, and a list per key is
    much of the memory of a run with tens of millions of live keys. `adopt` gives them a
    start again when rows take over."""

    __slots__ = ("live", "heap")

    STATE_VERSION = 2  # coverage per key (a native producer's: its end only), the expiry index

    def __init__(self) -> None:
        self.live: dict = {}  # key -> [start, until] (rows), or until (a native producer)
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
            cur[1] = exp  # (its expiry item stays: `purge` moves it on)
            return (cur[0], exp)
        self.live[key] = [ts, exp]
        self.heap.add(exp, key)
        return (ts, exp)

    def admit_edges(self, edges: Iterable[tuple], exp: int, from_start: bool) -> list:
        """`admit` of inserted edges `(src, trg, time, "+")`, each at its own time, all valid
        until `exp` (a WSCAN's edges of one slide bucket): the sgts `(src, trg, ts, exp,
        None)` to emit, `ts` the key's coalesced start (`from_start`) or the edge's time. One
        loop, no call per edge; a `-` edge is a ValueError (an end goes through `cut`)."""
        live, bucket = self.live, None  # (the expiry list of `exp`: got at the first new key)
        out = []
        for s, t, time, op in edges:
            if op != "+":
                raise ValueError(f"a '-' edge ({s}, {t}) given to admit_edges; use cut")
            if exp <= time:
                continue
            key = (s, t)
            cur = live.get(key)
            if cur is not None and cur[1] > time:
                if exp <= cur[1]:
                    continue
                if time < cur[0]:
                    cur[0] = time
                cur[1] = exp  # (its expiry item stays: `purge` moves it on)
                out.append((s, t, cur[0] if from_start else time, exp, None))
                continue
            live[key] = [time, exp]
            if bucket is None:
                bucket = self.heap.bucket(exp)
            bucket.append(key)
            out.append((s, t, time, exp, None))
        return out

    def entering(self, rows: Iterable[tuple], now: int, reverse: bool = False) -> dict:
        """`admit` for a native producer, which says only when a key enters and leaves the
        output (operators/pattern.py): record each `(key, (ts, exp))` of `rows` (keys `(src,
        trg)`) and return those that enter, i.e. had no coverage reaching `now`, by start as
        fans, `{ts: {src: [trg, ...]}}` (`reverse`: `{trg: [src, ...]}`). A coverage ending
        exactly at `now` goes on without a break (the snapshot at `now` still holds the key);
        one ending earlier was reported and forgotten by `leaving`. A widening only moves the
        end: the expiry index keeps the key's first end, and `leaving` moves it on when it gets
        there (fewer entries than one per widening; `adopt` restores one entry per end). O(1)
        per row (O(log k) for a new expiry instant)."""
        live, expiring = self.live, self.heap.bucket
        bucket_exp = bucket = None  # the expiry list of the last key's exp (window ends are
        # slide-aligned: few distinct exps in a round)
        entered = []
        for key, (ts, exp) in rows:
            if exp <= now:
                continue
            until = live.get(key)
            if until is not None and until >= now:
                if exp > until:
                    live[key] = exp
                continue
            live[key] = exp
            if exp != bucket_exp:
                bucket_exp, bucket = exp, expiring(exp)
            bucket.append(key)
            entered.append((key, ts))
        out: dict = {}
        fans_by_instant(entered, reverse, out)
        return out

    def ends_by(self, upto: int) -> bool:
        """Whether some coverage may end at or before `upto` (`leaving` has work). O(1)."""
        return self.heap.any_by(upto)

    def leaving(self, upto: int, reverse: bool = False) -> dict:
        """Forget the keys `(src, trg)` whose coverage ends at or before `upto` and return them
        by that end as fans, `{until: {src: [trg, ...]}}` (`reverse`: `{trg: [src, ...]}`), a
        native producer's '-' events (see `entering`)."""
        due = self._due(upto)
        out: dict = {}
        if due:
            self._forget(due)
            fans_by_instant(due.items(), reverse, out)
        return out

    def leaving_rederived(self, upto: int, rederive, reverse: bool = False) -> dict:
        """`leaving` for a producer that reports entries but not widenings (its recorded ends
        are lower bounds of the true ones, operators/pattern.py): each key whose recorded end
        is at or before `upto` asks `rederive(keys, cutoff)` -> `{key: (ts, exp)}`, read by
        key, for the longest derivation it has now (those ending after `cutoff`). Every
        derivation on record started by the recorded end (no input came after it), so one
        outliving that end carries the key on without a break: its end moves there (leaving
        then if that is still by `upto`). Keys no derivation outlives leave at their recorded
        end.

        Many keys due at once (the close of a run: every key) are re-derived a part at a
        time, whole sources per part, so that what a re-derivation builds (a derivation per
        key) is held for one part only."""
        out: dict = {}
        heap = self.heap
        if heap.instants and max(heap.instants) <= upto:
            # every key is due (the close of a run): grouped by source off the live keys,
            # which are forgotten all at once when every part is done
            heap.buckets.clear()
            heap.instants.clear()
            live = self.live
            # widened past `upto`: goes on, its expiry entry moves to its end
            going_on = {key: end for key, end in live.items() if end > upto}
            for key, end in going_on.items():
                heap.add(end, key)
            by_src = _by_src((key, end) for key, end in live.items() if end <= upto)
            for part in _parts(by_src, REDERIVE_PART):
                for key in self._rederived(part, upto, rederive, reverse, out, forget=False):
                    going_on[key] = live[key]
            live.clear()
            live.update(going_on)
            return out
        due = self._due(upto)
        if len(due) <= REDERIVE_PART:
            if due:
                self._rederived(due, upto, rederive, reverse, out)
            return out
        for part in _parts(_by_src(due.items()), REDERIVE_PART):
            self._rederived(part, upto, rederive, reverse, out)
        return out

    def _rederived(
        self, due: dict, upto: int, rederive, reverse: bool, out: dict, forget: bool = True
    ) -> list:
        """`leaving_rederived` for the keys `{key: recorded end}` of `due`: their ends made
        exact, and those still by `upto` added to `out` (and, with `forget`, forgotten).
        Returns the keys that go on."""
        best = rederive(due, min(due.values()))
        live, add, get = self.live, self.heap.add, best.get
        going_on = []
        ended = []
        for key, end in due.items():
            got = get(key)
            if got is not None and got[1] > end:
                end = got[1]
                if end > upto:
                    live[key] = end
                    add(end, key)
                    going_on.append(key)
                    continue
            if forget:
                del live[key]
            ended.append((key, end))
        fans_by_instant(ended, reverse, out)
        return going_on

    def _due(self, upto: int) -> dict:
        """`{key: recorded end}` of the live keys whose end is at or before `upto`; the expiry
        entries of keys widened since move on to their end. When every entry is due (the
        close of a run), read off the live keys at once (each has an entry by its end)."""
        live, heap = self.live, self.heap
        if heap.instants and max(heap.instants) <= upto:
            heap.buckets.clear()
            heap.instants.clear()
            due = dict(live)
            if due and max(due.values()) > upto:  # widened past `upto`: those move on
                later = [(end, key) for key, end in due.items() if end > upto]
                for end, key in later:
                    del due[key]
                    heap.add(end, key)
            return due
        due: dict = {}
        later: list = []
        for _until, keys in heap.expired_buckets(upto):
            for key in keys:
                end = live.get(key)
                if end is None:
                    continue
                if end <= upto:
                    due[key] = end
                else:  # widened past `upto` (so past its item's instant): the item moves on
                    later.append((end, key))
        add = heap.add
        for end, key in later:
            add(end, key)
        return due

    def _forget(self, due) -> None:
        """Forget the keys of `due` (all live)."""
        live = self.live
        if len(due) == len(live):  # every key (the close of a run)
            live.clear()
        else:
            for key in due:
                del live[key]

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
            if got is not None and got[1] > cur:
                live[key] = got[1]
                add(got[1], key)

    def overdue(self, upto: float, rederive, final: bool) -> list:
        """Deferred widenings of rows (operators/pattern.py `defers_rows`): the producer
        admits what new tuples derive, not what renewed ones widen, so an emitted end is a
        lower bound of the key's coverage. Each key whose emitted end is at or before `upto`
        asks `rederive(keys, cutoff)` -> `{key: (ts, exp)}`, read by key, for its longest
        derivation now; one outliving that end carries the key on without a break (every
        derivation on record started by then: the caller asks before inputs after the end
        are in) and gives the row `(src, trg, start, exp, None)` to emit. A key ending
        before `upto` after all is forgotten; one ending at `upto` is kept, due again, unless
        `final` (no round at `upto` comes: one may still carry it on, see `admit`).
        O(1) when nothing is due, else the keys due, whole sources per part of
        `REDERIVE_PART` keys, plus their re-derivation."""
        if not self.heap.any_by(upto):
            return []
        due = self._ended(upto)
        rows: list = []
        if not due:
            return rows
        live, add = self.live, self.heap.add
        parts = [due] if len(due) <= REDERIVE_PART else _parts(_by_src(due.items()), REDERIVE_PART)
        for part in parts:
            get = rederive(part, min(part.values())).get
            for key, end in part.items():
                got = get(key)
                if got is not None and got[1] > end:
                    cur = live[key]
                    cur[1] = end = got[1]
                    rows.append((key[0], key[1], cur[0], end, None))
                if end > upto or (end == upto and not final):
                    add(end, key)
                else:
                    del live[key]
        return rows

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
        return {key: cur if type(cur) is int else cur[1] for key, cur in self.live.items()}

    def keys(self) -> list:
        """Every key with emitted coverage (expired ones until `purge`)."""
        return list(self.live)

    def purge(self, now: int) -> None:
        """Forget keys whose coverage ended at or before `now`."""
        self._ended(now, forget=True)

    def _ended(self, upto: int, forget: bool = False) -> dict:
        """`{key: end}` of the keys (with rows) whose coverage ends at or before `upto`; the
        expiry items of keys widened since move on to their end (one item per key and end
        reached, where an item per widening cost an add and a skip each). `forget`: delete
        those keys instead, the map left empty (a WSCAN's purge reads every edge of a slide
        bucket once per slide: no map of them to build and read again)."""
        live = self.live
        ended: dict = {}
        later = []
        for key in self.heap.expired(upto):
            cur = live.get(key)
            if cur is not None:
                if cur[1] > upto:
                    later.append(key)
                elif forget:
                    del live[key]
                else:
                    ended[key] = cur[1]
        add = self.heap.add
        for key in later:
            add(live[key][1], key)
        return ended

    def __len__(self) -> int:
        return len(self.live)

    def state(self) -> dict:
        """The checkpoint contract (incremental/stateful.py): coverage per key, the expiry
        index."""
        return {"coverage": self.live, "expiry": state_of(self.heap)}

    def restore(self, state: dict) -> None:
        self.live = {
            key: cur if type(cur) is int else [cur[0], cur[1]]
            for key, cur in state["coverage"].items()
        }
        restore_into(self.heap, state["expiry"])

    def _check(self) -> None:
        """Invariants: intervals non-empty; every live key has a heap entry at its `until`
        (at or before it, for a native producer's keys: `enter`)."""
        self.heap._check()
        entries = {}
        for until, key in self.heap.pairs():
            entries.setdefault(key, set()).add(until)
        for key, cur in self.live.items():
            if type(cur) is not int:
                start, until = cur
                assert start < until, (key, start, until)
            else:
                until = cur
            assert any(u <= until for u in entries.get(key, ())), (key, until)


def _by_src(items) -> dict:
    """`{src: {key: value}}` of `(key, value)` items with keys `(src, trg)`."""
    by_src: dict = {}
    get = by_src.get
    for key, value in items:
        group = get(key[0])
        if group is None:
            by_src[key[0]] = {key: value}
        else:
            group[key] = value
    return by_src


def _parts(by_src: dict, size: int) -> Iterator[dict]:
    """The groups of `_by_src` merged into dicts of about `size` keys or more (whole
    sources each)."""
    part: dict = {}
    for group in by_src.values():
        part.update(group)
        if len(part) >= size:
            yield part
            part = {}
    if part:
        yield part
