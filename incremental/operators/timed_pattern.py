"""PATTERN with time variables: a join whose matches must respect a timing order
(specs/semantics.md §4b; Li, Zou, Özsu, Zhao, "Space-Efficient Subgraph Search over Streaming
Graph with Timing Order Constraint", §3).

`atom@t` binds the start of the run of validity of the tuple matched by the atom (each
`EdgeIndex` entry keeps its run's `start`, state/edge_index.py); `time_conditions` compare
those starts. As in PATTERN (operators/pattern.py) each input's state is the shared
`EdgeIndex` of its producer, and a new sgt of input i is joined, tuple by tuple, against the
other inputs' indexes along a join plan (operators/join_plan.py, meets fused as in PATTERN's
frontier: a variable two atoms constrain ranges over the intersection of their adjacency sets,
taken in C); a combination is valid on the intersection of its tuples' intervals.

The timing order prunes (the paper's §3, Def 6 "discardable edge" and Theorem 2): every start
on record is at most `now`, so once a start is bound, a condition that forces another atom's
start after `now` (`t1 < t2` with `t1 = now`) means no match can exist yet, and the branch
stops before probing anything. An input whose own start must then lie `lag` instants before
`now` (`t1 < t2`: lag 1) skips every tuple of its batch whose run starts later, reading only
that tuple's index entry: under a total order `t1 < t2 < ... < tk` only arrivals for the last
atom, and renewals of runs that began earlier, join at all. They walk back through the other
atoms, each candidate checked against the starts bound so far as soon as its own start is
known, on every bound the comparisons imply (operators/time_order.py: with `t2 < t1 < t3` a
walk that binds t3 and then t2 already checks `t2 <= t3 - 2`). Partial matches are not stored: when the edge that completes them arrives they are
rebuilt from the indexes, so the operator's own state is its output coverage (the paper's
MS-tree stores the partial matches of each timing-order prefix instead; see specs/plans.md).

Deletions as in PATTERN (operators/probing_join.py), the time conditions checked on the way.
Cost per new tuple: O(1) when its input must precede another and its run starts now, else
O(number of combinations that pass the time checks so far).
"""

from __future__ import annotations

from operator import le, ne
from typing import TYPE_CHECKING

from ..sgt import FOREVER, NEVER
from .base import BuildContext
from .join_plan import _SRC, _TRG, conditions_hold, fuse_meets, join_plan, step_candidates
from .probing_join import ProbingJoin
from .time_order import difference_bounds

if TYPE_CHECKING:
    from ...sga.algebra import Op


