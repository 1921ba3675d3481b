"""PATH by per-level closures: the default physical operator for PATH without witness paths
(runtime.choose_path_operator); same output as S-PATH (operators/path.py), much less work per
edge on dense, slide-aligned streams.

S-PATH relaxes every new tuple through every spanning tree holding its source, node by node.
Here PATH's answer is read off reachability instead: `(x, y)` is valid until the largest
bottleneck exp over the product paths `(x, s0) ->* (y, f)`, `f` final, which is the highest
live expiry level L whose graph `G_L` (the input tuples with exp >= L) has that path. The
level closures (state/level_closure.py) are bitsets, so a batch's tuples update whole rows at
once, and an implied tuple costs one bit test. A start node newly reaching final nodes at
level L, but not at the next higher level, is a result widened to exp L: it is admitted as
`[now, L)` (a key that was not live starts at `now`: the path has a tuple that is new at `now`;
a live key keeps its start), exactly the coverage S-PATH emits. The coverage is kept by
source (state/fan_coverage.py: a finding is a fan of targets widened to one L), a Coalescer
from a hand-over on; where only the engine's output reads PATH, the rows go out as those fans
(incremental/fan_rows.py: no tuple per row, one `join` per fan in the writer). The sole-edge
sources have no coverage of their own: their rows are derived from their successor's
(state/follower_rows.py). The ε-pairs of a nullable regex come from the `domain`
port (VERTICES), as in S-PATH.

Hand-over to S-PATH: witness paths (`paths=True`) and the `path_operator="spath"` option
(base/options.py) use S-PATH from the start; `"closure"` turns the density rule below off. On
the first
explicit deletion (`retract`), when the live levels would exceed `max_levels` (a slide
much finer than the window: many distinct exps, where per-level closures cost more than
trees), or when the closure turns out *sparse* (checked once per slide, from `min_rows` rows on:
S-PATH's trees would hold the `start pairs` nodes, a tree node costing about `tree_cost`
words of bitset work, while the closure walks `rows x words` machine words and reads all its
`pairs`, the rows of inner automaton states included; on tree-shaped labels like replyOf
the bitsets are wide and almost empty, and with a long cyclic regex most pairs belong to
inner states; the hand-over is one-way and its replay costs about one slide of S-PATH's work,
so, as in ski rental, it waits until the closure's excess over S-PATH, summed over the slides
checked, exceeds that: a stream whose closure is slightly sparse for a slide or two near its
end keeps its closures; one far sparser, `clearly_sparse`, hands over at once; and at any
batch, one whose inserts measurably spent `overwork` times S-PATH's tree work in the slide so
far (`extend` counts its bitset operations: SGA Q4 on snb, where each edge touches thousands
of wide rows of inner states, is 150x in its first slide) hands over then; the thresholds
are `PlanOptions.tuning`, base/options.py), or at the first batch where the letters under a
star or plus hold `chain_edges` edges, if they form chains there, every source with one edge
of them in the window (`_chains`, whatever the density), this builds an S-PATH operator for the same node, replays the valid contents of the
input indexes into it at `now` (its trees then hold each node's largest valid exp), hands it
this operator's Coalescer (so it knows what was emitted: no duplicate or missing rows), and
delegates every later call to it. At a deletion, every live output key is then re-read
against the replayed trees, giving exactly the end records S-PATH's own `retract` gives.

Held sources (`implicit`: rows only the engine's output reads; with several final states the
closure reports by vertex, `LevelClosure._new_vertices`, a vertex as its first final state's
node, `fold`): a start node's results are exactly what its closures hold, a key's
emitted end the highest level whose closure reaches it or whose rebuild reported it
(`LevelClosure.bottlenecks`), so the closure's findings of it are exactly its widenings and
need no coverage lookup. Such a source keeps no keys in the FanCoverage: its findings go out
as rows from their round (a live key's row widens it from inside its interval, specs/
semantics.md §5) and are only logged there (`FanCoverage.hold`, one entry per fan) for a
hand-over's Coalescer and a follower made rows (`FanCoverage.held_run_of`: the keys'
starts). Its followers' rows are derived from its findings (state/follower_rows.py
`changed_held`: the targets each follower's edge clipped before are what the node reached
before the insert at that edge's exp, `LevelClosure.reached_before`). A source gets a coverage
of its own when rows are entered for it (a follower made rows); it is held again once its
emitted ends are the closure's (`_rehold`, at its next finding: an end derived from an edge
it had as a follower is named in the memo of its level), or when its coverage is purged. On snb
`(knows|replyOf|hasCreator)*` 97% of the findings' targets are held sources' (first 40k
edges); its interval run over the whole shared stream took 23.0 s of user CPU against 30.7
with every source's coverage kept, the same validity per key and the same number of rows.
A successor that is not a start node (so `a2q/c2a*`: an answer, its followers the users with
that one answer) is held the same way where its state is final: no coverage of
its own in `follow`, its findings logged there by node (`FollowerRows.holds_inner`).

Coarse levels: where only the engine's output reads the rows (`ctx.fan_rows`), the closure
keeps the live levels' edges and, once a slide's inserts measurably spent `coarse_work` bitset
words (`Tuning`), a closure for one new top level in `level_every` only
(state/level_closure.py): a row's end is then a lower bound, the highest level with a closure
that holds the result, widened when it comes up (`defers_rows`, `overdue`: the engine asks
when time passes an end; the level at `now` goes after the round at `now`, what goes on past
it widened in that round where the round did not widen it further, so one row per key and
round; within a span of instants, runtime `run_span`, each instant's round drops the levels
below it at its start, as `overdue` would have between rounds, so a span gives the same rows).
A hand-over to S-PATH widens every result to its exact end at once (its replay).

Native deltas (a delta-mode engine whose output is this PATH, or a RENAME of it read by
nothing else: runtime._native_outputs): the results need no Coalescer, and no pair's exp when
it enters, so the state is one closure of the whole window (state/window_closure.py) instead of
one per level. A pair enters the output when a batch first reaches it (`insert(edges,
entering)`), and it leaves at the level L it is last in: dropping L (`drop_reporting`, at the
next batch, at a purge, or when the frontier passes L: `settle`) rebuilds the closure without
L's tuples and reports exactly the pairs it lost, those whose bottleneck is L. Pairs are per
vertex (`vertices_of` folds the final states of a vertex); with a nullable regex the (v, v)
pairs are the ε-pairs' (a cycle through v never outlives v's own validity), native keys as
well (operators/path.py `native_epsilon`). A hand-over keeps them native: S-PATH replays the window, announces
only what the closure did not hold, and from then on gives the deltas itself (operators/
path.py), until an explicit deletion turns its live results into ordinary keys. A hand-over
at an explicit deletion first turns the closure's live pairs into ordinary keys
(`_stop_native`): the indexes are cut already, so S-PATH re-reads them as rows.

Cost per batch: grouping by level, then per level and edge not yet implied O(|anc(u,s)| +
|reach(v,q)|) bitset operations (state/level_closure.py), plus O(1) per emitted pair.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...base.dfa import closure_automaton
from ..fan_rows import FanRows, PairRows, Sources, rows_of_fans
from ..sgt import NEVER
from ..state.coalescer import Coalescer
from ..state.fan_coverage import FanCoverage
from ..state.follower_rows import FollowerRows
from ..state.level_closure import LevelClosure
from ..state.product_nodes import bits
from ..state.window_closure import WindowClosure
from ..stateful import StateError, restore_into, state_of
from .base import BuildContext, PhysicalOperator, by_instant
from .native_keys import adopt_as_rows
from .path import (
    PathOp,
    enter_epsilon,
    epsilon_pairs,
    native_epsilon,
    path_automaton,
)

if TYPE_CHECKING:
    from ...sga.algebra import Op


class _Inputs:
    """A build context for the S-PATH hand-over: the shared indexes of PATH's inputs, and
    the sink and output key of the closure PATH handing over (native deltas go on), and
    whether its rows reach the engine's output only."""

    __slots__ = ("nodes", "indexes", "paths", "sink", "key", "output_only")

    def __init__(
        self, nodes: list, indexes: list, sink, key: tuple[str, bool], output_only: bool
    ) -> None:
        self.nodes = nodes
        self.indexes = indexes
        self.paths = False
        self.sink = sink
        self.key = key
        self.output_only = output_only

    def fan_rows(self, node) -> bool:
        return self.output_only

    def index_of(self, node):
        for n, index in zip(self.nodes, self.indexes):
            if n is node:
                return index
        raise KeyError(node)

    def delta_sink(self, node):
        return self.sink

    def output_key(self, node) -> tuple[str, bool]:
        return self.key


