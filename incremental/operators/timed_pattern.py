"""PATTERN with time variables: a join whose matches must respect a timing order
(specs/semantics.md §4b; Li, Zou, Özsu, Zhao, "Space-Efficient Subgraph Search over Streaming
Graph with Timing Order Constraint", §3).

`atom@t` binds the start of the run of validity of the tuple matched by the atom (kept per
input stream by `state/run_starts.py`); `time_conditions` compare those starts. As in PATTERN
(operators/pattern.py) each input's state is the shared `EdgeIndex` of its producer, and a new
sgt of input i is joined, tuple by tuple, against the other inputs' indexes along a join plan
(operators/join_plan.py); a combination is valid on the intersection of its tuples' intervals.

The timing order prunes (the paper's §3, Def 6 "discardable edge" and Theorem 2): every start
on record is at most `now`, so once a start is bound, a condition that forces another atom's
start after `now` (`t1 < t2` with `t1 = now`) means no match can exist yet, and the branch
stops before probing anything. Under a total order `t1 < t2 < ... < tk` only an arrival for
the last atom joins; it then walks back through the earlier atoms, each candidate checked
against the starts bound so far as soon as its own start is known. Partial matches are not
stored: when the edge that completes them arrives they are rebuilt from the indexes, so the
operator's state is its output coverage and the run starts of its timed inputs (the paper's
MS-tree stores the partial matches of each timing-order prefix instead; see specs/plans.md).

Deletions as in PATTERN: an end record collects the head keys built on it, each is re-derived
with both head variables bound (time conditions included), and cut to its best remaining exp.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..sgt import FOREVER, NEVER
from ..state.coalescer import Coalescer
from ..state.run_starts import RunStarts
from ..stateful import StateError, restore_into, state_of
from .base import BuildContext, PhysicalOperator
from .join_plan import _BOTH, _LOOP_BOUND, _LOOP_FREE, _SRC, _TRG, Condition, join_plan

if TYPE_CHECKING:
    from ...sga.algebra import Op

#: conditions that force their unbound side later than the bound one: (op, bound side)
_FORCES_LATER = {("<", "left"), ("<=", "left"), ("=", "left")} | {
    (">", "right"),
    (">=", "right"),
    ("=", "right"),
}


def _after_now(op: str, bound_is_left: bool, value: int, offset: int, now: int) -> bool:
    """Whether `left op right + offset`, one side bound to `value`, forces the other side's
    start after `now` (then no tuple on record can match it yet)."""
    if bound_is_left:  # value op r + offset: r > or >= value - offset
        need = value - offset
        return need >= now if op == "<" else need > now
    need = value + offset  # l op need
    return need >= now if op == ">" else need > now


class TimedPatternOp(PhysicalOperator):
    __slots__ = (
        "indexes",
        "starts",
        "runs",
        "plans",
        "head",
        "head_plan",
        "nvars",
        "bindings",
        "out",
        "paths",
        "probe",
        "port_checks",
        "step_checks",
        "head_checks",
        "timed",
        "latest",
    )

    def __init__(self, node: Op, ctx: BuildContext) -> None:
        super().__init__(node)
        self.indexes = [ctx.index_of(inp) for inp in node.inputs]
        self.paths = ctx.paths
        self.probe = None  # set while retract() collects keys or re-derives one
        self.latest = NEVER  # the round's instant: no start on record is later
        self.out = Coalescer()
        # one RunStarts per distinct timed input node (a node read twice shares it)
        by_node: dict = {}
        self.starts: list[RunStarts | None] = []
        for inp, name in zip(node.inputs, node.times):
            if name is None:
                self.starts.append(None)
            else:
                self.starts.append(by_node.setdefault(inp, RunStarts()))
        self.runs = list(by_node.values())
        self.timed = [k for k, name in enumerate(node.times) if name is not None]
        slot: dict[str, int] = {}
        for s, t in node.bindings:
            slot.setdefault(s, len(slot))
            slot.setdefault(t, len(slot))
        self.nvars = len(slot)
        head_src, head_trg = node.head
        self.head = (slot[head_src], slot[head_trg])
        conditions = [
            Condition(slot[c.left], c.op == "=", None, str(c.right))
            if c.right_const
            else Condition(slot[c.left], c.op == "=", slot[c.right], None)
            for c in node.conditions
        ]
        self.bindings = [(slot[s], slot[t]) for s, t in node.bindings]
        port = {name: k for k, name in enumerate(node.times) if name is not None}
        # a time condition as (left port, op, right port, offset, holds)
        tconds = [(port[c.left], c.op, port[c.right], c.offset, c.holds) for c in node.time_conditions]
        n = len(self.bindings)
        self.plans = []
        self.port_checks = []
        self.step_checks = []
        for i, (a, b) in enumerate(self.bindings):
            conds, steps = join_plan(self.bindings, conditions, {a, b}, [j for j in range(n) if j != i])
            self.plans.append(((a, b, conds), steps))
            order = [i] + [j for j, *_rest in steps]
            first, *later = _time_checks(order, tconds)
            self.port_checks.append(first)
            self.step_checks.append(later)
        self.head_plan = join_plan(self.bindings, conditions, set(self.head), list(range(n)))
        _conds, head_steps = self.head_plan
        self.head_checks = _time_checks([j for j, *_rest in head_steps], tconds)

    @staticmethod
    def _holds(conds, vals) -> bool:
        for left, eq, right, const in conds:
            if (vals[left] == (const if right is None else vals[right])) != eq:
                return False
        return True

    # -- feeding the run starts
    def _see(self, batches: list, now: int) -> None:
        for k in self.timed:
            batch = batches[k]
            if batch:
                see = self.starts[k].see
                for s, t, _ts, exp, _wit in batch:
                    see((s, t), exp, now)

    def _cut(self, batches: list) -> None:
        for k in self.timed:
            batch = batches[k]
            if batch:
                cut = self.starts[k].cut
                for s, t, _ts, exp, _wit in batch:
                    cut((s, t), exp)

    # -- the join
    def process(self, batches: list, now: int) -> list:
        self.latest = now
        self._see(batches, now)
        result: list = []
        for i, batch in enumerate(batches):
            if batch:
                for s, t, _ts, exp, wit in batch:
                    if exp > now:
                        self._start(i, s, t, exp, wit, now, result)
        return result

    def _start(self, i, s, t, exp, wit, now, result) -> None:
        """Join one tuple `(s, t)` of input i against the other inputs."""
        (s_slot, t_slot, conds), steps = self.plans[i]
        if s_slot == t_slot and s != t:
            return
        vals = [None] * self.nvars
        vals[s_slot] = s
        vals[t_slot] = t
        if conds and not self._holds(conds, vals):
            return
        times = [None] * len(self.indexes)
        runs = self.starts[i]
        if runs is not None:
            start = runs.start((s, t))
            if start is None:
                return  # not valid any more (an end record's tuple, already forgotten)
            times[i] = start
            if not _times_hold(self.port_checks[i], times, self.latest):
                return
        wits = [None] * len(self.indexes) if self.paths else None
        if wits is not None:
            wits[i] = wit
        self._extend(steps, self.step_checks[i], 0, vals, times, exp, wits, now, result)

    def _extend(self, steps, checks, k, vals, times, exp, wits, now, result) -> None:
        if k == len(steps):
            h0, h1 = self.head
            src, trg = vals[h0], vals[h1]
            if self.probe is not None:
                self.probe(src, trg, exp, wits)
                return
            got = self.out.admit((src, trg), now, exp, now)
            if got is not None:
                wit = tuple(e for w in wits if w for e in w) if wits is not None else None
                g_ts, g_exp = got
                result.append((src, trg, g_ts, g_exp, wit))
            return
        j, a, b, mode, conds = steps[k]
        index = self.indexes[j]
        if mode == _BOTH:
            entry = index.get(vals[a], vals[b])
            candidates = ((vals[a], vals[b], entry),) if entry is not None else ()
        elif mode == _SRC:
            row = index.successors(vals[a])
            candidates = ((vals[a], t, e) for t, e in row.items()) if row else ()
        elif mode == _TRG:
            col = index.predecessors(vals[b])
            candidates = ((s, vals[b], e) for s, e in col.items()) if col else ()
        elif mode == _LOOP_BOUND:
            entry = index.get(vals[a], vals[a])
            candidates = ((vals[a], vals[a], entry),) if entry is not None else ()
        elif mode == _LOOP_FREE:
            candidates = [(s, t, e) for s, t, e in index.entries() if s == t]
        else:
            candidates = list(index.entries())
        runs = self.starts[j]
        step_checks = checks[k]
        for s, t, entry in candidates:
            e_exp = entry.exp
            if e_exp <= now:
                continue
            vals[a] = s
            vals[b] = t
            if conds and not self._holds(conds, vals):
                continue
            if runs is not None:
                start = runs.start((s, t))
                if start is None:
                    continue
                times[j] = start
                if step_checks and not _times_hold(step_checks, times, self.latest):
                    continue
            if wits is not None:
                wits[j] = entry.wit
            self._extend(
                steps, checks, k + 1, vals, times, exp if exp < e_exp else e_exp, wits, now, result
            )
        times[j] = None

    # -- deletions
    def retract(self, batches: list, now: int) -> list:
        self.latest = now
        self._cut(batches)
        touched: dict = {}

        def collect(src, trg, _exp, _wits):
            touched[(src, trg)] = None

        self.probe = collect
        try:
            for i, batch in enumerate(batches):
                if batch:
                    for s, t, _ts, _exp, _wit in batch:
                        # `now - 1`: entries cut at `now` in this round still join
                        self._start(i, s, t, FOREVER, None, now - 1, None)
            result: list = []
            cut = self.out.cut
            for key in touched:
                exp, wit = self._rederive(key, now)
                got = cut(key, exp, now, self.paths)
                if got is not None:
                    src, trg = key
                    g_ts, g_end = got
                    result.append((src, trg, g_ts, g_end, wit))
            return result
        finally:
            self.probe = None

    def _rederive(self, key, now) -> tuple:
        """`(exp, witness)` of the longest-lived derivation of head `key` (exp `now`: none)."""
        h0, h1 = self.head
        src, trg = key
        if h0 == h1 and src != trg:
            return now, None
        vals = [None] * self.nvars
        vals[h0], vals[h1] = src, trg
        conds, steps = self.head_plan
        if conds and not self._holds(conds, vals):
            return now, None
        best = {"exp": now, "wit": None}
        paths = self.paths

        def keep(_src, _trg, exp, wits):
            if exp > best["exp"]:
                best["exp"] = exp
                best["wit"] = tuple(e for w in wits if w for e in w) if paths else None

        self.probe = keep
        times = [None] * len(self.indexes)
        wits = [None] * len(self.indexes) if paths else None
        self._extend(steps, self.head_checks, 0, vals, times, FOREVER, wits, now, None)
        return best["exp"], best["wit"]

    # -- state
    def purge(self, now: int) -> None:
        self.out.purge(now)
        for runs in self.runs:
            runs.purge(now)

    def size(self) -> int:
        return len(self.out) + sum(len(runs) for runs in self.runs)

    def state(self) -> dict:
        """The output's coverage and the run starts of each timed input node."""
        return {"output": state_of(self.out), "starts": [state_of(r) for r in self.runs]}

    def restore(self, state: dict) -> None:
        restore_into(self.out, state["output"])
        if len(state["starts"]) != len(self.runs):
            raise StateError(f"{len(state['starts'])} run tables saved, {len(self.runs)} here")
        for runs, saved in zip(self.runs, state["starts"]):
            restore_into(runs, saved)

    def _check(self) -> None:
        self.out._check()
        for runs in self.runs:
            runs._check()


def _time_checks(order: list, tconds: list) -> list:
    """Per position of the join `order` (input ports): the time conditions to test once that
    input's start is bound, as `(holds, left port, right port, None)` when both sides are bound
    then, and `(op, bound port, offset, bound is left)` "future" checks when only this side
    is: they stop a branch whose other side would have to start after `now`."""
    bound: set = set()
    out = []
    for port in order:
        bound.add(port)
        checks = []
        for left, op, right, offset, holds in tconds:
            if port not in (left, right):
                continue
            if left in bound and right in bound:
                checks.append((holds, left, right, None))
            elif (op, "left" if port == left else "right") in _FORCES_LATER:
                checks.append((op, port, offset, port == left))
        out.append(tuple(checks))
    return out


def _times_hold(checks, times, latest) -> bool:
    """Whether the bound starts `times` pass `checks` (from `_time_checks`); `latest`: the
    latest start any tuple on record can have (the round's instant)."""
    for first, a, b, last in checks:
        if last is None:
            if not first(times[a], times[b]):
                return False
        elif _after_now(first, last, times[a], b, latest):
            return False
    return True
