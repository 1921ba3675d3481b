"""PATTERN: an n-ary symmetric hash join on shared variables (thesis Def 33, 5.4, Algorithm
PATTERN with the erratum fixed: the result interval is the intersection).

Each input's state is the shared interval-annotated `EdgeIndex` of its producing node (by src
and by trg, largest exp per key). A batch of new sgts on input i is joined, tuple by tuple,
against the other inputs' indexes (which already hold this round's batches, so every new
combination is found at least once; repeats are coalesced). The join order per starting input:
next the input with the most variables already bound; among those with one bound, the one whose
index has the fewest entries per key (re-planned once per slide from the indexes' sizes).

Intervals: a result is valid on `[max ts, min exp)` of its inputs; every stored entry that
holds `now` makes that interval hold `now`; entries with `exp <= now` are expired and skipped,
and `purge` drops them from the indexes (no negative tuples: the direct approach). VarConditions
(`x != y`, `x = "c"`) are applied as soon as their variables are bound. A row with two bound
vertices expands first from the one with the fewer entries; a span may find its entering keys
from a guard atom instead (docs/design/pattern-keys.md). Output is coalesced per
(head src, head trg); as the engine's output in delta mode, read by no operator, the head keys
go out as native deltas (operators/native_keys.py). Cost per new tuple: O(number of matching
combinations).

Deletions (`retract`, operators/probing_join.py): an end record of `(s, t)` on input i is
joined like a new tuple, through the same hash indexes, but only to collect the head keys built
on it (an entry cut in this very round is still found: it ends at `now`, so the probe admits
entries with `exp >= now`). Each such key is then re-derived by probing with both head
variables bound (a join plan of its own), which yields its longest-lived remaining derivation;
when that ends before the emitted coverage, the key gets an end record (at `now` if nothing
derives it). Cost per end record: O(combinations through it + re-derivations of the keys it
touched).
"""

from __future__ import annotations

import math
from operator import itemgetter
from typing import TYPE_CHECKING

from ..sgt import FOREVER, NEVER
from ..stateful import state_of
from .base import BuildContext
from .functional_join import FunctionalJoin
from .join_plan import (
    _BOTH,
    _LOOP_BOUND,
    _LOOP_FREE,
    _NONE,
    _SRC,
    _TRG,
    conditions_hold,
    frontier_steps,
    join_plan,
    step_candidates,
)
from .probing_join import ProbingJoin

_PROBES = (_BOTH, _LOOP_BOUND)  # steps that bind no variable
#: guard entries a scan reads before it may give up at the rate of candidates so far
GUARD_SAMPLE = 256

if TYPE_CHECKING:
    from ...sga.algebra import Op


