"""VERTICES: the active domain V_τ as `(v, v)` sgts (specs/semantics.md §2, §4; the ε-pairs of a
nullable PATH).

Each input sgt `(s, t)` valid on `[ts, exp)` makes `(s, s)` and `(t, t)` valid on it; a vertex
reached by many edges is coalesced (emitted only when its coverage widens). Expiry is carried
by the intervals. An end record of `(s, t)` re-reads the edges at `s` and at `t` in the inputs'
shared indexes: a vertex stays as long as its longest-lived remaining edge. Cost per tuple:
O(1), O(log n) when emitted; per end record O(degree of s and t).
"""

from __future__ import annotations

from .base import IndexedInputsOperator, by_instant, sgts


class VerticesOp(IndexedInputsOperator):
    __slots__ = ()

    def process(self, batches: list, now: int) -> list:
        return self._admit(sgts(batches), now, [], from_start=True)

    def spans(self) -> bool:
        return True

    def process_span(self, batches: list) -> list:
        """A span (runtime `run_span`): the sgts in time order across the ports, each admitted
        at its own instant, and a widening emitted as `[instant, exp)`, as WSCAN's are (with
        what was emitted before it covers the same): each row's ts is the instant its
        consumer, a nullable PATH's domain port, runs it at (`by_instant`)."""
        result: list = []
        for instant, group in by_instant(batches):
            self._admit(sgts(group), instant, result, from_start=False)
        return result

    def _admit(self, tuples, now: int, result: list, from_start: bool) -> list:
        """`(s, s)` and `(t, t)` of each sgt, admitted at `now`, appended to `result` where they
        widen the coverage; an emitted row starts at its key's coalesced start
        (`from_start`) or at the sgt's own ts (in a span, its instant)."""
        admit = self.out.admit
        for s, t, ts, exp, wit in tuples:
            own = () if wit is not None else None
            got = admit(s, ts, exp, now)
            if got is not None:
                g_ts, g_exp = got
                result.append((s, s, g_ts if from_start else ts, g_exp, own))
            if t != s:
                got = admit(t, ts, exp, now)
                if got is not None:
                    g_ts, g_exp = got
                    result.append((t, t, g_ts if from_start else ts, g_exp, own))
        return result

    def retract(self, batches: list, now: int) -> list:
        cut = self.out.cut
        wit = () if self.paths else None
        result = []
        for s, t, _ts, _exp, _wit in sgts(batches):
            for v in (s,) if s == t else (s, t):
                got = cut(v, self._coverage(v, now), now)
                if got is not None:
                    g_ts, g_end = got
                    result.append((v, v, g_ts, g_end, wit))
        return result

    def _coverage(self, v, now) -> int:
        """The largest exp of an input edge at `v` (`now` if none is valid)."""
        best = now
        for index in self.inputs:
            for row in (index.successors(v), index.predecessors(v)):
                if row:
                    for entry in row.values():
                        if entry.exp > best:
                            best = entry.exp
        return best