class TimedPatternOp(ProbingJoin):
    __slots__ = (
        "plans",
        "head_plan",
        "walks",
        "head_walk",
        "lags",
        "tconds",
        "timed",
        "latest",
        "planned",
    )

    def __init__(self, node: Op, ctx: BuildContext) -> None:
        super().__init__(node, ctx)
        self.latest = NEVER  # the round's instant: no start on record is later
        self.timed = [name is not None for name in node.times]
        port = {name: k for k, name in enumerate(node.times) if name is not None}
        # the comparisons as `(left port, op, right port, offset)`, checked as the bounds
        # they imply on each pair of starts (operators/time_order.py) and `!=` apart
        conds = [(port[c.left], c.op, port[c.right], c.offset) for c in node.time_conditions]
        self.tconds = (
            difference_bounds(conds),
            [(left, right, offset) for left, op, right, offset in conds if op == "!="],
        )
        self.lags = [
            _lag(_time_checks({i}, {i}, self.tconds)) if timed else None
            for i, timed in enumerate(self.timed)
        ]
        self.planned: dict = {}  # fan-out -> its plans: a fan-out that comes back is not re-planned
        self._plan(None)

    def _plan(self, fanout) -> None:
        """The join plans from every starting input and from both head variables
        (re-derivation), for the index statistics `fanout` (None: none yet), as walks
        (`_walk_steps`); made once per distinct fan-out (small windows flap between a few)."""
        key = None if fanout is None else tuple(fanout)
        got = self.planned.get(key)
        if got is None:
            got = self.planned[key] = self._plans_for(fanout)
        self.plans, self.walks, self.head_plan, self.head_walk = got

    def _plans_for(self, fanout) -> tuple:
        bindings, conditions, tconds = self.bindings, self.conditions, self.tconds
        n = len(bindings)
        plans = []
        walks = []
        for i, (a, b) in enumerate(bindings):
            todo = [j for j in range(n) if j != i]
            conds, steps = join_plan(bindings, conditions, {a, b}, todo, fanout)
            plans.append(((a, b, conds), steps))
            walks.append(_walk_steps(steps, {a, b}, {i}, tconds))
        head_plan = join_plan(bindings, conditions, set(self.head), list(range(n)), fanout)
        _conds, head_steps = head_plan
        _none, head_walk = _walk_steps(head_steps, set(self.head), set(), tconds)
        return plans, walks, head_plan, head_walk

    # -- the join
    def process(self, batches: list, now: int) -> list:
        self.latest = now
        result: list = []
        start = self._start
        lags = self.lags
        for i, batch in enumerate(batches):
            if not batch:
                continue
            lag = lags[i]
            if lag is not None and lag > 0:
                # only runs that began `lag` or more before now can join: a tuple whose run
                # starts later is skipped after one look at its own index entry
                by_src = self.indexes[i].by_src
                limit = now - lag
                for s, t, _ts, exp, wit in batch:
                    if exp > now and by_src[s][t].start <= limit:
                        start(i, s, t, now, exp, wit, now, result)
                continue
            for s, t, _ts, exp, wit in batch:
                if exp > now:
                    start(i, s, t, now, exp, wit, now, result)
        return result

    def _start(self, i, s, t, _ts, exp, wit, now, result) -> None:
        """Join one tuple `(s, t)` of input i against the other inputs."""
        vals = self._bind_tuple(i, s, t)
        if vals is None:
            return
        (futures, pairs), steps = self.walks[i]
        n = len(self.indexes)
        times = [None] * n
        if self.timed[i]:
            row = self.indexes[i].by_src.get(s)
            entry = None if row is None else row.get(t)
            if entry is None:
                return  # not on record any more (an end record's tuple, purged)
            times[i] = entry.start
            if (futures or pairs) and not _times_hold(futures, pairs, times, self.latest):
                return
        wits = None
        if self.paths:
            wits = [None] * n
            wits[i] = wit
        self._extend(steps, 0, vals, times, exp, wits, now, result)

    def _extend(self, steps, k, vals, times, exp, wits, now, result) -> None:
        if k == len(steps):
            # a new match holds from `now` on: by timeliness it held nowhere before
            self._complete(vals, now, exp, wits, now, result)
            return
        j, a, b, mode, conds, meets, futures, pairs = steps[k]
        if meets:
            self._meet(steps, k, vals, times, exp, wits, now, result)
            return
        timed = self.timed[j]
        latest = self.latest
        for s, t, entry in step_candidates(self.indexes[j], mode, vals[a], vals[b]):
            e_exp = entry.exp
            if e_exp <= now:
                continue
            vals[a] = s
            vals[b] = t
            if conds and not conditions_hold(conds, vals):
                continue
            if timed:
                times[j] = entry.start
                if (futures or pairs) and not _times_hold(futures, pairs, times, latest):
                    continue
            if wits is not None:
                wits[j] = entry.wit
            self._extend(
                steps, k + 1, vals, times, exp if exp < e_exp else e_exp, wits, now, result
            )

    def _meet(self, steps, k, vals, times, exp, wits, now, result) -> None:
        """A meet step: its new variable ranges over the keys common to input j's adjacency
        and to that of the inputs folded into it (`meets`, as `(j2, v is j2's src, j2's bound
        endpoint slot)`), the smallest of them iterated and the others probed; every input
        bound here is checked at once."""
        j, a, b, mode, conds, meets, futures, pairs = steps[k]
        index = self.indexes[j]
        if mode == _SRC:
            got = index.by_src.get(vals[a])
            v_slot = b
        else:
            got = index.by_targets().get(vals[b])
            v_slot = a
        if not got:
            return
        indexes, timed = self.indexes, self.timed
        sides = [(j, got, timed[j])]
        for j2, v_is_src, w in meets:
            index2 = indexes[j2]
            other = (index2.by_targets() if v_is_src else index2.by_src).get(vals[w])
            if not other:
                return
            sides.append((j2, other, timed[j2]))
        smallest = got
        for _port, adjacency, _is_timed in sides:
            if len(adjacency) < len(smallest):
                smallest = adjacency
        checks = futures or pairs
        latest = self.latest
        for v in smallest:
            c_exp = exp
            for port, adjacency, is_timed in sides:
                entry = adjacency.get(v)
                if entry is None:
                    break
                if entry.exp < c_exp:
                    c_exp = entry.exp
                if is_timed:
                    times[port] = entry.start
                if wits is not None:
                    wits[port] = entry.wit
            else:
                if c_exp <= now:
                    continue
                vals[v_slot] = v
                if conds and not conditions_hold(conds, vals):
                    continue
                if checks and not _times_hold(futures, pairs, times, latest):
                    continue
                self._extend(steps, k + 1, vals, times, c_exp, wits, now, result)

    # -- deletions
    def retract(self, batches: list, now: int) -> list:
        self.latest = now
        return self._retract_by_probing(batches, now)

    def _from_head(self, steps, vals, wits, now) -> None:
        """The walk of `ProbingJoin._rederive`: from bound head variables, along
        `head_walk` (the head plan's `steps` with their time checks, made by `_plan`)."""
        times = [None] * len(self.indexes)
        self._extend(self.head_walk, 0, vals, times, FOREVER, wits, now, None)


