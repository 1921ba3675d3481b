"""The emitted coverage of the closure PATH's interval rows, kept by source vertex
(operators/path_closure.py): what the Coalescer (state/coalescer.py) keeps, in the shape the
closure finds its results in.

A batch's findings are fans: a start vertex x widens a set of target vertices to the same
bottleneck L at once (state/level_closure.py `insert`). Keyed by `(x, y)`, each target costs a
key tuple, a hash of it, and an expiry entry that the purge reads back one by one: on `knows*`
over the snb 100k stream, 857k rows in 210k fans, that bookkeeping was a fifth of the run.
Here the coverage is `{x: {y: [start, until]}}`, one expiry entry per fan names x, and a purge
reads each named source's targets once. The rules are the Coalescer's (thesis Def 11,
specs/semantics.md §2 and §5): a row goes out only where it widens what was emitted for its
key, a live key keeps its start, an expired key counts as absent.

For the hand-over to S-PATH and for checkpoints the same coverage becomes a Coalescer
(`coalescer()`, `of()`), so the checkpoint form is the Coalescer's.
"""

from __future__ import annotations

from collections.abc import Hashable

from .coalescer import Coalescer
from .expiry import ExpiryBuckets


class FanCoverage:
    """`admit_fan(x, ys, now, exp, rows)`: the rows that widen the coverage, appended."""

    __slots__ = ("live", "heap")

    def __init__(self) -> None:
        self.live: dict = {}  # src -> {trg: [start, until]}
        self.heap = ExpiryBuckets()  # until -> sources with a target widened to it (or stale)

    def admit_fan(self, src: Hashable, trgs: list, ts: int, exp: int, now: int, rows: list) -> None:
        """`Coalescer.admit(key, ts, exp, now)` (`ts <= now < exp`) of each key `(src, trg)`;
        each row to emit, `(src, trg, start, exp, None)`, goes to `rows`. O(1) per target,
        one expiry entry per call."""
        fan = self.live.get(src)
        if fan is None:
            fan = {}
            if trgs:
                self.live[src] = fan  # holds a target below: each was covered by nothing
        emit = rows.append
        n = len(rows)
        for trg in trgs:
            cur = fan.get(trg)
            if cur is None or cur[1] <= now:
                fan[trg] = [ts, exp]
                emit((src, trg, ts, exp, None))
            elif exp > cur[1]:
                if ts < cur[0]:
                    cur[0] = ts
                cur[1] = exp
                emit((src, trg, cur[0], exp, None))
        if len(rows) > n:
            self.heap.add(exp, src)

    def admit(self, key: tuple, ts: int, exp: int, now: int) -> tuple[int, int] | None:
        """`Coalescer.admit` of one key `(src, trg)` (the ε-pairs of a nullable regex)."""
        if exp <= now:
            return None
        rows: list = []
        self.admit_fan(key[0], [key[1]], ts, exp, now, rows)
        return (rows[0][2], exp) if rows else None

    def purge(self, now: int) -> None:
        """Forget the keys whose coverage ended at or before `now`: the targets of every source
        an expiry entry names are read once."""
        live = self.live
        for src in set(self.heap.expired(now)):
            fan = live.get(src)
            if fan is None:
                continue
            over = [trg for trg, cur in fan.items() if cur[1] <= now]
            for trg in over:
                del fan[trg]
            if not fan:
                del live[src]

    def until(self, key: tuple) -> int | None:
        """The end of the coverage emitted for `key` (possibly `<= now`: over), or None."""
        cur = self.live.get(key[0], {}).get(key[1])
        return None if cur is None else cur[1]

    def __len__(self) -> int:
        return sum(len(fan) for fan in self.live.values())

    # ---- as a Coalescer
    def coalescer(self) -> Coalescer:
        """A Coalescer holding the same coverage (the S-PATH hand-over, checkpoints)."""
        out = Coalescer()
        for src, fan in self.live.items():
            for trg, (start, until) in fan.items():
                out.adopt((src, trg), start, until)
        return out

    @classmethod
    def of(cls, coalescer: Coalescer) -> FanCoverage:
        """The coverage a Coalescer holds (a restored checkpoint)."""
        out = cls()
        for (src, trg), (start, until) in coalescer.live.items():
            out.live.setdefault(src, {})[trg] = [start, until]
            out.heap.add(until, src)
        return out

    def _check(self) -> None:
        """Invariants: intervals non-empty, no empty fan, and an expiry entry naming the source
        at every target's end."""
        self.heap._check()
        entries = set(self.heap.pairs())
        for src, fan in self.live.items():
            assert fan, src
            for trg, (start, until) in fan.items():
                assert start < until, (src, trg, start, until)
                assert (until, src) in entries, (src, trg, until)
