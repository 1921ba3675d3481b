"""Reachability per expiry level: the closures of the closure PATH's interval rows
(state/interval_rows.py), whose exp is a pair's bottleneck as soon as it enters (native deltas
keep one closure instead: state/window_closure.py).

Invariant. For each live *level* `L` (a distinct exp `> now` of an input tuple) this holds the
transitive closure of

    G_L = the product edges of the input tuples with exp >= L

as Python-int bitsets over interned product nodes (`node = vertex_index * nstates + state`):
`reach[L][n]` (nodes reachable from n by >= 1 edge) and `anc[L][n]` (nodes reaching n, reach
transposed). For `L1 > L2`, `G_L1 ⊆ G_L2`: the closures nest.

The maths. PATH's result `(x, y)` is valid until the largest *bottleneck* over the product
paths x -> y (the `min` exp of a path's tuples, maximised over paths; specs/semantics.md §6),
which is `max{L : y in reach[L][x]}`. It is always some input tuple's exp, and with slides those
take few distinct values (the slide buckets' expiries; per-label windows add a few).

Inserting `a -> b` at level L (state/graph_closure.py `extend`) is a no-op iff `b` is in
`reach[L][a]`, and then at every lower level too; else every `x` in `{a} ∪ anc[a]` gains
`{b} ∪ reach[b]`. A batch goes top-down over the levels `<= exp` of its edges, dropping an edge
at the first level where it changes nothing. A start node whose reach gains final-state nodes
at L that the next higher level does not hold found a result with bottleneck L (`insert`
reports `(x, mask, L)`). A tuple whose exp is not a level makes one (a copy of the next higher
level, or an empty top); `drop(now)` deletes the levels `<= now`; vertex indexes are recycled
once every tuple at the vertex expired, so bitsets stay as wide as the live vertex set.

Cost: one edge at one level O(|anc(a)| + |reach(b)|) bitset operations of O(live nodes / 64)
words each, O(1) when implied.

**Coarse levels** (`deferring`, `every > 1`). Each level costs about the same `extend` work, so
this may keep a closure for one new top level in `every` only, and for the lowest live level.
A result found at L but not at the next level with a closure gets the end L, a lower bound of
its bottleneck. When the lowest level comes up (`drop_widening`), the live levels below the
next one with a closure are rebuilt from their edges (kept by exp, `_rebuild`), and each
result they hold beyond it is widened to its exact bottleneck among them. A rebuilt level left
without a closure keeps what its rebuild reported (its *memo*, `rebuilt`), so the next rebuild
reports only what is new. With memos, a start node's emitted end is the highest level whose
closure holds it or whose memo names it (`bottlenecks`). The levels go after the round at
their instant, so the round's findings at a level `<= now` are not results.

**Followers** (`sole`, state/sole_sources.py): a start node with no edge in and all its edges
to one node b reaches `{b} ∪ reach_L(b)` at every level up to its edge's exp, so it is kept as
that alias, in no level's rows and among no node's ancestors. With `derive` followers are not
reported: b's findings are, and the caller derives the followers' rows from them and from what
`take_followers` gives. A new edge source is interned *cold* (state/product_nodes.py): a
follower takes no bit position until a node of it needs one (`promote`).

The why of each idea: docs/design/path-closure.md.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right, insort
from collections.abc import Iterable, Iterator
from math import isqrt

from ..sgt import NEVER
from .graph_closure import closure, extend
from .product_nodes import COLD, ProductNodes, bits
from .sole_sources import NO_CHANGES, FollowerChanges, SoleSources


class LevelClosure(ProductNodes):
    """Nested per-level closures of the product graph, with interned vertices."""

    STATE_VERSION = 3  # the levels' closures, the followers, the edges by exp, `every`, memos

    __slots__ = (
        "levels",
        "reach",
        "anc",
        "sole",
        "derive",
        "fresh",
        "renewed",
        "unaliased",
        "new_successors",
        "renamed",
        "cycles",
        "deferring",
        "every",
        "exps",
        "by_exp",
        "rebuilt",
        "befores",
        "prior",
    )

    def __init__(
        self,
        nstates: int,
        start: int,
        finals: Iterable[int],
        derive: bool = False,
        cycles: bool = False,
        deferring: bool = False,
    ) -> None:
        """`cycles`: the start state is final but ε is not in the language (dfa.py
        `closure_automaton`): a start node reaching itself is the result `(x, x)` of a cycle,
        reported as any other; otherwise it is an ε-pair's, which the caller gives.
        `deferring`: the caller drops levels by `drop_widening` (the edges are kept by exp),
        and may set `every` above 1 for coarse levels (see the module docstring)."""
        super().__init__(nstates, start, finals)
        self.cycles = cycles
        self.levels: list[int] = []  # ascending live levels
        self.reach: dict[int, dict] = {}  # level -> node -> bitset of reachable nodes
        self.anc: dict[int, dict] = {}  # level -> node -> bitset of ancestors
        self.sole = SoleSources()  # in no level's rows; in G_L for L <= its exp
        # followers left to the caller (`derive`), until `take_followers`: new ones, renewed
        # ones `{x: exp before}`, ones made rows `[(x, b, exp)]`, successors with a first one
        self.derive = derive
        self.fresh: list[int] = []
        self.renewed: dict[int, int] = {}
        self.unaliased: list[tuple[int, int, int]] = []
        self.new_successors: list[int] = []
        self.renamed: dict[int, int] = {}  # cold start node -> its node after `_promote`
        # `deferring`: every live exp (ascending) and the closures' edges by exp, to rebuild
        # the levels without a closure when the lowest comes up; a closure for one new top
        # level in `every` (1: for every level, exact ends)
        self.deferring = deferring
        self.every = 1
        self.exps: list[int] = []
        self.by_exp: dict[int, set] = {}
        # per rebuilt level that kept no closure, the masks its rebuild reported of the start
        # nodes and the followed nodes (those it reports, `_lowest_found`)
        self.rebuilt: dict[int, dict[int, int]] = {}
        # per followed node that gained in the last `insert`, its reach before it at each
        # level it gained at (the followers' rows need a held node's ends before)
        self.befores: dict[int, dict[int, int]] = {}
        # the reports of the levels the last `drop_widening` rebuilt, as they were before
        # it (`reported_before`: a held node's ends before a rebuild's findings)
        self.prior: dict[int, dict[int, int]] = {}

    def followers_changed(self) -> bool:
        """Whether `take_followers` has anything to give."""
        return bool(
            self.fresh or self.renewed or self.unaliased or self.new_successors or self.renamed
        )

    def take_followers(self) -> FollowerChanges:
        """With `derive`: what changed among the followers since the last call."""
        if not (
            self.fresh or self.renewed or self.unaliased or self.new_successors or self.renamed
        ):
            return NO_CHANGES
        got = FollowerChanges(
            self.renamed, self.fresh, self.renewed, self.unaliased, self.new_successors
        )
        self.fresh, self.renewed, self.unaliased, self.new_successors = [], {}, [], []
        self.renamed = {}
        return got

    def followed(self) -> dict:
        """`{successor: {follower: None}}` of every followed node (a view, as the three below:
        read, never changed, kept up to date, restores included)."""
        return self.sole.followers

    def followers(self) -> dict:
        """`{follower: its successor}` (read, never changed)."""
        return self.sole.succ

    def edge_exps(self) -> dict:
        """`{follower: its edge's exp}` (read, never changed)."""
        return self.sole.exp

    def follower_groups(self) -> dict:
        """`{successor: {exp: FollowerGroup}}`: the followers of each followed node by their
        edge's exp (state/sole_sources.py; read, never changed)."""
        return self.sole.groups

    def successor(self, f: int) -> int:
        """The one node the follower f's edge goes to."""
        return self.sole.succ[f]

    def edge_exp(self, f: int) -> int:
        """The exp of the follower f's edge (f is in G_L for every level L up to it)."""
        return self.sole.exp[f]

    def _promote(self, x: int) -> int:
        """The node of a dense index for node x of a cold vertex (every node of the vertex
        moves; only its start node can be a sole-edge source, nothing else holds one)."""
        ns, start = self.nstates, self.start
        old = x - x % ns + start
        new = self.renamed.get(old)
        if new is not None:  # promoted already
            return new - start + x % ns
        y = self.promote(x // ns) * ns + x % ns
        new = y - y % ns + start
        if old in self.sole.succ:
            self.sole.rekey(old, new)
            if old in self.renewed:
                self.renewed[new] = self.renewed.pop(old)
            self.fresh = [new if f == old else f for f in self.fresh]
        self.renamed[old] = new
        return y

    def derived(self, x: int) -> bool:
        """Whether x is a follower the caller derives (`derive`)."""
        return self.derive and x in self.sole.succ

    def bottlenecks(self, x: int, after: float = NEVER) -> dict[int, int]:
        """`{final node: level}` of the final nodes x reaches, each at the highest level
        `> after` whose closure reaches it or whose rebuild or coarsening reported it
        (`rebuilt`, start nodes only). For a start node whose coverage the caller does not
        keep (a held source, state/interval_rows.py) that is what its results were emitted
        until: every such report went out as a row."""
        out: dict = {}
        for level, new in self._by_level(x, after, 0):
            for y in bits(new):
                out[y] = level
        return out

    def ends_by_level(self, x: int, after: float = NEVER) -> list:
        """`[(level, [vertex, ...])]`, highest level first: `bottlenecks` grouped by level and
        named, x's own vertex left out (one pass over x's final nodes)."""
        own = x // self.nstates
        mine = self.fold(sum(1 << (own * self.nstates + q) for q in self.finals))  # (left out)
        named = self.kept_names
        return [(level, named(new)) for level, new in self._by_level(x, after, mine)]

    def _by_level(self, x: int, after: float, seen: int) -> Iterator[tuple[int, int]]:
        """`(level, final nodes)`, highest level first, of what x reaches at each level `>
        after` with a closure or a report (`rebuilt`) and no higher level does, the nodes of
        `seen` left out (the levels nest: each node read once)."""
        fold, reach, rebuilt = self.fold, self.reach, self.rebuilt
        several, fmask = self.several, self.fmask
        for level in sorted({*self.levels, *rebuilt}, reverse=True):
            if level <= after:
                break
            m = reach[level].get(x, 0) if level in reach else 0
            got = rebuilt.get(level)
            if got:
                m |= got.get(x, 0)
            m = fold(m) if several else m & fmask  # (`fold`'s own test, without a call per level)
            new = m ^ (m & seen)
            if new:
                seen |= new
                yield level, new

    def reached_before(self, x: int, exp: int) -> int:
        """The final nodes the start node x reached before the last `insert` at a level
        `>= exp` with a closure or a rebuild's report (`befores`): those whose end, as a held
        source emitted it (`bottlenecks`), was `exp` or later. The closures nest, so the
        lowest closure `>= exp` holds what every higher one does. (`fold`ed: by vertex, as
        the findings are.)"""
        levels = self.levels
        k = bisect_left(levels, exp)
        m = 0
        if k < len(levels):
            level = levels[k]
            was = self.befores.get(x)
            if was is not None and level in was:
                m = was[level]
            else:
                m = self.reach[level].get(x, 0)
        rebuilt = self.rebuilt
        if rebuilt:
            for level, got in rebuilt.items():
                if level >= exp:
                    m |= got.get(x, 0)
        return self.fold(m) if self.several else m & self.fmask  # (`fold`, without its call)

    def reported_before(self, x: int, exp: int) -> int:
        """`reached_before` for the findings of the last rebuild (`drop_widening`): the final
        nodes x's emitted ends named at a level `>= exp` before it, those of the rebuilt
        levels' reports (`rebuilt`, as they were: the levels a rebuild makes lie below every
        closure, so no closure of theirs held anything before)."""
        m = 0
        for level, got in self.prior.items():
            if level >= exp:
                m |= got.get(x, 0)
        return self.fold(m)

    def unclosed(self, level: int) -> bool:
        """Whether `level` is a live level without a closure (coarse levels)."""
        return level in self.by_exp and level not in self.reach

    def remember(self, x: int, masks: dict) -> None:
        """Take `{level: mask}` as reported for the start node x at those live levels without
        a closure (`rebuilt`: their next rebuild reports only what they do not hold), where
        the caller emitted x's results until them (state/interval_rows.py `_rehold`)."""
        rebuilt = self.rebuilt
        for level, m in masks.items():
            assert self.unclosed(level), level
            got = rebuilt.get(level)
            if got is None:
                rebuilt[level] = {x: m}
            else:
                got[x] = got.get(x, 0) | m

    def memo_of(self, ends: dict) -> dict | None:
        """`{level: mask}` of `{level: [vertex, ...]}` (a vertex as its first final state's
        node, as `fold` names it), or None if a level is not one without a closure."""
        vid, ns, final = self.vid, self.nstates, self.finals[0]
        memo: dict = {}
        for end, trgs in ends.items():
            if not self.unclosed(end):
                return None
            memo[end] = sum(1 << (vid[t] * ns + final) for t in trgs)
        return memo

    def memos(self) -> Iterable[tuple[int, dict]]:
        """`(level, {node: mask})` of each level without a closure that has a memo."""
        return self.rebuilt.items()

    def reported_sources(self) -> set:
        """The nodes a closure or a memo has a row of (checks)."""
        sources = {x for rows in self.reach.values() for x in rows}
        sources.update(x for got in self.rebuilt.values() for x in got)
        return sources

    def remember_ends(self, x: int, keys: dict) -> None:
        """`remember` the ends of the start node x's keys `{vertex: (start, until)}` that are
        live levels without a closure: the highest level whose closure holds such a key
        for x lies below its end (a key's end at a level with a closure is that level's:
        state/follower_rows.py `_take_over`)."""
        vid, ns, final = self.vid, self.nstates, self.finals[0]  # (a vertex as `fold` names it)
        unclosed = {level for level in self.by_exp if level not in self.reach}
        memo: dict = {}
        for t, (_start, until) in keys.items():
            if until in unclosed:
                memo[until] = memo.get(until, 0) | 1 << (vid[t] * ns + final)
        if memo:
            self.remember(x, memo)

    def closure_state(self) -> dict:
        return {
            "levels": self.levels,
            "reach_by_level": self.reach,
            "ancestors_by_level": self.anc,
            "sole": self.sole.state(),
            "edges_by_exp": self.by_exp,
            "every": self.every,
            "rebuilt": self.rebuilt,
        }

    def restore_closure(self, state: dict) -> None:
        self.levels = [int(level) for level in state["levels"]]
        self.reach = {int(level): dict(m) for level, m in state["reach_by_level"].items()}
        self.anc = {int(level): dict(m) for level, m in state["ancestors_by_level"].items()}
        self.sole.restore(state["sole"])
        edges = state["edges_by_exp"]  # (empty unless `deferring`)
        self.by_exp = {int(e): set(map(tuple, got)) for e, got in edges.items()}
        self.exps = sorted(self.by_exp)
        self.every = int(state["every"])
        self.rebuilt = {
            int(level): {int(x): int(m) for x, m in got.items()}
            for level, got in state["rebuilt"].items()
        }

    def rows(self, level: int) -> dict:
        """Level L's reach rows, the sole-edge sources' included (reports and checks)."""
        reach = self.reach[level]
        out = dict(reach)
        for x, b in self.sole.succ.items():
            if self.sole.exp[x] >= level:
                out[x] = (1 << b) | reach.get(b, 0)
        return out

    # ---- levels
    def drop(self, now: int) -> None:
        """Forget the levels `<= now` (whole)."""
        levels = self.levels
        k = bisect_right(levels, now)
        if k:
            for level in levels[:k]:
                del self.reach[level]
                del self.anc[level]
            del levels[:k]
            for x in self.sole.expiring(now):
                self.sole.forget(x)

    def purge(self, now: int) -> None:
        """Drop the levels `<= now` and recycle the vertices whose tuples all expired."""
        self.drop(now)
        self.recycle(now)

    def coarsen(self, every: int) -> None:
        """From now on a closure for one new top level in `every` (`deferring` only), and,
        from the levels that have one now, only the lowest's and the top's stay: the state
        coarse levels would have made (kept, the levels made before would cost a closure
        update per tuple each until they expire). A result the dropped levels held keeps
        the end it was given; one found later in between gets a lower bound, as any other."""
        assert self.deferring, "coarse levels need the edges by exp"
        self.every = every
        levels = self.levels
        if every > 1 and len(levels) > 2:
            ns, start, fmask = self.nstates, self.start, self.fmask
            followers = self.sole.followers if self.derive else {}
            for level in levels[1:-1]:
                # what its closure held was reported with an end at it or above
                self.rebuilt[level] = {
                    x: m & fmask
                    for x, m in self.reach[level].items()
                    if x % ns == start or x in followers
                }
                del self.reach[level], self.anc[level]
            levels[:] = [levels[0], levels[-1]]

    def forget_sources(self, now: int) -> None:
        """Forget the sole-edge sources whose edge expired by `now` (in no level's rows: a
        level at `now` may stay until after its round, `drop_widening`). Their exps are
        live levels (`drop_widening` forgets those of the levels it drops), so this reads
        them only when the lowest level is `<= now`."""
        exps = self.exps
        if exps and exps[0] <= now:
            sole = self.sole
            for x in sole.expiring(now):
                sole.forget(x)

    def recycle_before(self, now: int) -> None:
        """Recycle the vertices whose tuples all expired before `now` and before the lowest
        live level (`deferring`: a level at `now` goes after the round at `now`)."""
        exps = self.exps
        self.recycle((exps[0] if exps and exps[0] < now else now) - 1)

    def due(self, upto: float) -> bool:
        """Whether `drop_widening(upto)` has a level to drop (each round asks twice: a test,
        where a generator costs its frame)."""
        exps = self.exps
        return bool(exps) and exps[0] <= upto

    def drop_widening(self, upto: float) -> Iterator[tuple[int, list]]:
        """`deferring`: drop the live levels `<= upto`, lowest first, each reported as
        `(L, found)` before the next level goes. Where the next live level has no closure,
        the live levels below the next one with a closure are rebuilt (`_rebuild`), and
        `found` is what goes on past the dropped level L, as `insert`'s findings `(x, mask,
        L2)`: results whose emitted end was L or below, now widened to their bottleneck L2.
        Where the next level had a closure, everything it holds was reported with an end at
        it or above already (`found` is empty)."""
        exps, levels = self.exps, self.levels
        while exps and exps[0] <= upto:
            level = exps.pop(0)
            del self.by_exp[level]
            self.rebuilt.pop(level, None)
            if levels and levels[0] == level:
                del levels[0]
                del self.reach[level]
                del self.anc[level]
            for x in self.sole.expiring(level):
                self.sole.forget(x)
            if not exps or (levels and levels[0] == exps[0]):
                continue
            yield level, self._rebuild()

    def _rebuild(self) -> list:
        """Closures for the live levels below the lowest one with a closure (the gap), from
        their edges (state/graph_closure.py `closure`, O(edges)); returns what each holds and
        the next level up does not, less what its memo (`rebuilt`) names. Then one rebuilt
        level in `isqrt(every)` keeps its closure, the lowest first (a tuple goes into fewer
        closures; a result found later between two of them gets the lower one as its end);
        the others keep what they reported as their memo, so their next rebuild reports only
        what is new."""
        exps, levels, by_exp, rebuilt = self.exps, self.levels, self.by_exp, self.rebuilt
        top = levels[0] if levels else None
        gap = [e for e in exps if top is None or e < top]
        sole = self.sole.succ
        found: list = []
        self.prior = {low: rebuilt[low] for low in gap if low in rebuilt}
        spaced = isqrt(self.every)
        for i in range(len(gap) - 1, -1, -1):
            low = gap[i]
            edges = (
                edge
                for e in exps
                if e >= low
                for edge in by_exp[e]
                if not sole or edge[0] not in sole
            )
            self.reach[low], self.anc[low] = closure(edges)
            levels.insert(0, low)
            got = self._lowest_found()
            before = rebuilt.pop(low, None)
            if spaced > 1 and i % spaced:  # no closure kept: what it reported, kept
                rebuilt[low] = {x: m for x, m, _ in got}  # (start nodes, followed nodes)
            if before:
                got = _unreported(got, before)
            found += got
        if spaced > 1:  # one rebuilt level in `spaced` keeps its closure, the lowest first
            for i in range(1, len(gap)):
                if i % spaced:
                    del self.reach[gap[i]], self.anc[gap[i]]
            levels[: len(gap)] = gap[::spaced]
        return found

    def _lowest_found(self) -> list:
        """`(x, mask, L)` for what the lowest level L holds and the next level does not: start
        nodes, and with `derive` the successors of sole-edge sources, as `insert` reports."""
        levels, ns, start, fmask = self.levels, self.nstates, self.start, self.fmask
        level = levels[0]
        higher = self.reach[levels[1]] if len(levels) > 1 else {}
        followers = self.sole.followers if self.derive else {}
        cycles = self.cycles
        by_vertex = self.several
        found = []
        for x, m in self.reach[level].items():
            if x % ns != start and x not in followers:
                continue
            new = m & fmask
            if not new:
                continue
            bx = 1 << x
            own = 0
            if new & bx:
                new ^= bx
                if cycles and x % ns == start:
                    own = bx ^ (bx & higher.get(x, 0))
            up = new ^ (new & higher.get(x, 0))
            if by_vertex and (up or own):
                up, own = self._new_vertices(x, up | own, higher.get(x, 0)), 0
            if up or own:
                found.append((x, up | own, level))
        return found

    def drop_reporting(self, upto: int, strict: bool, own_vertex: bool) -> list:
        """`drop` the levels `<= upto` (`< upto` when `strict`), first reporting what leaves
        with each: `[(L, [(x, vertices)])]`, per start node x the vertices (bit positions
        `v * nstates`) whose results have
        bottleneck exactly L (in L's closure, not in the next higher level's), so the pairs
        that leave the output at L. `own_vertex`: x's own vertex is never reported (its pair
        comes from the ε-pairs of a nullable regex). O(rows of the dropped levels) bitset
        operations."""
        levels = self.levels
        k = bisect_left(levels, upto) if strict else bisect_right(levels, upto)
        if not k:
            return []
        ns, start = self.nstates, self.start
        report = []
        for i in range(k):
            level = levels[i]
            higher = self.rows(levels[i + 1]) if i + 1 < len(levels) else {}
            rows = []
            fresh_vertices = self.fresh_vertices
            for x, m in self.rows(level).items():
                if x % ns != start:
                    continue
                up = higher.get(x, 0)
                if up == m:
                    continue
                gone = fresh_vertices(up, m ^ up)  # a higher level's graph is within L's
                if own_vertex and x - start in gone:
                    gone.remove(x - start)
                if gone:
                    rows.append((x, gone))
            report.append((level, rows))
        self.drop(levels[k - 1])
        return report

    def live_pairs(self, own_vertex: bool) -> dict:
        """`{(x, vertex bit): bottleneck}` of every result the closure holds: per start node
        its reached vertices, each with the highest level that reaches it."""
        return self.pairs_by_level(((L, self.rows(L)) for L in reversed(self.levels)), own_vertex)

    def new_levels(self, exps: Iterable[int]) -> int:
        """How many of `exps` are not live levels yet."""
        live = self.by_exp if self.deferring else self.reach
        return sum(1 for e in set(exps) if e not in live)

    def live_levels(self) -> int:
        """How many live levels there are (with a closure or not)."""
        return len(self.exps) if self.deferring else len(self.levels)

    def _ensure(self, level: int) -> None:
        if self.deferring:
            if level in self.by_exp:
                return
            self.by_exp[level] = set()
            exps = self.exps
            insort(exps, level)
            levels = self.levels
            # a closure for the lowest live level, and for one new top in `every`
            if self.every > 1 and levels and level > levels[0]:
                if (
                    level < levels[-1]
                    or bisect_left(exps, level) - bisect_left(exps, levels[-1]) < self.every
                ):
                    return
        if level in self.reach:
            return
        levels = self.levels
        k = bisect_right(levels, level)
        if k < len(levels):  # G_level == G_next before the new tuples
            up = levels[k]
            self.reach[level] = dict(self.reach[up])
            self.anc[level] = dict(self.anc[up])
        else:  # a new top: only the new tuples
            self.reach[level] = {}
            self.anc[level] = {}
        insort(levels, level)

    # ---- insertion
    def insert(self, edges: list) -> list:
        """Add product edges `(a, b, exp)` (exp above every dropped level). Returns
        `(x, mask, L)`: start node x newly reaches the final nodes of `mask` with bottleneck
        exactly L (they are not in the next higher level)."""
        found: list = []
        self.befores = {}
        if not edges:
            return found
        if len(edges) == 1:  # (most rounds: one edge)
            self._ensure(edges[0][2])
        else:
            for e in {e[2] for e in edges}:
                self._ensure(e)
        fresh, renewed, edges = self._sources(edges)
        if self.deferring:
            by_exp = self.by_exp
            for a, b, e in edges:
                by_exp[e].add((a, b))
        if self.derive and (fresh or renewed):  # the caller's
            self.fresh += fresh
            for x, before in renewed.items():
                self.renewed.setdefault(x, before)  # (renewed twice before a take: the first)
            fresh, renewed = {}, {}
        if edges:
            self._top_down(edges, fresh, renewed, found)
        # sole-edge sources new in this batch, or in G_L of higher levels now: whole rows
        if fresh or renewed:
            for x in fresh:
                self._report(x, 0, found)
            for x, below in renewed.items():
                self._report(x, below, found)
            # higher levels first, as the loop above gives them: a key two final states of a
            # vertex reach at two levels then gets one row, the higher (stable: ties keep order)
            found.sort(key=lambda f: -f[2])
        return found

    def _top_down(self, edges: list, fresh: dict, renewed: dict, found: list) -> None:
        """`extend` each level `<= exp` by the edges `(a, b, exp)`, the highest level first,
        an edge dropped at the first level where it is implied (then it is at every lower
        one); what the nodes gain goes to `found` (`_found`)."""
        levels, reach_of, anc_of = self.levels, self.reach, self.anc
        derive, followers = self.derive, self.sole.followers
        ns, start, fmask = self.nstates, self.start, self.fmask  # (`_promote` may grow it)
        if len(edges) > 1:
            edges.sort(key=lambda e: -e[2])
        n = len(edges)
        j = 0
        pending: list = []
        work = 0
        idx = bisect_right(levels, edges[0][2]) - 1
        while idx >= 0:
            level = levels[idx]
            while j < n and edges[j][2] >= level:
                pending.append(edges[j])
                j += 1
            if not pending:
                if j >= n:
                    break
                idx = bisect_right(levels, edges[j][2]) - 1
                continue
            R = reach_of[level]
            A = anc_of[level]
            gained: list = []
            kept = []
            for e in pending:
                ops = extend(R, A, e[0], e[1], ns, start, fmask, gained, followers)
                if ops:
                    work += ops
                    kept.append(e)
            pending = kept
            if gained:
                if derive:  # (every node in `gained` is reported: a start node or followed)
                    higher = reach_of[levels[idx + 1]] if idx + 1 < len(levels) else None
                    self._found(gained, level, higher, found)
                else:
                    self._found_following(gained, level, idx, fresh, renewed, found)
            idx -= 1
        self.work += work

    def _found(self, gained: list, level: int, higher: dict | None, found: list) -> None:
        """`found` gets `(x, mask, level)` for each gaining node x (with `derive`: start nodes
        and followed nodes, all reported) whose final nodes gained at `level` are not in the
        `higher` level's reach (None: `level` is the top). Nodes mostly gain the very same
        object (`extend`: `{b} ∪ reach[b]`), so its final nodes are masked once per object."""
        fmask, ns, start, cycles = self.fmask, self.nstates, self.start, self.cycles
        followers, befores = self.sole.followers, self.befores
        vfinals = self.vfinals  # (x's own bit is in a final mask only where x's state is final)
        last = final = None
        get = None if higher is None else higher.get
        append = found.append
        by_vertex = self.several
        for x, before, added in gained:
            if x in followers:  # (its first gain here: reach before)
                was = befores.get(x)
                if was is None:
                    befores[x] = {level: before}
                elif level not in was:
                    was[level] = before
            if added is not last:
                last, final = added, added & fmask  # `a ^ (a & b)`, not `a & ~b` (extend)
                if not final:
                    continue
                if by_vertex:  # (its vertices, and their final nodes, once per object)
                    vertices = self.fold(final)
                    siblings = self.spread(vertices)
            elif not final:
                continue
            new = final
            if vfinals >> x % ns & 1 and new >> x & 1:  # (the shift reads the whole width)
                bx = 1 << x
                new ^= bx  # x already had itself at L (b, for its followers)
                if cycles and x % ns == start:  # but a start node's cycle: (x, x)
                    if get is None or not get(x, 0) & bx:
                        new |= bx
            h = None if get is None else get(x)
            if h is not None:
                new ^= new & h
            if new and by_vertex:
                # by vertex (`_new_vertices`), the wide masks read only where they meet the
                # vertices of the object: one `&` each, a fold of what they share
                held = before & siblings
                if h is not None:
                    held |= h & siblings
                new = self._new_vertices(x, new, held, vertices if new == final else None)
            if new:
                append((x, new, level))

    def _new_vertices(self, x: int, new: int, held: int, folded: int | None = None) -> int:
        """With several final states, a finding by vertex: the vertices of the final nodes
        `new` (`fold`; `folded` when known) that no final node of `held` (what x reached
        before at the level, or at the next higher one) names, so a key found through a
        second final state of its vertex is no finding; a followed node in a final state
        leaves its own vertex out (its followers hold it with their edge)."""
        new = self.fold(new) if folded is None else folded
        if held:
            new ^= new & self.fold(held)
        ns = self.nstates
        q = x % ns
        if new and q != self.start and q in self.finals:
            own = 1 << (x - q + self.finals[0])
            new ^= new & own
        return new

    def _found_following(
        self, gained: list, level: int, idx: int, fresh: dict, renewed: dict, found: list
    ) -> None:
        """Without `derive`: `found` gets what each gaining start node x finds at `level`
        (the final nodes not in the next higher level's reach), and what the sole-edge
        sources after x find with it, at L and under their exp."""
        levels, reach_of = self.levels, self.reach
        ns, start, fmask, cycles = self.nstates, self.start, self.fmask, self.cycles
        sole_exp, followers = self.sole.exp, self.sole.followers
        top = idx + 1 == len(levels)
        higher = None if top else reach_of[levels[idx + 1]]
        over = None if top else levels[idx + 1]
        for x, _before, added in gained:
            new = added & fmask  # `a ^ (a & b)`, not `a & ~b` (see extend)
            bx = 1 << x
            own = 0
            if new & bx:
                new ^= bx  # x already had itself at L (b, for its followers)
                if cycles and x % ns == start:  # but a start node's cycle: (x, x)
                    own = bx if higher is None else bx ^ (bx & higher.get(x, 0))
            up = new if higher is None else new ^ (new & higher.get(x, 0))
            if (up or own) and x % ns == start:
                found.append((x, up | own, level))
            xs = followers.get(x)
            if xs:
                for f in xs:
                    e = sole_exp[f]
                    if e < level or f in fresh or renewed.get(f, e) < level:
                        continue  # not in G_L, or reported whole below
                    got = up if over is not None and e >= over else new
                    if got:
                        found.append((f, got, level))

    def _sources(self, edges: list) -> tuple[dict, dict, list]:
        """Sort out the batch's edges from sole-edge sources before it runs: a source that
        gets an edge in, or an edge to a second node, becomes rows (`_unalias`); a start node
        with no rows whose edges all go to one other node, into none, becomes a source.
        Returns the new sources, the renewed ones (`{x: its exp before}`, their edge's exp
        grew) and the edges left for the closures."""
        cold = COLD * self.nstates
        if self.cold:  # cold vertices: those with an edge in become dense first
            edges = self._warm(edges, [b for _a, b, _e in edges if b >= cold])
        sources = self.sole
        sole, followers = sources.succ, sources.followers
        outs = self._outs(edges)
        ns, start = self.nstates, self.start
        lowest = self.levels[0]
        R, A = self.reach[lowest], self.anc[lowest]
        targets = {b for _a, b, _e in edges}
        fresh: dict = {}  # the new sources, in order
        renewed: dict = {}
        renamed = self.renamed
        for a, (b, e) in outs.items():
            if b is None or (a >= cold and a - a % ns + start in renamed):
                continue  # (promoted by `_unalias`: rows now)
            if a in sole:
                before = sources.renew(a, e)
                if before is not None:
                    renewed[a] = before
            elif (
                a % ns == start
                and a != b
                and a not in targets
                and a not in R
                and a not in A
                and a not in followers
            ):
                if self.derive and b % ns != start and b not in followers:
                    self.new_successors.append(b)
                sources.add(a, b, e)
                fresh[a] = None
        if sole:
            edges = [edge for edge in edges if edge[0] not in sole]
        if self.cold or self.renamed:  # the sources left with rows of their own: dense
            edges = self._warm(edges, [a for a, _b, _e in edges if a >= cold])
            if self.renamed:  # (a new source whose vertex has rows at another node)
                moved = self._moved
                fresh = {moved(x): None for x in fresh}
                renewed = {moved(x): before for x, before in renewed.items()}
        return fresh, renewed, edges

    def _outs(self, edges: list) -> dict:
        """`{a: [b, exp]}` per edge source a of the batch: its one target b (None: several)
        and its largest exp. A sole-edge source with an edge in, or an edge to another node,
        becomes rows first (`_unalias`)."""
        outs: dict = {}
        for a, b, e in edges:
            got = outs.get(a)
            if got is None:
                outs[a] = [b, e]
            else:
                if got[0] != b:
                    got[0] = None
                if e > got[1]:
                    got[1] = e
        sole = self.sole.succ
        if sole:
            for _a, b, _e in edges:
                if b in sole:
                    self._unalias(b)
            for a, (b, _e) in outs.items():
                if a in sole and sole[a] != b:
                    self._unalias(a)
        return outs

    def _moved(self, x: int) -> int:
        """Node x, or its node now if `_promote` moved its vertex."""
        if x < COLD * self.nstates:
            return x
        ns, start = self.nstates, self.start
        y = self.renamed.get(x - x % ns + start)
        return x if y is None else y - start + x % ns

    def _warm(self, edges: list, nodes: list) -> list:
        """`edges` with the vertices of the cold `nodes` promoted (and those `_unalias`
        promoted already) renamed."""
        if not nodes and not self.renamed:
            return edges
        for x in nodes:
            self._promote(x)
        cold, moved = COLD * self.nstates, self._moved
        return [
            (moved(a) if a >= cold else a, moved(b) if b >= cold else b, e) for a, b, e in edges
        ]

    def _unalias(self, x: int) -> None:
        """Make the sole-edge source x rows again, at every level its edge is in (what it
        reaches there was reported already)."""
        if x >= COLD * self.nstates:  # its rows need bit positions
            x = self._promote(x)
        e = self.sole.exp[x]
        b = self.sole.forget(x)
        if self.derive:
            self.unaliased.append((x, b, e))
        if self.deferring:
            self.by_exp[e].add((x, b))
        bx = 1 << x
        for level in self.levels:
            if level > e:
                break
            R, A = self.reach[level], self.anc[level]
            m = (1 << b) | R.get(b, 0)
            R[x] = m
            for y in bits(m):
                A[y] = A.get(y, 0) | bx

    def _report(self, x: int, below: int, found: list) -> None:
        """`found` gets what the sole-edge source x reaches at each level in (below, its exp]
        and not at the next higher one (its edge is in G_L for exactly those levels now)."""
        b, e = self.sole.succ[x], self.sole.exp[x]
        levels, fmask, bb = self.levels, self.fmask, 1 << b
        k = bisect_right(levels, below)
        for i in range(k, len(levels)):
            level = levels[i]
            if level > e:
                break
            new = (bb | self.reach[level].get(b, 0)) & fmask
            if i + 1 < len(levels) and levels[i + 1] <= e:
                new ^= new & (bb | self.reach[levels[i + 1]].get(b, 0))
            if new:
                found.append((x, new, level))

    # ---- reporting
    def __len__(self) -> int:
        """Bitset entries over all levels (nodes with a non-empty reach or ancestor set)."""
        rows = sum(len(r) for r in self.reach.values()) + sum(len(a) for a in self.anc.values())
        return rows + len(self.sole)

    def density(self) -> tuple[int, int, int, float]:
        """`density_of` the lowest (largest) level."""
        if not self.levels:
            return 0, 0, 0, 0.0
        level = self.levels[0]
        return self.density_with_sources(self.reach[level], self.sole, level)

    def _check(self, graph_of_level=None) -> None:
        """Invariants: levels sorted and in sync; anc is reach transposed; closures nested;
        every node is of a live vertex; with `graph_of_level(L)` -> product edges of G_L, each
        level is exactly the transitive closure of G_L."""
        levels = self.levels
        assert levels == sorted(set(levels)), levels
        assert set(levels) == set(self.reach) == set(self.anc)
        ns = self.nstates
        self._check_vertices()
        self.sole.check(ns, self.start)
        sole = self.sole.succ
        for x, b in sole.items():
            assert self.name_of(x // ns) is not None and self.names[b // ns] is not None
        if levels:
            want = self.density_of(self.rows(levels[0]))
            assert self.density() == want, "density differs from the rows'"
        for level in self.rebuilt:  # (memos: live levels without a closure)
            assert level in self.exps and level not in self.reach, level
        prev = None
        for level in reversed(levels):
            R, A = self.rows(level), self.anc[level]
            for x in sole:
                assert x not in self.reach[level] and x not in A, ("a source with rows", x)
            trans: dict = {}
            for x, m in R.items():
                assert m, (level, x)
                assert self.name_of(x // ns) is not None, (level, x)
                if x in sole:  # among no node's ancestors
                    continue
                assert x < COLD * ns, ("a cold node with rows", x)
                for y in bits(m):
                    assert y < COLD * ns, ("a cold node reached", y)
                    trans[y] = trans.get(y, 0) | (1 << x)
            assert {y: m for y, m in trans.items() if m} == A, (
                "anc is not reach transposed",
                level,
            )
            if prev is not None:
                for x, m in prev.items():
                    assert m & ~R.get(x, 0) == 0, ("not nested", level, x)
            prev = R
            if graph_of_level is not None:
                succ: dict = {}
                for a, b in graph_of_level(level):
                    succ.setdefault(a, set()).add(b)
                want: dict = {}
                for x in succ:
                    seen: set = set()
                    todo = list(succ[x])
                    while todo:
                        y = todo.pop()
                        if y in seen:
                            continue
                        seen.add(y)
                        todo.extend(succ.get(y, ()))
                    want[x] = sum(1 << y for y in seen)
                assert want == R, ("closure differs from G_L", level)


def _unreported(found: list, before: dict) -> list:
    """`found` without the start nodes' targets `before` names (`drop_widening`)."""
    out = []
    for x, m, level in found:
        b = before.get(x)
        if b is not None:
            m &= ~b
            if not m:
                continue
        out.append((x, m, level))
    return out
