"""PATTERN with time variables: a join whose matches must respect a timing order
(specs/semantics.md §4b; Li, Zou, Özsu, Zhao, "Space-Efficient Subgraph Search over Streaming
Graph with Timing Order Constraint", §3).

`atom@t` binds the start of the run of validity of the tuple matched by the atom (each
`EdgeIndex` entry keeps its run's `start`, state/edge_index.py); `time_conditions` compare
those starts. As in PATTERN
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
operator's own state is its output coverage (the paper's MS-tree stores the partial matches
of each timing-order prefix instead; see specs/plans.md).

Deletions as in PATTERN (operators/probing_join.py), the time conditions checked on the way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..sgt import FOREVER, NEVER
from .base import BuildContext
from .join_plan import conditions_hold, join_plan, step_candidates
from .probing_join import ProbingJoin

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


class TimedPatternOp(ProbingJoin):
    __slots__ = (
        "plans",
        "head_plan",
        "port_checks",
        "step_checks",
        "head_checks",
        "tconds",
        "timed",
        "latest",
    )

    def __init__(self, node: Op, ctx: BuildContext) -> None:
        super().__init__(node, ctx)
        self.latest = NEVER  # the round's instant: no start on record is later
        self.timed = [name is not None for name in node.times]
        port = {name: k for k, name in enumerate(node.times) if name is not None}
        # a time condition as (left port, op, right port, offset, holds)
        self.tconds = [
            (port[c.left], c.op, port[c.right], c.offset, c.holds) for c in node.time_conditions
        ]
        self._plan(None)

    def _plan(self, fanout) -> None:
        """The join plans from every starting input and from both head variables
        (re-derivation), for the index statistics `fanout` (None: none yet), with the time
        checks each step can make."""
        bindings, conditions, tconds = self.bindings, self.conditions, self.tconds
        n = len(bindings)
        self.plans = []
        self.port_checks = []
        self.step_checks = []
        for i, (a, b) in enumerate(bindings):
            todo = [j for j in range(n) if j != i]
            conds, steps = join_plan(bindings, conditions, {a, b}, todo, fanout)
            self.plans.append(((a, b, conds), steps))
            first, *later = _time_checks([i] + [j for j, *_rest in steps], tconds)
            self.port_checks.append(first)
            self.step_checks.append(later)
        self.head_plan = join_plan(bindings, conditions, set(self.head), list(range(n)), fanout)
        _conds, head_steps = self.head_plan
        self.head_checks = _time_checks([j for j, *_rest in head_steps], tconds)

    # -- the join
    def process(self, batches: list, now: int) -> list:
        self.latest = now
        result: list = []
        for i, batch in enumerate(batches):
            if batch:
                for s, t, _ts, exp, wit in batch:
                    if exp > now:
                        self._start(i, s, t, now, exp, wit, now, result)
        return result

    def _start(self, i, s, t, _ts, exp, wit, now, result) -> None:
        """Join one tuple `(s, t)` of input i against the other inputs."""
        vals = self._bind_tuple(i, s, t)
        if vals is None:
            return
        _first, steps = self.plans[i]
        times = [None] * len(self.indexes)
        if self.timed[i]:
            entry = self.indexes[i].get(s, t)
            if entry is None:
                return  # not on record any more (an end record's tuple, purged)
            times[i] = entry.start
            if not _times_hold(self.port_checks[i], times, self.latest):
                return
        wits = [None] * len(self.indexes) if self.paths else None
        if wits is not None:
            wits[i] = wit
        self._extend(steps, self.step_checks[i], 0, vals, times, exp, wits, now, result)

    def _extend(self, steps, checks, k, vals, times, exp, wits, now, result) -> None:
        if k == len(steps):
            # a new match holds from `now` on: by timeliness it held nowhere before
            self._complete(vals, now, exp, wits, now, result)
            return
        j, a, b, mode, conds = steps[k]
        candidates = step_candidates(self.indexes[j], mode, vals[a], vals[b])
        timed = self.timed[j]
        step_checks = checks[k]
        for s, t, entry in candidates:
            e_exp = entry.exp
            if e_exp <= now:
                continue
            vals[a] = s
            vals[b] = t
            if conds and not conditions_hold(conds, vals):
                continue
            if timed:
                times[j] = entry.start
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
        return self._retract_by_probing(batches, now)

    def _from_head(self, steps, vals, wits, now) -> None:
        """The walk of `ProbingJoin._rederive`: from bound head variables, along `steps`."""
        times = [None] * len(self.indexes)
        self._extend(steps, self.head_checks, 0, vals, times, FOREVER, wits, now, None)

    # -- state


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