class PatternOp(ProbingJoin):
    __slots__ = (
        "plans",
        "head_plan",
        "frontier_plans",
        "head_frontier",
        "head_sides",
        "seed_sides",
        "seed_head",
        "batched",
        "functional",
        "deferred",
        "guard",
        "guard_scan",
        "renewed_share",
        "renewals_seen",
        "watching",
        "taken",
        "renewed",
    )

    def __init__(self, node: Op, ctx: BuildContext) -> None:
        super().__init__(node, ctx)
        tuning = ctx.options.tuning  # base/options.py
        self.batched = tuning.batched_joins  # whole batches breadth-first (else tuple by tuple)
        self._plan(None)
        self.guard = guard_of(self.bindings, self.head)
        self.guard_scan = tuning.guard_scan  # guard entries a span may scan per new tuple
        self.renewed_share = tuning.renewed_share  # (`_watch_renewals`)
        self.renewals_seen = tuning.renewals_seen
        #: native keys' ends are exact and may turn re-derived (`_watch_renewals`), which
        #: counts the tuples taken and the renewals among them
        self.watching = False
        self.taken = self.renewed = 0
        # keys with one derivation each: their coverage read off the inputs' entries (native
        # keys then get exact ends: nothing to re-derive)
        self.functional = (
            FunctionalJoin.of(
                self.bindings,
                self.head,
                self.conditions,
                self.indexes,
                self.native is None and ctx.fan_rows(node),
            )
            if tuning.functional_joins
            and self.batched
            and not self.paths
            # (an intersection's input joins keyed: the functional join takes no spans)
            and not ctx.intersection_side(node)
            else None
        )
        if self.functional is None:
            self._exact_native_ends()
        # rows read by the engine's output alone: a renewed input tuple re-joins nothing, the
        # keys' ends are re-derived when they come up (`overdue`)
        self.deferred = (
            tuning.deferred_widenings
            and self.native is None
            and self.batched
            and not self.paths
            and ctx.engine_output(node)
        )

    def _plan(self, fanout) -> None:
        """The join plans from every starting input, from both head variables (re-derivation)
        and from each head variable alone, for the index statistics `fanout` (None: none yet)."""
        bindings, conditions = self.bindings, self.conditions
        n = len(bindings)
        self.plans = []
        for i, (a, b) in enumerate(bindings):
            conds, steps = join_plan(
                bindings, conditions, {a, b}, [j for j in range(n) if j != i], fanout
            )
            self.plans.append(((a, b, conds), steps))
        self.head_plan = join_plan(bindings, conditions, set(self.head), list(range(n)), fanout)
        # (one atom: a seed, filtered by `_seed`, is its keys once put in head order)
        self.frontier_plans = [
            frontier_steps(steps, self.head, (a, b)) if n > 1 else ()
            for (a, b, _c), steps in self.plans
        ]
        self.seed_head = _head_order(*bindings, self.head) if n == 1 else None
        _conds, head_steps = self.head_plan
        self.head_frontier = frontier_steps(head_steps, self.head, self.head)
        self.head_sides = self._sides(self.head, list(range(n)), fanout)
        self.seed_sides = (
            [
                self._sides((a, b), [j for j in range(n) if j != i], fanout)
                for i, (a, b) in enumerate(bindings)
            ]
            if n > 1
            else [None]
        )

    def _sides(self, layout: tuple, todo: list, fanout) -> tuple | None:
        """For each variable of `layout` (two bound variables: the head's, or a starting
        input's), `(frontier steps, input, mode, position in layout)`: the plan over `todo`
        that first expands from that variable, and that first expansion; None when the two
        are one variable, or both plans first bind the same variable (then each intersects
        the same two adjacencies: a meet, e.g. `m` of a chain `b(x, m), c(m, y)`). A row then
        goes the way whose first adjacency is smaller (`_by_sides`)."""
        v0, v1 = layout
        if v0 == v1:
            return None
        sides, first_bound = [], set()
        for v in layout:
            _conds, steps = join_plan(
                self.bindings, self.conditions, set(layout), todo, fanout, first_from=v
            )
            # the first step that binds a variable: an expansion from `v`, or no sides
            binding = ((j, a, b, mode) for j, a, b, mode, _c in steps if mode not in _PROBES)
            j, a, b, mode = next(binding, (None, None, None, _NONE))
            if (mode, a) != (_SRC, v) and (mode, b) != (_TRG, v):
                return None
            first_bound.add(b if mode == _SRC else a)
            sides.append((frontier_steps(steps, self.head, layout), j, mode, layout.index(v)))
        return tuple(sides) if len(first_bound) == 2 else None

    def _by_sides(self, sides, steps, frontier: dict, now) -> dict:
        """`_frontier(steps, frontier)`, each row expanding first from whichever of its two
        bound vertices has the fewer entries in that way's first adjacency (`_sides`:
        Generic Join's choice of the smallest adjacency, per row); a row with no entries
        there has no combination."""
        if sides is None:
            return self._frontier(steps, frontier, now)
        (steps_a, j_a, mode_a, at_a), (steps_b, j_b, mode_b, at_b) = sides
        adjacency_a = self._adjacency(j_a, mode_a).get
        adjacency_b = self._adjacency(j_b, mode_b).get
        rows_a, rows_b = {}, {}
        for row, interval in frontier.items():
            got_a = adjacency_a(row[at_a])
            got_b = adjacency_b(row[at_b])
            if got_a and got_b:
                (rows_a if len(got_a) <= len(got_b) else rows_b)[row] = interval
        out = self._frontier(steps_a, rows_a, now) if rows_a else {}
        if rows_b:
            for key, (ts, exp) in self._frontier(steps_b, rows_b, now).items():
                _widest(out, key, ts, exp)
        return out

    def process(self, batches: list, now: int) -> list:
        functional = self.functional
        if functional is not None:
            rows = functional.process(batches, now)
            if rows is not None:
                if self.native is None:
                    return rows
                self.native.admit((((s, t), (ts, exp)) for s, t, ts, exp, _w in rows), now)
                return []
            self._stop_functional(now, batches)  # no side functional any more
        if self.watching and self.native is not None:
            self._watch_renewals(batches, now, False)
        result: list = []
        ports = 0
        for i, batch in enumerate(batches):
            if not batch:
                continue
            ports += 1
            if self.batched and not self.paths:
                self._join_batch(i, batch, now, result)
                continue
            for s, t, ts, exp, wit in batch:
                if exp <= now:
                    continue
                self._start(i, s, t, ts, exp, wit, now, result)
        if ports > 1 and len(result) > 1 and not self.paths:
            # a key the batches of two inputs both widened: the round shows its last row
            # (the coverage's interval then, the earlier one's start kept)
            last: dict = {}
            for row in result:
                src, trg, *_rest = row
                last[src, trg] = row
            if len(last) < len(result):
                result = list(last.values())
        return result

    def _keyed_batches(self) -> bool:
        """Whether native deltas come from the keyed batch join (or will, once a functional
        join ends)."""
        return self.native is not None and self.batched and not self.paths

    def _rederive_native_ends(self) -> None:
        """Where the keyed batch join gives native deltas, their ends are re-derived when
        they come up: a renewed input tuple joins nothing (operators/native_keys.py)."""
        self.watching = False
        if self._keyed_batches():
            self.native.rederive_ends(self._longest)

    def _exact_native_ends(self) -> None:
        """Where the keyed batch join gives native deltas, it joins renewed input tuples too
        (exact ends, nothing to re-derive) until renewals are `renewed_share` of the tuples
        it takes (`_watch_renewals`); with no share, it re-derives from the start."""
        if not self.renewed_share:
            self._rederive_native_ends()
        else:
            self.watching = self._keyed_batches()

    def _watch_renewals(self, batches: list, first: int, span: bool) -> None:
        """Count the tuples of a round (`span`: of a span starting at `first`) and those that
        renew a tuple valid before it. Once more than `renewed_share` of the tuples taken
        (past the first `renewals_seen`) renew one, ends are re-derived from this round on:
        each renewal would re-join every combination its tuple is in, only to move ends,
        where re-deriving costs one head-bound join per key whose end comes up. Exact ends
        are lower bounds, so the switch holds at any round. O(1) per tuple."""
        for i, batch in enumerate(batches):
            if batch:
                self.taken += len(batch)
                if span:
                    by_src = self.indexes[i].by_src
                    self.renewed += sum(by_src[s][t].ts < first for s, t, _ts, _e, _w in batch)
                else:
                    self.renewed += sum(ts < first for _s, _t, ts, _e, _w in batch)
        if self.taken >= self.renewals_seen and self.renewed > self.renewed_share * self.taken:
            self._rederive_native_ends()

    def _row_batches(self) -> bool:
        """Whether rows come from the keyed batch join and widen at once (not deferred)."""
        return self.native is None and self.batched and not self.paths and not self.deferred

    def spans(self) -> bool:
        """Native deltas, or rows (for other operators: runtime `_rows_only_operators_read`),
        from the keyed batch join: a span's sgts (several instants of one expiry-free stretch,
        each at its own `ts`) are joined at once (`process_span`)."""
        return self.functional is None and (self._keyed_batches() or self._row_batches())

    def spans_later(self) -> bool:
        """While a functional join runs: once it ends, the keyed join takes spans."""
        return self.functional is not None and (self._keyed_batches() or self._row_batches())

    def process_span(self, batches: list) -> list:
        """`process` over a span (see `spans`): each input's batch joined as of the span's
        first instant (no index entry valid then ends inside the span: runtime `span_end`),
        and the keys all of them derive merged before they are admitted, so that a key enters
        at its earliest combination whichever input found it. With re-derived ends, a batch's
        sgts that renew a tuple valid before the span are left out (`_started_since`).
        Rows (for other operators) are the Coalescer's, in time order: a key that enters from
        its start, one that widens from `first` (whose entry in the reader's index keeps its
        start: runtime `_rows_only_operators_read`)."""
        first = min(ts for batch in batches if batch for _s, _t, ts, _exp, _wit in batch)
        keys = None
        if self.native is None:
            return self._span_rows(self._span_keys(batches, first), first)
        if self.watching:
            self._watch_renewals(batches, first, True)
        if self.native.rederive is not None:
            batches = [
                _started_since(batch, self.indexes[i].by_src, first) if batch else batch
                for i, batch in enumerate(batches)
            ]
            keys = self._guarded_keys(batches, first)
        if keys is None:
            keys = self._span_keys(batches, first)
        if keys:
            self.native.admit(keys.items(), first)
        return []

    def _span_keys(self, batches: list, first: int) -> dict:
        """The keys `{(src, trg): (ts, exp)}` the batches of a span derive, merged (the
        smaller batches' keys into the largest's)."""
        keys: dict = {}
        for i, batch in enumerate(batches):
            if batch:
                got = self._batch_keys(i, batch, first)
                if len(got) > len(keys):
                    keys, got = got, keys
                for key, (ts, exp) in got.items():
                    _widest(keys, key, ts, exp)
        return keys

    def _span_rows(self, keys: dict, first: int) -> list:
        """The rows of a span's keys (`process_span`), in time order."""
        admit = self.out.admit
        rows = []
        for (src, trg), (ts, exp) in keys.items():
            got = admit((src, trg), ts, exp, first)
            if got is not None:
                start, end = got
                rows.append((src, trg, start if start > first else first, end, None))
        rows.sort(key=_ts_of)
        return rows

    def _guarded_keys(self, batches: list, first: int) -> dict | None:
        """The keys that enter in a span, found from the guard (an atom on both head
        variables, `guard_of`) rather than joined from the span's new tuples `batches`; None when
        that is not cheaper. A key not live at `first` has no combination of tuples all valid
        before the span (it would have held then), so a key that may enter is a guard entry
        valid in the span whose key is not live at `first` and whose head vertices have
        entries in every atom on them (`_head_ends`); each such candidate is derived with both
        head variables bound, its earliest start and latest end as the new tuples' joins would
        give them. Chosen when the candidates are fewer than the new tuples (each of which
        would start a join of its own) and the guard's index holds at most `guard_scan`
        entries per new tuple (an infinite `guard_scan` takes the guard always): on a stream
        whose pairs recur, most new tuples only derive keys already live. Cost: O(guard
        entries + head-bound joins of the candidates)."""
        guard = self.guard
        if guard is None:
            return None
        j, forward = guard
        seeds = sum(len(batch) for batch in batches if batch)
        index = self.indexes[j]
        total, scanned = len(index), 0
        if total > self.guard_scan * seeds:
            return None
        live = self.native.out.live.get
        ends = self._head_ends(j)
        candidates = []
        sure = self.guard_scan == math.inf
        for s, row in index.by_src.items():
            for t, entry in row.items():
                if entry.exp <= first:
                    continue
                key = (s, t) if forward else (t, s)
                until = live(key)
                if until is None or until < first:
                    for adjacency, at in ends:
                        if key[at] not in adjacency:
                            break
                    else:
                        candidates.append(key)
            scanned += len(row)
            # given up once the candidates are, or will be at the rate so far, as many as
            # the new tuples
            found = len(candidates)
            if not sure and (
                found >= seeds or (scanned >= GUARD_SAMPLE and found * total > seeds * scanned)
            ):
                return None
        if not candidates:
            return {}
        return self._rederive_batch(candidates, first)

    def _head_ends(self, skip: int | None = None) -> list:
        """`(adjacency, head position)` for each endpoint of an atom (other than `skip`) that
        is a head variable: a key whose vertex at that position has no entry there has no
        derivation. The by-target maps only where an index already keeps one (no map is built
        for a test)."""
        head = self.head
        ends = []
        for j, (a, b) in enumerate(self.bindings):
            if j == skip:
                continue
            index = self.indexes[j]
            for v, adjacency in ((a, index.by_src), (b, index.by_trg)):
                if v in head and adjacency is not None:
                    ends.append((adjacency, head.index(v)))
        return ends

    def _join_batch(self, i, batch, now, result) -> None:
        """Join a whole batch of input i breadth-first (`_batch_keys`) and admit each head key
        once, with its largest exp."""
        frontier = self._batch_keys(i, batch, now)
        if not frontier:
            return
        native = self.native
        if native is not None:
            native.admit(frontier.items(), now)
            return
        admit = self.out.admit
        for key, (ts, exp) in frontier.items():
            got = admit(key, ts, exp, now)
            if got is not None:
                src, trg = key
                g_ts, g_exp = got
                result.append((src, trg, g_ts, g_exp, None))

    def _batch_keys(self, i, batch, now) -> dict:
        """The head keys `{(src, trg): (ts, exp)}` a batch of input i derives (`_frontier`)."""
        native = self.native
        fresh = self.deferred or (native is not None and native.rederive is not None)
        frontier = self._seed(i, batch, now, False, fresh)
        if not frontier:
            return frontier
        if self.seed_head is not None:
            return _reordered(frontier, self.seed_head)
        return self._by_sides(self.seed_sides[i], self.frontier_plans[i], frontier, now)

    def _seed(self, i, batch, now, retracting: bool, fresh: bool = False) -> dict:
        """The starting frontier `{(s, t): (ts, exp)}` of a batch of input i (an end record
        counts as valid for ever: it only has to find what it joined with). `fresh`: only the
        tuples that start at `now`: one that started earlier held at `now - 1` (timeliness), so
        every combination it is in without a tuple of this instant held then too, and its key
        is live; a combination with one is found from that tuple's own batch. (For native keys
        whose ends are re-derived when they come up: operators/native_keys.py.)"""
        (s_slot, t_slot, conds), _steps = self.plans[i]
        loop = s_slot == t_slot
        if not (retracting or fresh or loop or conds):
            # the common case in one pass: a producer's round has one row per key (a PATH's
            # widenings), each live, so the keys are distinct and live unless the counts
            # differ (then the loop below)
            frontier = {(s, t): (ts, exp) for s, t, ts, exp, _wit in batch if exp > now}
            if len(frontier) == len(batch):
                return frontier
        frontier = {}
        for s, t, ts, exp, _wit in batch:
            if retracting:
                ts, exp = NEVER, FOREVER
            elif fresh and ts < now:
                continue
            if exp <= now or (loop and s != t):
                continue
            if conds:
                vals = [None] * self.nvars
                vals[s_slot] = s
                vals[t_slot] = t
                if not conditions_hold(conds, vals):
                    continue
            _widest(frontier, (s, t), ts, exp)
        return frontier

    def _frontier(self, fsteps, frontier: dict, now) -> dict:
        """Run partial results `{row: (ts, exp)}` through the steps of `frontier_steps`:
        after each step project on the variables still needed and merge, per projected row, the
        earliest start and the latest end of its combinations (`_widest`). Merging early is
        exact because every combination of a round holds at its last instant (a round is one
        instant, or a span with no expiry inside): intervals that share a point unite into one,
        and `[max ts, min exp)` is monotone in each input's bounds. Returns `{(head src, head
        trg): (ts, exp)}`. Same result as joining tuple by tuple, up to coalescing, with much
        less work when many combinations share their head key (thesis 5.5.3: batch the work
        per operator)."""
        for step in fsteps:
            if not frontier:
                break
            _j, mode, _pa, _pb, _conds, _project, meets, _recipe = step
            if meets:
                frontier = self._meet(step, frontier, now)
            elif mode == _SRC or mode == _TRG:
                frontier = self._expand(step, frontier, now)
            else:
                frontier = self._scan(step, frontier, now)
        return frontier

    def _expand(self, step, frontier: dict, now) -> dict:
        """A step with one endpoint bound: each row ranges over that endpoint's adjacency."""
        j, mode, pa, pb, sconds, project, _meets, recipe = step
        index = self.indexes[j]
        adjacency = index.by_src.get if mode == _SRC else index.by_targets().get
        fixed_at = pa if mode == _SRC else pb
        if recipe is not None and not sconds and -1 in recipe and recipe != (-1, -1):
            return _expand_to_pairs(frontier, adjacency, fixed_at, recipe, now)
        nxt: dict = {}
        for row, (ts, exp) in frontier.items():
            fixed = row[fixed_at]
            got = adjacency(fixed)
            if got:
                if mode == _SRC:
                    pairs = [(row + (fixed, other), e) for other, e in got.items()]
                else:
                    pairs = [(row + (other, fixed), e) for other, e in got.items()]
                _merge(nxt, pairs, ts, exp, sconds, project, now)
        return nxt

    def _meet(self, step, frontier: dict, now) -> dict:
        """A meet step (incremental/operators/join_plan.py): the new variable ranges over the
        intersection, taken in C, of the probed input's adjacency with the folded inputs'.
        Where the projection drops that variable and one other input is met (the last step
        of a head-bound derivation), each row gives one key: `_meet_one_key`."""
        j, mode, pa, pb, sconds, project, meets, drops_new = step
        index = self.indexes[j]
        adjacency = index.by_src.get if mode == _SRC else index.by_targets().get
        fixed_at = pa if mode == _SRC else pb
        sides = [
            (self.indexes[j2].by_targets().get if v_is_src else self.indexes[j2].by_src.get, at)
            for j2, v_is_src, at in meets
        ]
        if drops_new and not sconds and len(sides) == 1:
            ((side, at),) = sides
            return _meet_one_key(frontier, adjacency, fixed_at, side, at, project, now)
        nxt: dict = {}
        get = nxt.get
        for row, (ts, exp) in frontier.items():
            fixed = row[fixed_at]
            got = adjacency(fixed)
            if not got:
                continue
            others = [side(row[at]) for side, at in sides]
            if not all(others):
                continue
            common = got.keys()
            for more in others:
                common &= more.keys()
            for v in common:
                e = got[v]
                c_exp = exp if exp < e.exp else e.exp
                c_ts = ts if ts > e.ts else e.ts
                for more in others:
                    e = more[v]
                    if e.exp < c_exp:
                        c_exp = e.exp
                    if e.ts > c_ts:
                        c_ts = e.ts
                if c_exp <= now:
                    continue
                ext = row + (fixed, v) if mode == _SRC else row + (v, fixed)
                if sconds and not conditions_hold(sconds, ext):
                    continue
                key = project(ext)
                cur = get(key)
                if cur is None:
                    nxt[key] = (c_ts, c_exp)
                else:
                    cur_ts, cur_exp = cur
                    if c_exp > cur_exp or c_ts < cur_ts:
                        nxt[key] = (min(c_ts, cur_ts), max(c_exp, cur_exp))
        return nxt

    def _scan(self, step, frontier: dict, now) -> dict:
        """A step with both endpoints bound (a probe), or none (a scan of the whole index)."""
        j, mode, pa, pb, sconds, project, _meets, _recipe = step
        index = self.indexes[j]
        everything = None
        if mode == _NONE or mode == _LOOP_FREE:
            everything = [(s, t, e) for s, t, e in index.entries() if mode == _NONE or s == t]
        probe = index.get
        nxt: dict = {}
        for row, (ts, exp) in frontier.items():
            if everything is None:
                a = row[pa]
                b = a if mode == _LOOP_BOUND else row[pb]
                e = probe(a, b)
                if e is not None:
                    _merge(nxt, ((row + (a, b), e),), ts, exp, sconds, project, now)
            else:
                _merge(
                    nxt,
                    [(row + (a, b), e) for a, b, e in everything],
                    ts,
                    exp,
                    sconds,
                    project,
                    now,
                )
        return nxt

    def _start(self, i, s, t, ts, exp, wit, now, result) -> None:
        """Join one tuple `(s, t)` of input i against the other inputs."""
        vals = self._bind_tuple(i, s, t)
        if vals is None:
            return
        _first, steps = self.plans[i]
        wits = [None] * len(self.indexes) if self.paths else None
        if wits is not None:
            wits[i] = wit
        self._extend(steps, 0, vals, ts, exp, wits, now, result)

    def _extend(self, steps, k, vals, ts, exp, wits, now, result) -> None:
        if k == len(steps):
            self._complete(vals, ts, exp, wits, now, result)
            return
        j, a, b, mode, conds = steps[k]
        for s, t, entry in step_candidates(self.indexes[j], mode, vals[a], vals[b]):
            e_ts, e_exp = entry.ts, entry.exp
            if e_exp <= now:
                continue
            vals[a] = s
            vals[b] = t
            if conds and not conditions_hold(conds, vals):
                continue
            if wits is not None:
                wits[j] = entry.wit
            self._extend(
                steps,
                k + 1,
                vals,
                ts if ts > e_ts else e_ts,
                exp if exp < e_exp else e_exp,
                wits,
                now,
                result,
            )

    def _stop_functional(self, now: int, batches: list | None = None) -> None:
        """The keyed join takes over from the functional one: the Coalescer gets the coverage
        emitted so far (before this round's `batches`, when given; native keys have it)."""
        functional = self.functional
        if functional is None:
            return
        if self.native is None:
            self.out = functional.coverage(now, batches)
        functional.untrack()
        self.functional = None
        self._exact_native_ends()  # (as if no functional join had been tried)

    def exact_ends(self, now: int) -> None:
        """Before a round with deletions: the keyed join takes over (an end record cuts the
        coverage it holds), its ends exact from now on."""
        self._stop_functional(now)
        self.watching = False
        super().exact_ends(now)

    def defers_rows(self) -> bool:
        """Rows read by the engine's output alone defer widenings (`_seed` with `fresh`: a
        renewed tuple held at `now - 1`, so did every combination it is in without a tuple new
        at `now`, and its key is live): an emitted end is then a lower bound, widened when it
        comes up (`overdue`), as native keys' ends are (operators/native_keys.py). Renewals
        of slide after slide then cost one re-derivation per key whose end comes up, not a
        join per renewed tuple."""
        return self.deferred

    def overdue(self, upto: float, final: bool) -> list:
        """The rows widening the keys whose emitted ends are at or before `upto`
        (Coalescer.overdue; the functional join, while it runs, emits exact ends)."""
        if self.functional is not None:
            return []
        return self.out.overdue(upto, self._longest, final)

    def purge(self, now: int) -> None:
        if self.deferred and self.functional is None:
            # every ended key is forgotten by `overdue` once re-derived (at or before the
            # round at `now`, where a key ending at `now` may still go on)
            self._replan()
            return
        super().purge(now)
        if self.functional is not None:
            self.functional.purge(now)

    def state(self) -> dict:
        state = super().state()
        if self.functional is not None and self.native is None:
            # saved as the keyed join's; restored, it goes on so
            state["output"] = state_of(self.functional.coverage(NEVER))
        return state

    def restore(self, state: dict) -> None:
        super().restore(state)
        if self.functional is not None:
            self.functional.untrack()
            self.functional = None
        # (the saved ends may be re-derived ones, lower bounds: they stay so)
        self._rederive_native_ends()

    def retract(self, batches: list, now: int) -> list:
        self._stop_functional(now)
        self._stop_native(now)
        if self.batched and not self.paths:
            return self._retract_batch(batches, now)
        return self._retract_by_probing(batches, now)

    def _retract_batch(self, batches, now) -> list:
        """`retract` breadth-first: collect the head keys built on the end records (entries
        cut at `now` in this round still join: cutoff `now - 1`), then re-derive all of them in
        one frontier run of the head-bound plan."""
        touched: dict = {}
        for i, batch in enumerate(batches):
            if batch:
                seed = self._seed(i, batch, now - 1, True)
                if seed and self.seed_head is not None:
                    touched.update(_reordered(seed, self.seed_head))
                elif seed:
                    touched.update(self._frontier(self.frontier_plans[i], seed, now - 1))
        if not touched:
            return []
        if sum(len(b) for b in batches if b) == 1:
            # One end record, so nothing else this operator reads was cut in this round: a
            # key whose combinations through the deleted tuple all end before its coverage
            # does (`touched` holds their best exp, the deleted tuple counted as for ever)
            # keeps the derivation that gives its coverage, and needs no re-derivation.
            until = self.out.until
            touched = {
                key: (ts, exp)
                for key, (ts, exp) in touched.items()
                if (end := until(key)) is None or exp >= end
            }
        best = self._longest(touched, now)  # (ends only: a cut reads the end)
        cut = self.out.cut
        result = []
        for key in touched:
            _ts, exp = best.get(key, (now, now))
            got = cut(key, exp, now)
            if got is not None:
                src, trg = key
                g_ts, g_end = got
                result.append((src, trg, g_ts, g_end, None))
        return result

    def _longest(self, keys, cutoff: int) -> dict:
        """`{key: (ts, exp)}`: the end of the longest derivation of each head key of `keys`
        that ends after `cutoff`, if any (native keys' ends, operators/native_keys.py,
        deferred widenings and a deletion's cuts: their readers take the end only); read it
        by key (it may hold other keys, see `_rederive_batch`). Seeded with the start
        FOREVER, every combination starts at FOREVER, so a meet stops at the first one that
        lasts as long as its row (`_meet_one_key`): the ts given is FOREVER, not a start."""
        return self._rederive_batch(keys, cutoff, FOREVER)

    def _head_seed(self, keys, cutoff: int, start: int) -> dict:
        """The frontier that re-derives head keys: each one its head conditions allow and whose
        head vertices have an entry ending after `cutoff` in every atom on them (`_head_ends`:
        a derivation ends when its first entry does), valid from `start` for ever. One pass
        over the keys per test, and one over each distinct head vertex's entries (from a row's
        end, where an index kept in exp order holds its longest)."""
        h0, h1 = self.head
        conds, _steps = self.head_plan
        if h0 == h1:
            keys = [(src, trg) for src, trg in keys if src == trg]
        for adjacency, at in self._head_ends():
            get = adjacency.get
            gone = {
                v
                for v in {key[at] for key in keys}
                if (row := get(v)) is None or not _outlives(row, cutoff)
            }
            if gone:
                keys = [key for key in keys if key[at] not in gone]
        if conds:
            vals = [None] * self.nvars
            allowed = []
            for key in keys:
                vals[h0], vals[h1] = key
                if conditions_hold(conds, vals):
                    allowed.append(key)
            keys = allowed
        return dict.fromkeys(keys, (start, FOREVER))

    def _rederive_batch(self, keys, now, start: int = NEVER) -> dict:
        """The best `(ts, exp)` of every head key of `keys` that has a derivation ending after
        `now`, by a frontier run of the head-bound plan (`_head_seed`), to be read by key
        (`start` FOREVER: the ends only, see `_longest`). Cost: one head-bound join per key,
        from its smaller side (`_by_sides`), its meets intersections in C."""
        seed = self._head_seed(keys, now, start)
        if not seed:
            return {}
        return self._by_sides(self.head_sides, self.head_frontier, seed, now)

    def _adjacency(self, j: int, mode: int) -> dict:
        """Input j's index by source (`_SRC`) or by target."""
        index = self.indexes[j]
        return index.by_src if mode == _SRC else index.by_targets()

    def _from_head(self, steps, vals, wits, now) -> None:
        """The walk of `ProbingJoin._rederive`: from bound head variables, along `steps`."""
        self._extend(steps, 0, vals, NEVER, FOREVER, wits, now, None)