class PathClosureOp(PhysicalOperator):
    """PATH over nested per-level closures; hands over to S-PATH (`spath`) when it must."""

    # 2: the measured work of the slide (`spent`, `overwork_at`); 3: native ε-pairs (path.py);
    # 4: whether the chain rule is still to decide (`chain_pending`); 5: the closures'
    # automaton (dfa.py `closure_automaton`: other product nodes); 6: the last round's instant
    # (`clock`) and the interval closure's edges by exp and its coarseness
    STATE_VERSION = 8  # 7: the held sources' rows (`held`); 8: those by source (`held_index`)

    __slots__ = (
        "dfa",
        "letters",
        "moves",
        "inputs",
        "domain",
        "out",
        "closure",
        "spath",
        "check_density",
        "excess",
        "spent",
        "overwork_at",
        "reread",
        "sink",
        "label",
        "reverse",
        "own_vertex",
        "loops",
        "sparse_hands_over",
        "tuning",
        "epsilon",
        "fans",
        "chain_inputs",
        "chain_pending",
        "follow",
        "implicit",
        "clock",
    )

    def __init__(self, node: Op, ctx: BuildContext) -> None:
        super().__init__(node)
        self.dfa, self.letters = path_automaton(node)
        # the closures' automaton: the same non-empty words, maybe fewer states (`a+` as `a*`)
        auto = closure_automaton(node.regex)
        self.inputs = [ctx.index_of(inp) for inp in node.inputs]
        # the same indexes S-PATH asks for: the domain only matters for a nullable regex
        self.domain = (
            ctx.index_of(node.domain) if node.domain is not None and self.dfa.nullable else None
        )
        self.moves = [list(auto.by_letter.get(letter, ())) for letter in self.letters]
        # the input indexes of the letters under a star or plus (`_chains`)
        cyclic = self.dfa.cyclic_letters()
        self.chain_inputs = [
            index for letter, index in zip(self.letters, self.inputs) if letter in cyclic
        ]
        self.spath: PathOp | None = None
        self.check_density = False
        self.excess = 0.0  # the closure's work beyond S-PATH's, summed over slides
        self.spent = 0.0  # the closure's measured bitset words in this slide
        self.tuning = ctx.options.tuning  # the hand-over thresholds (base/options.py)
        # the measured work at which the closure is checked within the slide
        self.overwork_at = self.tuning.overwork * self.tuning.min_rows * self.tuning.tree_cost
        self.reread = False  # set by every hand-over: the next retract re-reads
        # PlanOptions(path_operator="closure") keeps closures however sparse (A/B runs, tests)
        self.sparse_hands_over = ctx.options.path_operator != "closure"
        # the chain rule decides once, at the first batch with `chain_edges` chain edges
        self.chain_pending = self.sparse_hands_over and bool(self.chain_inputs)
        # native deltas (an output PATH of a delta-mode engine): the closure's results enter
        # and leave the engine's DeltaView directly; ε-pairs still come as rows through `out`
        self.sink = ctx.delta_sink(node)
        self.label, self.reverse = ctx.output_key(node)
        # (v, v) is never a closure result: an ε-pair's (nullable), or none at all (a simple
        # PATH relaxed to arbitrary paths: no walk back to its root is a simple path)
        self.own_vertex = self.dfa.nullable or node.simple
        self.loops = not node.simple or self.dfa.nullable  # interval rows may hold (v, v)
        if self.dfa.nullable and self.domain is None:
            self.sink = None  # no ε-pairs to stand for (v, v) (translate always wires them)
        # what was emitted: the interval rows' coverage by source (a Coalescer from a
        # hand-over on); with native deltas only the ε-pairs' rows
        self.out: FanCoverage | Coalescer = FanCoverage() if self.sink is None else Coalescer()
        self.epsilon = native_epsilon(self)  # with native deltas, the ε-pairs' keys
        # interval rows as fans where only the engine's output reads them
        self.fans = ctx.fan_rows(node)
        # deltas need a pair's bottleneck only when it leaves: one closure, rebuilt per level
        self.closure: LevelClosure | WindowClosure | None
        # interval rows: the rows of a start node's sole-edge sources are derived from it
        self.follow: FollowerRows | None = None
        self.implicit = False
        # coarse levels: the last round or purge (a level at it may still be there)
        self.clock = NEVER
        # a start node reaching itself: the result of a cycle, not an ε-pair
        cycles = auto.nullable and not self.dfa.nullable
        if self.sink is None:
            # rows only the engine's output reads may carry lower-bound ends (coarse levels)
            self.closure = LevelClosure(
                auto.size,
                auto.start,
                auto.finals,
                derive=True,
                cycles=cycles,
                deferring=ctx.fan_rows(node),
            )
            # rows only the output reads (the closure reports by vertex: `fold`): a start
            # node's coverage is the closure's, kept by the FanCoverage only once rows
            # entered for it (a follower made rows, `take_over`), until held again
            self.implicit = bool(self.fans)
            self.follow = FollowerRows(auto.start, auto.finals, self.loops, self.implicit)
        else:
            self.closure = WindowClosure(auto.size, auto.start, auto.finals)

    # ---- the closure path
    def process(self, batches: list, now: int) -> list:
        if self.spath is not None:
            return self.spath.process(batches, now)
        closure = self.closure
        coarse = self.sink is None and closure.deferring
        early: list = []  # (rows before the batch's: its vertices may make them unplain)
        if coarse:
            # the levels before `now` (`overdue` dropped them between rounds, but not within
            # a span), each at its instant; the level at `now` after this round
            if closure.due(now - 1):
                for level, found in closure.drop_widening(now - 1):
                    self._emit(found, level, early)
            closure.forget_sources(now)
        else:
            self._drop(now, strict=False)
        if self.chain_pending:
            chains = self._chains()
            if chains is not None:
                self.chain_pending = False
                if chains:
                    return early + self._hand_over(now) + self.spath.process(batches, now)
        if self.check_density and coarse and closure.every == 1:
            # a slide's closure work beyond `coarse_work` words: coarse levels from now on
            if self.spent >= self.tuning.coarse_work:
                closure.coarsen(self.tuning.level_every)
        if self.check_density or (self.sparse_hands_over and self.spent > self.overwork_at):
            slide_end, self.check_density = self.check_density, False
            if self._sparse(slide_end):
                return early + self._hand_over(now) + self.spath.process(batches, now)
        nletters = len(self.letters)
        ns = closure.nstates
        intern = closure.intern
        cold = self.follow is not None  # a new source cold (state/level_closure.py)
        edges: list = []
        for port in range(min(nletters, len(batches))):
            batch = batches[port]
            if not batch:
                continue
            moves = self.moves[port]
            if not moves:
                continue
            for u, v, _ts, exp, _wit in batch:
                if exp <= now:
                    continue
                a = intern(u, exp, cold) * ns
                b = intern(v, exp) * ns
                for s, q in moves:
                    edges.append((a + s, b + q, exp))
        result: list | FanRows = FanRows(closure.plain) if self.fans else []
        if early:
            result.extend(early)
        if edges:
            most, live = self.tuning.max_levels, closure.live_levels()
            # (a bound first: a round's edges are few, their new levels fewer)
            if live + len(edges) > most and (
                live + closure.new_levels(exp for _a, _b, exp in edges) > most
            ):
                result = result + self._hand_over(now)
            elif self.sink is not None:
                entering: list = []
                closure.insert(edges, entering)
                self._enter(entering, now)
            elif coarse:  # a result whose highest level is `now` is not valid at `now`
                found = [(x, m, level) for x, m, level in closure.insert(edges) if level > now]
                self._emit(found, now, result, inserted=True)
            else:
                self._emit(closure.insert(edges), now, result, inserted=True)
            self.spent += closure.take_work()
        if len(batches) > nletters and batches[nletters]:
            self._epsilon(batches[nletters], now, result)
        if coarse and self.spath is None:
            # the level at `now` goes after the batch: what goes on past it widens at `now`
            # where the batch did not widen it further (one row per key and round)
            self.clock = now
            if closure.due(now):
                for level, found in closure.drop_widening(now):
                    self._emit(found, level, result)
        return result

    def defers_rows(self) -> bool:
        """With coarse levels (state/level_closure.py) an emitted end is a lower bound: the
        highest level with a closure that held the result, widened when it comes up."""
        return isinstance(self.closure, LevelClosure) and self.closure.deferring

    def overdue(self, upto: float, final: bool) -> list:
        """The rows widening the results whose emitted ends are at or before `upto`: the
        levels up to it are dropped, each at its own instant."""
        if self.spath is not None or not self.defers_rows():
            return []
        closure = self.closure
        # as fans where they may be (a widening of many results at once, one fan per source)
        rows: list | FanRows = FanRows(closure.plain) if self.fans else []
        for level, found in closure.drop_widening(upto):
            self._emit(found, level, rows)
        return rows

    def _emit(self, found, now, result, inserted: bool = False) -> None:
        """The interval rows of `insert`'s findings (`inserted`; else a rebuild's,
        `drop_widening`): per `(x, mask, L)` the vertices of mask, each pair a row
        `[start, L)` where it widens what was emitted (one `admit_fan` per finding, none for
        a held start node; the one-target findings of a level without followers admitted
        together, `admit_pairs`), one fan of `result` when it is a FanRows, the rows of one
        target gathered into one fan of pairs per exp (`PairRows`); then the rows of x's
        sole-edge sources, derived from x's (state/follower_rows.py), and those of the
        sources made or renewed in the batch. Findings share masks: each mask's vertices are
        named once per batch. (Most rounds find nothing and change no follower: so Q2's
        intervals, 52k of 66k: they return at once.)"""
        closure = self.closure
        if not found and not closure.followers_changed():
            return
        names = closure.names
        final_names = closure.final_names
        ns = closure.nstates
        cover = self.out
        fan = cover.admit_fan  # a FanCoverage until a hand-over
        add = result.add if type(result) is FanRows else None
        follow = self.follow
        derived: list = []  # the followers' fans
        renamed, fresh, renewed, made_rows, first_followed = closure.take_followers()
        if renamed:
            follow.rename(renamed)
        if made_rows:
            follow.take_over(closure, cover, made_rows, now)
        for b in first_followed:
            follow.init(closure, b, now)
        skip: set | tuple = ()
        # successors of renewed sources: their ends before, in `before` (a held one's
        # widened targets: state/follower_rows.py `_rows`)
        watch: set | tuple = ()
        before: dict = {}
        start = closure.start
        implicit = self.implicit
        if fresh or renewed:
            skip = {*fresh, *renewed}
            succ = closure.sole.succ
            watch = {succ[f] for f in renewed}
        followers = closure.sole.followers
        held_inner = follow.holds_inner
        start_final = start in closure.finals  # (a held node's own vertex: `changed_held`)
        if implicit and fresh:
            # a held start node getting followers: its rows kept by source from now on, from
            # its live ends (a follower made rows takes its keys' starts from them)
            for f in fresh:
                b = succ[f]
                if b % ns == start:
                    bv = names[b // ns]
                    if cover.keyless(bv) and not cover.has_index(bv):
                        ends = closure.ends_by_level(b, now)
                        cover.index(bv, [(trgs, now, level) for level, trgs in ends])
        loops = self.loops
        # held start nodes' findings by target list and level: (trgs, level, [sources])
        shared: dict = {}
        pairs = PairRows()  # the rows of one source and one target, one fan per exp
        fan_pairs = pairs if add is not None else None  # (a held node's followers' too)
        # the one-target findings of start nodes without followers since the last change of
        # level, admitted together (`FanCoverage.admit_pairs`): the found go level by level
        at, one_s, one_t = None, [], []
        again: set = set()  # start nodes keeping keys: held again?
        named: dict = {}  # mask -> its vertices' names
        by_id: dict = {}  # id(mask) -> the same: a shared mask is not hashed again (O(width))
        # (consecutive findings mostly share their mask, and held ones their group in `shared`)
        last_mask = mask_names = last_trgs = last_srcs = last_level = None
        keyless = cover.keyless
        for x, mask, level in found:
            if level != at:
                if one_s:
                    self._admit_pairs(one_s, one_t, now, at, pairs)
                    one_s, one_t = [], []
                at = level
            xv = names[x // ns]
            if mask is not last_mask:
                last_mask = mask
                mask_names = by_id.get(id(mask))
                if mask_names is None:
                    mask_names = named.get(mask)
                    if mask_names is None:
                        mask_names = named[mask] = final_names(mask)
                    by_id[id(mask)] = mask_names
            trgs = mask_names
            if implicit and x % ns == start and keyless(xv):
                # the closure's findings of a start node whose coverage it holds are exactly
                # its widenings (a key's end is the highest level or report that holds it):
                # rows from `now` (a live key's row widens it from inside), no lookup
                got = trgs
                if xv in trgs:  # ((x, x): in the coverage, as the ε-pairs)
                    trgs = [t for t in trgs if t != xv]
                    row = cover.admit((xv, xv), now, level, now) if loops else None
                    if row is not None:
                        since, _until = row
                        if add is not None:
                            add(xv, [xv], since, level)
                        else:
                            result.append((xv, xv, since, level, None))
                    if row is None or start_final:  # ((f, x's vertex) holds with f's edge)
                        got = trgs
                if trgs is last_trgs and level == last_level:
                    last_srcs.append(xv)
                elif trgs:
                    same = shared.get((id(trgs), level))
                    if same is None:
                        last_srcs = [xv]
                        shared[id(trgs), level] = (trgs, level, last_srcs)
                    else:
                        _trgs, _level, last_srcs = same
                        last_srcs.append(xv)
                    last_trgs, last_level = trgs, level
                if got and x in followers:
                    if x in watch:
                        before.setdefault(x, {}).update(dict.fromkeys(got, now))
                    follow.changed_held(
                        closure, x, got, mask, level, now, skip, cover, derived, inserted, fan_pairs
                    )
                continue
            if x % ns != start:  # a successor's finding: its followers' rows only
                if held_inner(x, ns):
                    # (as a held start node's: its findings are its widenings, logged by
                    # node for the starts a follower made rows takes)
                    follow.succ.hold(x, trgs, now, level)
                    if x in watch:
                        before.setdefault(x, {}).update(dict.fromkeys(trgs, now))
                    follow.changed_held(
                        closure,
                        x,
                        trgs,
                        mask,
                        level,
                        now,
                        skip,
                        cover,
                        derived,
                        inserted,
                        fan_pairs,
                    )
                    continue
                got, starts, olds = follow.admit(x, trgs, now, level)
                if got:
                    if x in watch:
                        ends = before.setdefault(x, {})
                        for i, t in enumerate(got):
                            ends.setdefault(t, now if olds is None else olds[i])
                    follow.changed(closure, x, got, starts, olds, level, now, skip, cover, derived)
                continue
            if not loops and xv in trgs:
                trgs = [t for t in trgs if t != xv]
            if implicit:
                again.add(x)
            if add is not None and len(trgs) == 1 and x not in followers:
                # (most: admitted with the level's others, then one fan of pairs per level)
                [t] = trgs
                one_s.append(xv)
                one_t.append(t)
                continue
            got, starts, olds = fan(xv, trgs, now, level)
            if not got:
                continue
            if add is not None:
                if len(got) == 1:  # (a start node with followers: its row among the pairs)
                    [t] = got
                    if type(starts) is int:
                        pairs.add(xv, t, now, level)
                    else:
                        [st] = starts
                        pairs.add(xv, t, st, level)
                else:
                    add(xv, got, starts, level)
            elif type(starts) is int:
                result.extend([(xv, t, now, level, None) for t in got])
            else:
                result.extend([(xv, t, s, level, None) for t, s in zip(got, starts)])
            if x in followers:
                if x in watch:
                    ends = before.setdefault(x, {})
                    for i, t in enumerate(got):
                        ends.setdefault(t, now if olds is None else olds[i])
                follow.changed(closure, x, got, starts, olds, level, now, skip, cover, derived)
        if one_s:
            self._admit_pairs(one_s, one_t, now, at, pairs)
        if shared:
            self._held_rows(shared, now, result, pairs)
        if fresh or renewed:
            follow.arrived(closure, cover, fresh, renewed, before, now, derived)
        for x in again:
            self._rehold(x, now)
        if derived:
            if add is not None:
                self._derived_rows(derived, result, pairs)
            else:
                result.extend(rows_of_fans(derived))
        if pairs:
            pairs.into(result)

    def _held_rows(self, shared: dict, now: int, result, pairs: PairRows) -> None:
        """The rows `[now, L)` of held start nodes' findings, logged (`FanCoverage.hold`):
        the nodes that found one target list at one level (an insert's ancestors mostly gain
        the same vertices, so Q1 `a2q*` on so: 648k findings of 13k lists) go out as one
        cross-product fan, and one log entry; a node alone with one target among `pairs`."""
        cover = self.out
        fans = type(result) is FanRows
        for trgs, level, srcs in shared.values():
            if len(srcs) == 1:
                [src] = srcs
                cover.hold(src, trgs, now, level)
                if fans and len(trgs) == 1:
                    [t] = trgs
                    pairs.add(src, t, now, level)
                elif fans:
                    result.add(src, trgs, now, level)
                else:
                    result.extend([(src, t, now, level, None) for t in trgs])
                continue
            cover.hold_all(srcs, trgs, now, level)
            if fans:
                fan = (Sources(srcs, [now] * len(srcs)), trgs, now, level)
                result.add_counted([fan], len(srcs) * len(trgs))
            else:
                result.extend([(s, t, now, level, None) for s in srcs for t in trgs])

    @staticmethod
    def _derived_rows(derived: list, result: FanRows, pairs: PairRows) -> None:
        """The followers' fans (state/follower_rows.py); those of one follower and one
        target (most on so: a user with one answer) go to `pairs`, each row from the later
        of the follower's and the fan's start."""
        rest: list = []
        add = pairs.add
        for fan in derived:
            src, trgs, ts, exp = fan
            if type(src) is Sources and len(src.names) == 1 and len(trgs) == 1 and type(ts) is int:
                [name], [since], [t] = src.names, src.since, trgs
                add(name, t, since if since > ts else ts, exp)
            else:
                rest.append(fan)
        result.add_fans(rest)

    def _admit_pairs(self, srcs: list, trgs: list, now: int, level: int, pairs: PairRows) -> None:
        """`FanCoverage.admit_pairs` of one-target findings at `level`: what widens, to
        `pairs`."""
        got_s, got_t, starts = self.out.admit_pairs(srcs, trgs, now, level)
        if got_s:
            pairs.extend(got_s, got_t, starts, level)

    def _rehold(self, x: int, now: int) -> bool:
        """Hold the start node x again (keys of its own since it was a follower) where its
        emitted ends are the closure's: each live key's end is
        the highest level whose closure or memo holds it, or a live level above that with
        no closure (an end derived from a follower's edge, or a rebuild's report), which
        the memo then names (`LevelClosure.remember`). Its keys go to the held log as rows
        (`FanCoverage.hold_keys`). On so `a2q/c2a*` nearly every start node's findings
        were admitted key by key before: most start nodes were followers first."""
        closure = self.closure
        ns = closure.nstates
        xv = closure.names[x // ns]
        cover = self.out
        above = cover.ends_above(xv, now, closure.ends_by_level(x, now))
        if above is None:
            return False
        vid, final = closure.vid, min(closure.finals)  # (a vertex as its first final node: `fold`)
        memo: dict = {}
        for end, trgs in above.items():
            if not closure.unclosed(end):
                return False
            memo[end] = sum(1 << (vid[t] * ns + final) for t in trgs)
        closure.remember(x, memo)
        cover.hold_keys(xv, now, index=x in closure.sole.followers)
        return True

    # ---- native deltas
    def _reversed_keys(self, fans: dict) -> list:
        """The flat keys `(trg, src, label)` of fans, for an output RENAME that swapped src
        and trg (the view's fans are by source, so these go flat)."""
        label = self.label
        return [(t, s, label) for s, trgs in fans.items() for t in trgs]

    def _fans(self, rows, own: bool = False) -> dict:
        """`{src: [trg, ...]}` of `(start node, vertices)` rows (the view's fans: no tuple
        per result; a source in several rows gets their lists joined). Sources may share a
        target list: the view copies before it extends one. `own`: x's own vertex is left out
        (one set lookup per row, not a scan of its list)."""
        names, ns = self.closure.names, self.closure.nstates
        fans: dict = {}
        first = fans.setdefault
        per_list: dict = {}  # rows share vertex lists (state/window_closure.py): names once
        if not own:
            for x, vertices in rows:
                trgs = per_list.get(id(vertices))
                if trgs is None:
                    trgs = per_list[id(vertices)] = [names[y // ns] for y in vertices]
                src = names[x // ns]
                got = first(src, trgs)
                if got is not trgs:
                    fans[src] = got + trgs
            return fans
        for x, vertices in rows:
            got = per_list.get(id(vertices))
            if got is None:
                trgs = [names[y // ns] for y in vertices]
                # (a short list is searched as it is: no set to build)
                got = per_list[id(vertices)] = (
                    trgs,
                    set(vertices) if len(vertices) > 8 else vertices,
                )
            trgs, among = got
            if x - x % ns in among:
                xv = names[x // ns]
                trgs = [t for t in trgs if t != xv]
                if not trgs:
                    continue
            src = names[x // ns]
            got = first(src, trgs)
            if got is not trgs:
                fans[src] = got + trgs
        return fans

    def _enter(self, entering, now) -> None:
        if not entering:
            return
        # (x, x) is an ε-pair's, or none (a simple PATH), never the closure's
        fans = self._fans(entering, self.own_vertex)
        if self.reverse:
            self.sink.enter(now, self._reversed_keys(fans))
        else:
            self.sink.enter_fans(now, self.label, fans, self.closure.plain)

    def _drop(self, upto, strict: bool) -> None:
        """Drop the closure's levels `<= upto` (`< upto` when `strict`); with native deltas,
        what leaves with each level L leaves the output at L."""
        if self.sink is None:
            if strict:
                upto -= 1
            self.closure.drop(upto)
            return
        for level, rows in self.closure.drop_reporting(upto, strict, self.own_vertex):
            if not rows:
                continue
            fans = self._fans(rows)
            if self.reverse:
                self.sink.leave(level, self._reversed_keys(fans))
            else:
                self.sink.leave_fans(level, self.label, fans, self.closure.plain)

    def spans(self) -> bool:
        """Native deltas, ε-pairs included; or rows only the engine's output reads (coarse
        levels, `process`: the levels before an instant drop at its start, each at its own
        instant, as `overdue` drops them between rounds; the one at the instant after it),
        as S-PATH's rows do. After a hand-over, S-PATH's answer."""
        if self.spath is not None:
            return self.spath.spans()
        return self.sink is not None or bool(self.fans)

    def process_span(self, batches: list) -> list:
        """A span (runtime `run_span`): after a hand-over S-PATH's; else the closure takes
        it instant by instant, as rounds would give them (the closure keeps its own copy of
        the window graph, so the indexes holding the whole span change nothing; a hand-over
        within the span replays the indexes as of its instant)."""
        if self.spath is not None:
            return self.spath.process_span(batches)
        result: list | FanRows = []
        for instant, group in by_instant(batches):
            got = self.process(group, instant)
            if not got:
                continue
            if not result:
                result = got
            elif type(result) is FanRows and type(got) is FanRows and not result.rows:
                # (rows as fans, in the instants' order: their fans one after the other,
                # then the last one's rows that are no fan's)
                result.follow_with(got)
            else:
                result = [*result, *got]
        return result

    def settle(self, frontier: float) -> None:
        """Time has reached `frontier` (no input before it will come): with native deltas,
        every level before it is over, so its results' '-' are final (timeliness)."""
        if self.spath is not None:
            self.spath.settle(frontier)
        elif self.sink is not None:
            if self.epsilon is not None:
                self.epsilon.settle(frontier)
            self._drop(frontier, strict=True)

    def _stop_native(self, now) -> None:
        """Before a hand-over: every live closure result becomes an ordinary output key, in
        `out` and in the sink's open segments (`adopt_as_rows`), so S-PATH's rows widen and cut
        it as if it had been rows all along (the ε-pairs' keys first)."""
        if self.epsilon is not None:
            self.epsilon.stop(now)
            self.epsilon = None
        names, ns = self.closure.names, self.closure.nstates
        live = self.closure.live_pairs(self.own_vertex)
        results = {(names[x // ns], names[y // ns]): until for (x, y), until in live.items()}
        adopt_as_rows(self.out, self.sink, results, self.label, self.reverse)
        self.sink = None

    def _sparse(self, slide_end: bool) -> bool:
        """Whether S-PATH should take over (see the module docstring). At a slide's end: the
        closure's estimated bitset words beyond S-PATH's tree work, summed over the slides
        checked (never below zero), exceed one slide of that tree work, the price of the
        replay, or this slide's alone is `clearly_sparse` times that tree work. At any batch:
        the words `extend` measurably spent in this slide exceed `overwork` times that tree
        work (a closure whose every edge touches thousands of wide rows, long before the
        slide ends). Never when the `path_operator` option is `"closure"`
        (`sparse_hands_over` is off)."""
        spent = self.spent
        if slide_end:
            self.spent = 0.0
        if not self.sparse_hands_over:
            return False
        tuning = self.tuning
        rows, pairs, starts, words = self.closure.density()
        trees = starts * tuning.tree_cost
        # checked again within the slide after as much work again, at the least
        self.overwork_at = max(
            tuning.overwork * max(trees, tuning.min_rows * tuning.tree_cost),
            0.0 if slide_end else 2 * spent,
        )
        if rows < tuning.min_rows:
            return False
        if spent > tuning.overwork * trees:
            return True
        if not slide_end:
            return False
        work = rows * words + pairs
        self.excess = max(0.0, self.excess + work - trees)
        return self.excess > trees or work > tuning.clearly_sparse * trees

    def _chains(self) -> bool | None:
        """Whether the repeated letters form chains: every source has one edge of them in the
        window (`replyOf*`, `hasCreator*` over snb: a message replies to one message, has one
        creator); None until they hold `chain_edges` edges (evidence, not an accident of the
        first few). A product path then never branches on them, so S-PATH's trees hold
        exactly the reach, where the closure's bitsets, as wide as the window's vertices,
        are almost empty (snb RPQ Q2, Q3, Q6: 4-8% fewer instructions on S-PATH from the
        start than handing over by density on day 6). Asked at every batch until it answers
        (`chain_pending`), then never again: one sum per batch meanwhile."""
        chains = self.chain_inputs
        if sum(len(index) for index in chains) < self.tuning.chain_edges:
            return None
        return all(len(index) == index.sources() for index in chains)

    def _epsilon(self, batch, now, result) -> None:
        if self.epsilon is not None:
            enter_epsilon(self.epsilon, batch, now)
        elif self.dfa.nullable:
            epsilon_pairs(self.out, batch, now, result, None)

    # ---- the hand-over to S-PATH
    def _spath(self) -> PathOp:
        """An empty S-PATH operator for this node over the same input indexes, emitting
        through this operator's Coalescer (the interval rows' coverage becomes one)."""
        if isinstance(self.out, FanCoverage):
            self.out = self.out.coalescer(held=True)
            self.implicit = False
        node = self.node
        nodes = list(node.inputs)
        indexes = list(self.inputs)
        if self.domain is not None:
            nodes.append(node.domain)
            indexes.append(self.domain)
        inputs = _Inputs(nodes, indexes, self.sink, (self.label, self.reverse), self.fans)
        return PathOp(node, inputs, out=self.out)

    def _hand_over(self, now, native: bool = True) -> list:
        """Build S-PATH from the input indexes (valid entries) at `now`; returns what it
        emits beyond the coverage already emitted. With native deltas S-PATH goes on giving
        them (`native`), except for a hand-over at an explicit deletion: the indexes are cut
        already, so the closure's results become rows first and S-PATH re-reads them."""
        node = self.node
        if self.sink is not None and not native:
            self._stop_native(now)
        if self.follow is not None:  # the sole-edge sources' rows become their own
            self.follow.hand_over(self.closure, self.out, now)
            self.follow = None
        op = self._spath()
        batches: list = [
            [
                (s, t, e.ts, e.exp, e.wit)
                for s, t, e in index.entries()
                if e.exp > now and e.ts <= now  # (an entry after `now`: a span's later one)
            ]
            for index in self.inputs
        ]
        if node.domain is not None:
            batches.append(None)  # the ε-pairs are in the Coalescer already
        closure = self.closure
        if self.sink is None:
            out = op.replay(batches, now, None)
        else:
            # results the closure held whose derivations this round's end records cut before
            # the replay read the indexes: they leave now
            held = closure.results(self.own_vertex)
            out = op.replay(batches, now, closure.holds)
            gone = held - op.results(now)
            if gone:
                label = self.label
                keys = [(y, x, label) if self.reverse else (x, y, label) for x, y in gone]
                self.sink.leave(now, sorted(keys))
        self.spath = op
        self.closure = None
        self.reread = True
        return out

    def retract(self, batches: list, now: int) -> list:
        extra: list = []
        if self.spath is None:
            coarse = self.defers_rows()
            extra = self._hand_over(now, native=False)
            # the indexes hold the round's final state: nothing valid is beyond what was
            # emitted, but the lower-bound ends of coarse levels, widened here
            assert coarse or not extra, extra
        if not self.reread:
            return extra + self.spath.retract(batches, now)
        # S-PATH was built from the indexes since the last retract, maybe after these end
        # records cut them, so it may never have seen the deleted tuples: every live key is
        # re-read as well (exact either way)
        self.reread = False
        return extra + self.spath.retract(batches, now) + self.spath.reread(self.out.keys(), now)

    # ---- housekeeping
    def purge(self, now: int) -> None:
        if self.spath is not None:
            self.spath.purge(now)
            return
        closure = self.closure
        if self.defers_rows():
            # the levels before `now` went by `overdue`; the level at `now` goes after the
            # round at `now`, or by `overdue` after it: what goes on past it widens at `now`
            self.clock = now
            closure.recycle_before(now)
        else:
            self._drop(now, strict=False)
            closure.purge(now)
        if self.epsilon is not None:
            self.epsilon.settle(now)  # an ε-pair ending at `now` may still go on this round
        else:
            self.out.purge(now)
        if self.follow is not None:
            self.follow.prune(self.closure, now)
            if self.implicit:
                self._index_held(now)
        self.check_density = True  # once per slide, at the next batch

    def _index_held(self, now: int) -> None:
        """After a purge: the held sources left without followers keep no rows by source,
        and a start node with followers whose coverage the purge emptied (held now) keeps
        them from now on, from its live ends."""
        closure, cover = self.closure, self.out
        ns, start, vid, names = closure.nstates, closure.start, closure.vid, closure.names
        followers = closure.sole.followers
        for src in cover.indexed():
            v = vid.get(src)
            if v is None or v * ns + start not in followers:
                cover.unindex(src)
        for b in followers:
            if b % ns == start:
                bv = names[b // ns]
                if cover.keyless(bv) and not cover.has_index(bv):
                    ends = closure.ends_by_level(b, now)
                    cover.index(bv, [(trgs, now, level) for level, trgs in ends])

    def size(self) -> int:
        if self.spath is not None:
            return self.spath.size()
        follow = 0 if self.follow is None else len(self.follow.succ)  # inner successors'
        return len(self.closure) + len(self.out) + follow

    def state(self) -> dict:
        """The output's coverage; the closure, or the S-PATH trees after a hand-over; the
        density bookkeeping; whether results still go out as native deltas."""
        return {
            "output": state_of(self._emitted()),
            "closure": None if self.closure is None else state_of(self.closure),
            "spath": None if self.spath is None else state_of(self.spath),
            "check_density": self.check_density,
            "excess": self.excess,
            "spent": self.spent,
            "overwork_at": self.overwork_at,
            "reread": self.reread,
            "native": self.sink is not None,
            "chain_pending": self.chain_pending,
            "followers": None if self.follow is None else state_of(self.follow),
            "clock": self.clock,
            "held": self.out.held_state() if isinstance(self.out, FanCoverage) else [],
            "held_index": self.out.index_state() if isinstance(self.out, FanCoverage) else [],
        }

    def _emitted(self) -> Coalescer:
        """What was emitted, as a Coalescer (the checkpoint form)."""
        return self.out.coalescer() if isinstance(self.out, FanCoverage) else self.out

    def restore(self, state: dict) -> None:
        out = Coalescer()
        restore_into(out, state["output"])
        self.check_density = state["check_density"]
        self.excess = state["excess"]
        self.spent = state["spent"]
        self.overwork_at = state["overwork_at"]
        self.reread = state["reread"]
        self.chain_pending = state["chain_pending"]
        self.clock = state["clock"]
        if state["native"] and self.sink is None:
            raise StateError("native deltas saved for a PATH that gives rows in this engine")
        if not state["native"]:
            self.sink = None
        if state["spath"] is None:
            self.out = FanCoverage.of(out) if self.sink is None else out
            if self.sink is None:
                self.out.restore_held(state["held"])
                self.out.restore_index(state["held_index"])
            restore_into(self.closure, state["closure"])
            if self.follow is not None:
                restore_into(self.follow, state["followers"])
        else:
            self.out = out
            self.closure = None
            self.follow = None
            self.spath = self._spath()
            restore_into(self.spath, state["spath"])
        self.epsilon = native_epsilon(self)  # over the restored `out`

    def _check(self) -> None:
        if self.spath is not None:
            self.spath._check()
            return
        assert self.epsilon is None or self.epsilon.out is self.out, "ε-pairs in another out"
        closure = self.closure
        ns = closure.nstates
        vid = closure.vid
        inputs, moves = self.inputs, self.moves

        def graph(level):
            for port, index in enumerate(inputs):
                for s, t, entry in index.entries():
                    if entry.exp >= level:
                        a, b = vid[s] * ns, vid[t] * ns
                        for p, q in moves[port]:
                            yield a + p, b + q

        closure._check(graph)
        self.out._check()
        if self.sink is not None:
            return  # the results are in the sink, not in `out`
        # every result a level holds is covered by what was emitted (a follower's derived)
        # the ends emitted: a key's own coverage, or a held source's logged rows
        held: dict = {}
        for end, src, trgs, _start in self.out.held_entries():
            for trg in trgs:
                if end > held.get((src, trg), NEVER):
                    held[src, trg] = end

        def until(key: tuple) -> int | None:
            src, trg = key
            if src != trg and self.out.keyless(src):
                return held.get(key)
            return self.out.until(key)

        finals = closure.finals
        follow = self.follow
        # (coarse levels: a level at the last round or purge may be there, its results gone)
        follow._check(closure, self.clock)
        for level in closure.levels:
            if level <= self.clock:
                continue
            for x, m in closure.rows(level).items():
                if x % ns != closure.start:
                    continue
                xv = closure.name_of(x // ns)
                derived = (
                    follow.coverage(closure, self.out, x, NEVER) if closure.derived(x) else None
                )
                for y in bits(m):
                    if y % ns in finals and y != x and (self.loops or y // ns != x // ns):
                        yv = closure.names[y // ns]
                        if derived is None or yv == xv:  # ((f, f): its own coverage)
                            end = until((xv, yv))
                        else:
                            _start, end = derived.get(yv, (None, None))
                        assert end is not None and end >= level, (xv, y, level, end)
        # a held start node with followers keeps its rows by source
        if self.implicit:
            for b in closure.sole.followers:
                bv = closure.names[b // ns]
                if b % ns == closure.start and self.out.keyless(bv):
                    assert self.out.has_index(bv), ("a held successor without its rows", bv)
        # a held source's logged ends are exactly the closure's (its findings its widenings)
        if self.implicit:
            live_exps = set(closure.exps)
            sources = {x for rows in closure.reach.values() for x in rows}
            sources.update(x for got in closure.rebuilt.values() for x in got)
            for x in sources:
                xv = closure.name_of(x // ns)
                if x % ns != closure.start:
                    continue
                if closure.derived(x) or not self.out.keyless(xv):
                    continue
                want = {t: level for level, ts in closure.ends_by_level(x, self.clock) for t in ts}
                logged = {  # (a level `overdue` dropped is over: its rows ended)
                    trg: end
                    for (src, trg), end in held.items()
                    if src == xv and trg != xv and end > self.clock and end in live_exps
                }
                assert logged == want, (xv, logged, want)
        # what a rebuild reported at a level left without a closure was emitted until then
        # (a start node's; a followed node's is its followers', FollowerRows._check)
        for level, found in closure.rebuilt.items():
            assert level in closure.exps and level not in closure.levels, level
            for x, m in found.items():
                if x % ns != closure.start:
                    continue
                xv = closure.name_of(x // ns)
                for y in bits(m):
                    if y // ns != x // ns or self.loops:
                        end = until((xv, closure.names[y // ns]))
                        assert end is not None and end >= level, (xv, y, level, end)
