"""PATTERN: an n-ary symmetric hash join on shared variables (thesis Def 33, 5.4, Algorithm
PATTERN with the erratum fixed: the result interval is the intersection).

Each input's state is the shared interval-annotated `EdgeIndex` of its producing node (by src
and by trg, largest exp per key). A batch of new sgts on input i is joined, tuple by tuple,
against the other inputs' indexes (which already hold this round's batches, so every new
combination is found at least once; repeats are coalesced). The join order per starting input
is fixed up front: next the input with the most variables already bound.

Intervals: a result is valid on `[max ts, min exp)` of its inputs; every stored entry that
holds `now` makes that interval hold `now`; entries with `exp <= now` are expired and skipped,
and `purge` drops them from the indexes (no negative tuples: the direct approach). VarConditions
(`x != y`, `x = "c"`) are applied as soon as their variables are bound. Output is coalesced per
(head src, head trg). Cost per new tuple: O(number of matching combinations).
"""

from __future__ import annotations

from ..state.coalescer import Coalescer
from .base import PhysicalOperator

# step modes: how input j is probed given what is bound
_BOTH, _SRC, _TRG, _NONE, _LOOP_BOUND, _LOOP_FREE = range(6)


class PatternOp(PhysicalOperator):
    __slots__ = ("indexes", "plans", "head", "out", "nvars", "paths")

    def __init__(self, node, ctx) -> None:
        super().__init__(node)
        self.indexes = [ctx.index_of(inp) for inp in node.inputs]
        self.paths = ctx.paths
        slot: dict[str, int] = {}
        for s, t in node.bindings:
            slot.setdefault(s, len(slot))
            slot.setdefault(t, len(slot))
        self.nvars = len(slot)
        self.head = (slot[node.head[0]], slot[node.head[1]])
        conditions = []
        for c in node.conditions:
            if c.right_const:
                conditions.append((slot[c.left], c.op == "=", None, str(c.right)))
            else:
                conditions.append((slot[c.left], c.op == "=", slot[c.right], None))
        self.out = Coalescer()
        n = len(node.bindings)
        self.plans = []
        for i in range(n):
            bound = set()
            done: set = set()

            def ready() -> tuple:
                now_ready = tuple(c for c in conditions if c not in done and c[0] in bound
                                  and (c[2] is None or c[2] in bound))
                done.update(now_ready)
                return now_ready

            s_slot, t_slot = slot[node.bindings[i][0]], slot[node.bindings[i][1]]
            bound.update((s_slot, t_slot))
            start = (s_slot, t_slot, ready())
            steps = []
            remaining = [j for j in range(n) if j != i]
            while remaining:
                def score(j):
                    a, b = slot[node.bindings[j][0]], slot[node.bindings[j][1]]
                    return (a in bound) + (b in bound)
                j = max(remaining, key=lambda j: (score(j), -j))
                remaining.remove(j)
                a, b = slot[node.bindings[j][0]], slot[node.bindings[j][1]]
                if a == b:
                    mode = _LOOP_BOUND if a in bound else _LOOP_FREE
                elif a in bound and b in bound:
                    mode = _BOTH
                elif a in bound:
                    mode = _SRC
                elif b in bound:
                    mode = _TRG
                else:
                    mode = _NONE
                bound.update((a, b))
                steps.append((j, a, b, mode, ready()))
            self.plans.append((start, tuple(steps)))

    @staticmethod
    def _holds(conds, vals) -> bool:
        for left, eq, right, const in conds:
            if ((vals[left] == (const if right is None else vals[right])) != eq):
                return False
        return True

    def process(self, batches, now):
        result: list = []
        for i, batch in enumerate(batches):
            if not batch:
                continue
            (s_slot, t_slot, conds), steps = self.plans[i]
            for s, t, ts, exp, wit in batch:
                if exp <= now:
                    continue
                if s_slot == t_slot and s != t:
                    continue
                vals = [None] * self.nvars
                vals[s_slot] = s
                vals[t_slot] = t
                if conds and not self._holds(conds, vals):
                    continue
                wits = [None] * len(self.indexes) if self.paths else None
                if wits is not None:
                    wits[i] = wit
                self._extend(steps, 0, vals, ts, exp, wits, now, result)
        return result

    def _extend(self, steps, k, vals, ts, exp, wits, now, result) -> None:
        if k == len(steps):
            h0, h1 = self.head
            src, trg = vals[h0], vals[h1]
            got = self.out.admit((src, trg), ts, exp, now)
            if got is not None:
                wit = None
                if wits is not None:
                    wit = tuple(e for w in wits if w for e in w)
                result.append((src, trg, got[0], got[1], wit))
            return
        j, a, b, mode, conds = steps[k]
        index = self.indexes[j]
        if mode == _BOTH:
            row = index.by_src.get(vals[a])
            entry = row.get(vals[b]) if row is not None else None
            candidates = ((vals[a], vals[b], entry),) if entry is not None else ()
        elif mode == _SRC:
            row = index.by_src.get(vals[a])
            candidates = ((vals[a], t, e) for t, e in row.items()) if row else ()
        elif mode == _TRG:
            col = index.by_trg.get(vals[b])
            candidates = ((s, vals[b], e) for s, e in col.items()) if col else ()
        elif mode == _LOOP_BOUND:
            row = index.by_src.get(vals[a])
            entry = row.get(vals[a]) if row is not None else None
            candidates = ((vals[a], vals[a], entry),) if entry is not None else ()
        elif mode == _LOOP_FREE:
            candidates = ((s, t, e) for s, t, e in index.entries() if s == t)
        else:
            candidates = index.entries()
        for s, t, entry in list(candidates) if mode in (_NONE, _LOOP_FREE) else candidates:
            e_ts, e_exp = entry[0], entry[1]
            if e_exp <= now:
                continue
            vals[a] = s
            vals[b] = t
            if conds and not self._holds(conds, vals):
                continue
            if wits is not None:
                wits[j] = entry[2]
            self._extend(steps, k + 1, vals, ts if ts > e_ts else e_ts,
                         exp if exp < e_exp else e_exp, wits, now, result)

    def purge(self, now):
        self.out.purge(now)

    def size(self):
        return len(self.out)

    def _check(self):
        self.out._check()