def _outlives(row: dict, cutoff: int) -> bool:
    """Whether an entry of the index row `row` ends after `cutoff` (read from the row's end:
    an index kept in exp order answers at its first entry)."""
    for entry in reversed(row.values()):
        if entry.exp > cutoff:
            return True
    return False


def _expand_to_pairs(frontier: dict, adjacency, fixed_at: int, recipe: tuple, now) -> dict:
    """`PatternOp._expand` where the step projects on one row variable and the variable it
    binds (`recipe`: `(i, -1)` or `(-1, i)`) under no condition: each key is built from the
    row and the entry's other endpoint, with no extended row in between (the common last
    step, e.g. `x` and the new `m` of `RL+(x, y), hasCreator(m, y)`)."""
    nxt: dict = {}
    get = nxt.get
    first, second = recipe
    ahead = second == -1  # the row's variable comes first in the key
    at = first if ahead else second
    for row, (ts, exp) in frontier.items():
        got = adjacency(row[fixed_at])
        if not got:
            continue
        v = row[at]
        for other, e in got.items():
            e_exp = e.exp
            if e_exp <= now:
                continue
            c_exp = exp if exp < e_exp else e_exp
            e_ts = e.ts
            c_ts = ts if ts > e_ts else e_ts
            key = (v, other) if ahead else (other, v)
            cur = get(key)
            if cur is None:
                nxt[key] = (c_ts, c_exp)
            else:
                cur_ts, cur_exp = cur
                if c_exp > cur_exp or c_ts < cur_ts:
                    nxt[key] = (min(c_ts, cur_ts), max(c_exp, cur_exp))
    return nxt


