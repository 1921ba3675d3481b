"""WSCAN over several labels, W_ω(S_a ∪[d] S_b): the left side of thesis rule 13 (6.2.2,
sga/rewrite/merge_union_wscans.py), one window over the union of the labels' input streams.

Its output is that of `UNION[d](WSCAN[a], WSCAN[b])` at every instant, interval rows and
deltas alike: each label keeps its own coverage per key (`covers`, what each WSCAN's output
would hold, operators/wscan.py), and the output coalesces the labels' tuples as UNION does
(operators/union.py). Per key the output's validity is the max over the labels'. The per-label
coverage is what keeps explicit deletions sound: a `-` edge of `a` ends `a`'s coverage of
the key only (by `net_effect`, as WSCAN[a] would), and the output's then ends at the latest
end another label still gives it (at `now` when none does), which is UNION's end record. A
round's edges of every label are read first and the deletions' end records computed after,
as UNION's `retract` follows its `process`. As an output read by no operator, in delta mode,
its keys go out as native deltas until the first deletion (operators/native_keys.py).

What it saves against the UNION of WSCANs: the UNION's operator, the shared index of each
WSCAN (a UNION reads its inputs' indexes to cut keys) and a hop per tuple; it keeps the same
two coalescings per edge (the label's and the output's). Cost per edge: O(1), plus O(log n)
when emitted; per ended key O(#labels).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..sgt import wscan_expiry
from ..state.coalescer import Coalescer
from ..stateful import StateError, restore_into, state_of
from .base import BuildContext, CoalescedOperator
from .filter import compile_conditions, passes
from .wscan import net_effect

if TYPE_CHECKING:
    from ...sga.algebra import Op


class UnionWScanOp(CoalescedOperator):
    __slots__ = (
        "labels",
        "window",
        "slide",
        "paths",
        "covers",
        "deleted",
        "unmatched",
        "conditions",
    )

    def __init__(self, node: Op, ctx: BuildContext) -> None:
        super().__init__(node)
        self.labels = node.labels
        self.window = node.window
        self.slide = node.slide
        self.paths = ctx.paths
        self.covers = [Coalescer() for _ in node.labels]  # each label's coverage per key
        self.deleted = [0] * len(node.labels)  # per label: '-' edges that matched
        self.unmatched = [0] * len(node.labels)  # per label: '-' edges that matched nothing
        self.conditions = compile_conditions(node.conditions)
        self._native_output(node, ctx)

    def process(self, batches: list, now: int) -> list:
        """`batches[i]`: raw `+` edges `(src, trg, t, '+')` of `labels[i]` (or None), all
        at `now` (a round where some label has `-` edges goes to `scan`)."""
        exp = wscan_expiry(now, self.window, self.slide)
        conditions = self.conditions
        rows: list = []
        for port, batch in enumerate(batches):
            if not batch:
                continue
            admit = self.covers[port].admit
            for s, t, time, op in batch:
                if conditions and not passes(conditions, s, t):
                    continue
                if op != "+":
                    raise ValueError(f"WSCAN[{self.labels[port]}]: a '-' edge reached process()")
                got = admit((s, t), time, exp, now)
                if got is not None:
                    g_ts, g_exp = got
                    rows.append((s, t, g_ts, g_exp, port))
        return self._emit(rows, now)

    def _emit(self, rows: list, now: int) -> list:
        """The output's share of the labels' new tuples `(s, t, ts, exp, port)`, coalesced."""
        if self.native is not None:
            self.native.admit((((s, t), (ts, exp)) for s, t, ts, exp, _ in rows), now)
            return []
        admit, labels, paths = self.out.admit, self.labels, self.paths
        result = []
        for s, t, ts, exp, port in rows:
            got = admit((s, t), ts, exp, now)
            if got is not None:
                g_ts, g_exp = got
                result.append((s, t, g_ts, g_exp, ((s, t, labels[port]),) if paths else None))
        return result

    def scan(self, batches: list, now: int) -> tuple[list, list]:
        """`batches[i]`: raw edges of `labels[i]` at `now` (or None), some of them `-`:
        `(new sgts, end records)`."""
        exp = wscan_expiry(now, self.window, self.slide)
        rows: list = []
        gone: dict = {}  # keys some label stopped covering
        for port, batch in enumerate(batches):
            if not batch:
                continue
            cover = self.covers[port]
            inserted, ended, matched, unmatched = net_effect(
                cover.until, batch, now, self.conditions
            )
            self.deleted[port] += matched
            self.unmatched[port] += unmatched
            for key in inserted:
                got = cover.admit(key, now, exp, now)
                if got is not None:
                    s, t = key
                    g_ts, g_exp = got
                    rows.append((s, t, g_ts, g_exp, port))
            for key in ended:
                cover.cut(key, now, now)
                gone[key] = None
        result = self._emit(rows, now)
        if not gone:
            return result, []
        if self.native is not None:
            self.native.stop(now)
            self.native = None
        return result, self._cut(gone, now)

    def _cut(self, keys, now: int) -> list:
        """End records for `keys`: each ends where the labels still covering it end."""
        covers, labels, cut, paths = self.covers, self.labels, self.out.cut, self.paths
        ended = []
        for key in keys:
            s, t = key
            best, wit = now, None
            for port, cover in enumerate(covers):
                until = cover.until(key)
                if until is not None and until > best:
                    best, wit = until, ((s, t, labels[port]),) if paths else None
            got = cut(key, best, now, paths)
            if got is not None:
                g_ts, g_end = got
                ended.append((s, t, g_ts, g_end, wit))
        return ended

    def deletion_counts(self, label: str) -> tuple[int, int]:
        """`(matched, unmatched)` `-` edges of `label` so far."""
        port = self.labels.index(label)
        return self.deleted[port], self.unmatched[port]

    def purge(self, now: int) -> None:
        super().purge(now)
        for cover in self.covers:
            cover.purge(now)

    def size(self) -> int:
        return super().size() + sum(len(cover) for cover in self.covers)

    def state(self) -> dict:
        return {
            **super().state(),
            "covers": [state_of(cover) for cover in self.covers],
            "deleted": list(self.deleted),
            "unmatched": list(self.unmatched),
        }

    def restore(self, state: dict) -> None:
        super().restore(state)
        if len(state["covers"]) != len(self.covers):
            raise StateError(f"{len(state['covers'])} labels saved, {len(self.covers)} here")
        for cover, saved in zip(self.covers, state["covers"]):
            restore_into(cover, saved)
        self.deleted = list(state["deleted"])
        self.unmatched = list(state["unmatched"])

    def _check(self) -> None:
        """Invariants: every part's own; the labels' counters per label."""
        super()._check()
        for cover in self.covers:
            cover._check()
        assert len(self.deleted) == len(self.unmatched) == len(self.covers)
