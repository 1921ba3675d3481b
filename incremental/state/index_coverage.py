"""A WSCAN's emitted coverage read off its node's shared EdgeIndex (thesis Def 11, §5.4).

A WSCAN coalesces its output per key (state/coalescer.py): it emits an edge only where it
widens what the key was emitted for. When every reader of the WSCAN is a PATH, its output
also goes, row for row, into the node's shared index (state/edge_index.py), which keeps per
key the same interval: its entry's `exp` is the key's emitted end and its `ts` the start of
the run of coverage that end belongs to (an entry is made anew, or its `ts` reset, when a
row comes at or after its end, as a Coalescer forgets a key at its end). A Coalescer beside
it would hold every edge of the window twice, and cost the per-edge bookkeeping twice.

`IndexCoverage` answers a WSCAN's questions from the index instead: `admit_edges`, `admit`,
`until` and `cut` as a Coalescer does, reading only; the runtime then inserts the rows (and
cuts the end records) into the index as it does for every operator. It keeps nothing itself:
`purge` has nothing to do (the runtime purges the index) and its checkpoint state is empty
(the index is saved with the dataflow).

One difference, harmless to PATH readers, is why only they get it: an edge given twice in
one round is emitted twice (the index learns of the first after the round's `process`), the
second time with the same interval, which a PATH's node already holds.
"""

from __future__ import annotations

from collections.abc import Iterable

from .edge_index import EdgeIndex


class IndexCoverage:
    """The coverage of `index`'s keys, with a Coalescer's interface for a WSCAN."""

    __slots__ = ("index",)

    STATE_VERSION = 1

    def __init__(self, index: EdgeIndex) -> None:
        self.index = index

    def admit_edges(self, edges: Iterable[tuple], exp: int, from_start: bool) -> list:
        """Coalescer.admit_edges: the sgts `(src, trg, ts, exp, None)` of the `+` edges
        `(src, trg, time, "+")` that widen their key's coverage, `ts` the key's coalesced start
        (`from_start`) or the edge's time."""
        by_src = self.index.by_src
        out = []
        for s, t, time, _op in edges:
            if exp <= time:
                continue
            row = by_src.get(s)
            entry = None if row is None else row.get(t)
            if entry is not None and entry.exp > time:  # covered until entry.exp
                if exp <= entry.exp:
                    continue
                out.append((s, t, entry.ts if from_start else time, exp, None))
            else:
                out.append((s, t, time, exp, None))
        return out

    def until(self, key: tuple) -> int | None:
        """Coalescer.until: the end of the coverage emitted for `key`, or None."""
        entry = self.index.get(*key)
        return None if entry is None else entry.exp

    def admit(self, key: tuple, ts: int, exp: int, now: int) -> tuple[int, int] | None:
        """Coalescer.admit, reading only: the coalesced `(start, exp)` to emit, or None."""
        if exp <= now:
            return None
        entry = self.index.get(*key)
        if entry is not None and entry.exp > now:
            return None if exp <= entry.exp else (entry.ts, exp)
        return (ts, exp)

    def cut(self, key: tuple, exp: int, now: int) -> tuple[int, int] | None:
        """Coalescer.cut, reading only: the end record `(start, end)` of `key`'s coverage
        ending at `exp` (at `now` when `exp <= now`), or None when it is not live or already
        ends by `exp`."""
        entry = self.index.get(*key)
        if entry is None or entry.exp <= now or exp >= entry.exp:
            return None
        return (entry.ts, exp if exp > now else now)

    def purge(self, now: int) -> None:
        """Nothing: the runtime purges the index."""

    def __len__(self) -> int:
        return 0  # (the index's entries are counted as the index's)

    def state(self) -> dict:
        return {}

    def restore(self, state: dict) -> None:
        pass

    def _check(self) -> None:
        pass