def _merge(nxt: dict, pairs, ts, exp, sconds, project, now) -> None:
    """Extend a frontier row valid on `[ts, exp)` by each `(extended row, entry)` of `pairs`:
    skip expired entries and failed conditions, project, and keep per projected key the
    combination with the largest exp (see `PatternOp._frontier`)."""
    get = nxt.get
    for ext, e in pairs:
        e_exp = e.exp
        if e_exp <= now or (sconds and not conditions_hold(sconds, ext)):
            continue
        c_exp = exp if exp < e_exp else e_exp
        e_ts = e.ts
        c_ts = ts if ts > e_ts else e_ts
        key = project(ext)
        cur = get(key)
        if cur is None:
            nxt[key] = (c_ts, c_exp)
        else:
            cur_ts, cur_exp = cur
            if c_exp > cur_exp or c_ts < cur_ts:
                nxt[key] = (min(c_ts, cur_ts), max(c_exp, cur_exp))


def guard_of(bindings: list, head: tuple) -> tuple | None:
    """`(input, forward)`: the first atom on both head variables (slots or names alike),
    `forward` when its src is the head's src; None when no atom has both (or the head is one
    variable)."""
    h0, h1 = head
    if h0 == h1:
        return None
    for j, (a, b) in enumerate(bindings):
        if (a, b) == (h0, h1) or (a, b) == (h1, h0):
            return j, a == h0
    return None