def _walk_steps(steps, bound_vars: set, bound_ports: set, tconds: tuple) -> tuple:
    """The join plan `steps` as a walk: meets fused (`fuse_meets`), each step `(j, a, b,
    mode, conditions, meets, futures, pairs)` with the time checks that become possible once
    the inputs it binds have their starts (`_time_checks`); and the checks possible before the
    first step, on `bound_ports` alone."""
    fused = fuse_meets(steps, bound_vars)
    bound = set(bound_ports)
    first = _time_checks(bound, bound, tconds)
    walk = []
    for j, a, b, mode, conds, also in fused:
        if also and mode not in (_SRC, _TRG):  # pragma: no cover - fuse_meets folds into these
            raise AssertionError(mode)
        ports = {j} | {j2 for j2, _v_is_src, _w in also}
        bound |= ports
        walk.append((j, a, b, mode, conds, also, *_time_checks(ports, bound, tconds)))
    return first, tuple(walk)


def _time_checks(new: set, bound: set, tconds: tuple) -> tuple:
    """`(futures, pairs)` for the moment the starts of the ports `new` are bound (`bound`: all
    bound then), from `tconds` = (the implied bounds `{(a, b): c}`, the `!=` comparisons):
    `pairs` `(op, a, b, c)`, `op(times[a], times[b] + c)`, are the checks with both sides
    bound now and not before; `futures` `(a, d)`, one per new port a with a bound on a port
    not bound yet, stop a branch whose other side would have to start at `times[a] + d` or
    later, after `now`."""
    bounds, unequal = tconds
    pairs = []
    later: dict = {}
    for (a, b), c in bounds.items():
        if a in bound and b in bound:
            if a in new or b in new:
                pairs.append((le, a, b, c))
        elif a in new:  # t_b >= t_a - c
            later[a] = max(later.get(a, -c), -c)
    for left, right, offset in unequal:
        if left in bound and right in bound and (left in new or right in new):
            pairs.append((ne, left, right, offset))
    return tuple(later.items()), tuple(pairs)


def _lag(checks: tuple) -> int | None:
    """How long before `now` a start must be to pass the `futures` of `checks` (the largest
    d), or None when there are none."""
    futures, _pairs = checks
    return max((d for _port, d in futures), default=None)


def _times_hold(futures, pairs, times, latest) -> bool:
    """Whether the bound starts `times` pass the checks of `_time_checks`; `latest`: the
    latest start any tuple on record can have (the round's instant)."""
    for port, d in futures:
        if times[port] + d > latest:
            return False
    for op, left, right, offset in pairs:
        if not op(times[left], times[right] + offset):
            return False
    return True