def _ts_of(row: tuple) -> int:
    """A row's `ts`."""
    _src, _trg, ts, _exp, _wit = row
    return ts


def _started_since(batch: list, by_src: dict, first: int) -> list:
    """The sgts of a span's `batch` whose tuple is valid since `first` or later in the
    input's index: the others renew a tuple valid before the span, and a combination through
    one of them either held before the span (its key is live, and a producer whose ends are
    re-derived admits no widening) or holds a tuple new in the span, whose own batch finds
    it."""
    return [(s, t, ts, exp, w) for s, t, ts, exp, w in batch if by_src[s][t].ts >= first]


def _head_order(binding: tuple, head: tuple):
    """For a one-atom body binding `(a, b)`: None when its tuples are the head's keys as they
    are, else the itemgetter that puts a tuple in head order (`(b, a)`, or one variable
    twice)."""
    if tuple(head) == tuple(binding):
        return None
    return itemgetter(*(binding.index(v) for v in head))


def _reordered(frontier: dict, pick) -> dict:
    """`frontier` with each key put in head order by `pick`, merged where two meet
    (`_widest`)."""
    out: dict = {}
    for key, (ts, exp) in frontier.items():
        _widest(out, pick(key), ts, exp)
    return out


def _meet_one_key(frontier: dict, adjacency, fixed_at: int, side, at: int, project, now) -> dict:
    """`PatternOp._meet` where the step drops the variable it binds and meets one other input
    (a head-bound derivation's last step, e.g. `m` of `b(x, m), c(m, y)`): per row, the
    earliest start and latest end over `adjacency(row[fixed_at])` met with `side(row[at])`,
    merged into the row's key, the intersection left once both reach the row's own bounds.
    The smaller adjacency is read and the other probed: O(min side) per row, no set built.
    (With more inputs met, `_meet` makes each combination's key, as for any meet.)"""
    nxt: dict = {}
    for row, (ts, exp) in frontier.items():
        fixed = row[fixed_at]
        got = adjacency(fixed)
        if not got:
            continue
        more = side(row[at])
        if not more:
            continue
        if len(more) < len(got):
            got, more = more, got  # (the smaller side read, the other probed)
        best_ts, best_exp = FOREVER, now
        probe = more.get
        for v, e in got.items():
            if (f := probe(v)) is None:
                continue
            c_exp = e.exp if e.exp < exp else exp
            if f.exp < c_exp:
                c_exp = f.exp
            if c_exp <= now:
                continue
            c_ts = e.ts if e.ts > ts else ts
            if f.ts > c_ts:
                c_ts = f.ts
            if c_exp > best_exp:
                best_exp = c_exp
            if c_ts < best_ts:
                best_ts = c_ts
            if best_exp == exp and best_ts == ts:
                break  # no combination can do better
        if best_exp > now:  # (the dropped variable's slot is not read)
            _widest(nxt, project(row + (fixed, fixed)), best_ts, best_exp)
    return nxt


def _widest(frontier: dict, key, ts, exp) -> None:
    """Merge a combination valid on `[ts, exp)` into `frontier[key]`: the earliest start and
    the latest end (exact, see `PatternOp._frontier`)."""
    cur = frontier.get(key)
    if cur is None:
        frontier[key] = (ts, exp)
    else:
        cur_ts, cur_exp = cur
        if exp > cur_exp or ts < cur_ts:
            frontier[key] = (min(ts, cur_ts), max(exp, cur_exp))
