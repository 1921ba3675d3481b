"""Reachability over the whole window, the next level rebuilt at each expiry: the closure of
the closure PATH's native deltas (operators/closure_deltas.py).

A delta needs two facts per result pair: the instant it enters, and the expiry level it leaves
at (its bottleneck, specs/semantics.md §6). state/level_closure.py keeps one closure per live
level, so each tuple is inserted up to once per level (~window/slide times) to know every
bottleneck at once. A delta producer does not need a pair's bottleneck when it enters, only
when the level is dropped: so this keeps the closure of one graph only,

    G = the product edges of every valid input tuple (the lowest live level's graph),

maintained per edge as the lowest level of a LevelClosure is (an implied edge costs one bit
test; otherwise the ancestors of `a` gain `{b} ∪ reach(b)`), which gives the instant a pair
enters. The edges are kept by exp; when level L is dropped (it expired), the closure of the
edges with exp > L is computed again for the nodes that reach one of L's edges, and the
ancestors for those one reaches (state/graph_closure.py `reclose`: the components of those
nodes condensed, every other node's set read as it is), and the start rows' final vertices
that it lacks are exactly the pairs whose bottleneck is L: those leave at L.

Cost: a tuple costs one closure update, plus one pass and one partial rebuild per level of its
life, instead of one update per level; the memory is one level's bitsets instead of all of
them. Interval rows, which carry a pair's exp when it enters, stay with
state/level_closure.py.

A result is a pair of vertices, whichever final state reaches it. With several final states
per vertex, each start row also keeps its vertices folded (`vreach`, `vertices_of` of its
reach): the results a row gains are then one `&` of two vertex sets, and those it loses at a
drop one `^`, instead of a test per final node against the row's whole reach.

**Followers.** A start node with no edge in and one edge out, `x -> b` (a post's `hasCreator`
edge on the way to `knows*`), reaches exactly `{b} ∪ reach(b)`. It is kept as that alias
(`sole`, state/sole_sources.py), not as a row: no bitset of its own, not among anyone's
ancestors. What `b` gains (or loses at a drop), its followers gain (or lose) with it, one
shared list per `b`. An edge into the source, or a second edge out of it, makes it an ordinary
row again. The why: docs/design/path-closure.md.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right, insort
from collections.abc import Iterable, Iterator

from .graph_closure import closure, extend, reclose
from .product_nodes import ProductNodes, bits
from .sole_sources import SoleSources


class WindowClosure(ProductNodes):
    """The closure of the window's product graph, its edges kept by exp (levels)."""

    __slots__ = ("levels", "by_exp", "reach", "anc", "vreach", "sole")

    def __init__(self, nstates: int, start: int, finals: Iterable[int]) -> None:
        super().__init__(nstates, start, finals)
        self.levels: list[int] = []  # ascending live levels (exps of edges)
        self.by_exp: dict[int, set] = {}  # level -> product edges (a, b) with that exp
        self.reach: dict = {}  # node -> bitset of nodes reachable in G
        self.anc: dict = {}  # node -> bitset of nodes reaching it in G
        # start node -> vertices_of(reach): only with several final states (with one, a new
        # final node is a new vertex)
        self.vreach: dict | None = {} if len(self.finals) > 1 else None
        self.sole = SoleSources()  # not in reach/anc

    def closure_state(self) -> dict:
        return {
            "edges_by_exp": self.by_exp,
            "reach": self.reach,
            "ancestors": self.anc,
            "sole": self.sole.state(),
        }

    def restore_closure(self, state: dict) -> None:
        self.by_exp = {int(level): set(edges) for level, edges in state["edges_by_exp"].items()}
        self.levels = sorted(self.by_exp)
        self.reach = dict(state["reach"])
        self.anc = dict(state["ancestors"])
        self.vreach = self._folded(self.reach) if self.vreach is not None else None
        self.sole.restore(state["sole"])

    def _row(self, x: int) -> int:
        """The reach of node x, a sole-edge source's included."""
        b = self.sole.succ.get(x)
        if b is None:
            return self.reach.get(x, 0)
        return (1 << b) | self.reach.get(b, 0)

    def _full_reach(self) -> dict:
        """`reach` with the sole-edge sources' rows (checks and reports, not the hot path)."""
        out = dict(self.reach)
        for x in self.sole.succ:
            out[x] = self._row(x)
        return out

    def _folded(self, reach: dict) -> dict:
        """`vreach` of a closure's `reach`: the start rows' vertices."""
        ns, start, vertices_of = self.nstates, self.start, self.vertices_of
        out = {}
        for x, m in reach.items():
            if x % ns == start:
                vs = vertices_of(m)
                if vs:
                    out[x] = vs
        return out

    def results(self, own_vertex: bool) -> set:
        """Every result `(x, y)` (vertex names) the closure holds; `own_vertex`: without
        `(x, x)` (an ε-pair's)."""
        ns, start, names = self.nstates, self.start, self.names
        out = set()
        for a, m in self._full_reach().items():
            if a % ns != start:
                continue
            got = self.vertices_of(m)
            if own_vertex:
                got &= ~(1 << (a - start))
            xv = names[a // ns]
            out.update((xv, names[y // ns]) for y in bits(got))
        return out

    def holds(self, x: str, y: str) -> bool:
        """Whether the closure holds the result `(x, y)`: the start node of vertex `x`
        reaches a final-state node of vertex `y`."""
        return bool(self.held_targets(x, (y,)))

    def held_targets(self, x: str, ys) -> list:
        """The vertices of `ys` that `x` reaches in the closure (`holds` of each, one row read
        for them all)."""
        i = self.vid.get(x)
        if i is None:
            return []
        ns, finals, vid = self.nstates, self.finals, self.vid
        row = self._row(i * ns + self.start)
        if not row:
            return []
        out = []
        for y in ys:
            j = vid.get(y)
            if j is not None:
                base = j * ns
                for f in finals:
                    if row >> (base + f) & 1:
                        out.append(y)
                        break
        return out

    def live_levels(self) -> int:
        """How many live levels there are."""
        return len(self.levels)

    def new_levels(self, exps: Iterable[int]) -> int:
        """How many of `exps` are not levels yet."""
        by_exp = self.by_exp
        return sum(1 for e in set(exps) if e not in by_exp)

    def insert(self, edges: list, entering: list) -> None:
        """Add product edges `(a, b, exp)` (exp above every dropped level); `entering` gets
        `(x, vertices)`: the vertices start node x reaches now and did not before (the results
        that enter), as a vertex mask (`vertices_of`'s: bit `v * nstates` of vertex index v;
        rows may share one)."""
        by_exp = self.by_exp
        R, A = self.reach, self.anc
        ns, start, fmask = self.nstates, self.start, self.fmask
        sources = self.sole
        sole, followers = sources.succ, sources.followers
        gained: list = []
        fresh: set = set()  # sole-edge sources made in this batch (nothing reported yet)
        work = 0
        for a, b, exp in edges:
            level = by_exp.get(exp)
            if level is None:
                by_exp[exp] = level = set()
                insort(self.levels, exp)
            level.add((a, b))
            if sole:
                if b in sole:  # an edge into a source: it becomes a row
                    self._unalias(b, gained, fresh)
                t = sole.get(a)
                if t == b:  # a copy of its edge: it lives on until the copy's exp
                    sources.renew(a, exp)
                    continue
                if t is not None:  # a second edge out: it becomes a row
                    self._unalias(a, gained, fresh)
            if (
                a % ns == start
                and a != b
                and a not in R
                and a not in A  # no edge in from a row
                and a not in followers  # nor from a sole-edge source
            ):
                sources.add(a, b, exp)
                fresh.add(a)
                continue
            work += extend(R, A, a, b, ns, start, fmask, gained, followers)
        self.work += work
        self._entering(gained, fresh, entering)

    def _entering(self, gained: list, fresh: set, entering: list) -> None:
        """`insert`'s `entering` from what the rows `gained` (`extend`'s) and the followers:
        what their successor gained, or its whole reach for the `fresh` ones."""
        ns, start, R = self.nstates, self.start, self.reach
        sole, followers = self.sole.succ, self.sole.followers
        # most start nodes gain the very same set (extend): its vertices once per set
        per_set: dict = {}
        vertices_of, vreach = self.vertices_of, self.vreach
        first: dict = {}  # node with followers -> its reach before this batch
        for x, before, added in gained:
            if x in followers and x not in first:
                first[x] = before
            if x % ns != start:
                continue
            fv = per_set.get(id(added))
            if fv is None:
                fv = per_set[id(added)] = vertices_of(added)
            if vreach is None:  # one final state: the final nodes gained are new vertices
                if fv:
                    entering.append((x, fv))
                continue
            vr = vreach.get(x, 0)
            common = vr & fv
            if common == fv:
                continue
            vreach[x] = vr | fv
            entering.append((x, fv ^ common if common else fv))
        # the sole-edge sources: what their successor gained, one mask per successor
        for b, before in first.items():
            bb = 1 << b
            old, new = vertices_of(bb | before), vertices_of(bb | R.get(b, 0))
            if old == new:
                continue
            vs = new ^ old  # old is within new
            for x in followers[b]:
                if x not in fresh:
                    entering.append((x, vs))
        whole: dict = {}
        for x in fresh:
            b = sole.get(x)
            if b is None:
                continue  # a row again within the batch (`_unalias` reported it)
            vs = whole.get(b)
            if vs is None:
                vs = whole[b] = vertices_of((1 << b) | R.get(b, 0))
            if vs:
                entering.append((x, vs))

    def _unalias(self, x: int, gained: list, fresh: set) -> None:
        """Make the sole-edge source x an ordinary row (an edge into it, or a second edge out
        of it, came): its reach and its place among its descendants' ancestors; `gained` gets
        what it reaches beyond what was reported for it (nothing yet if it is `fresh`; else
        its successor's set before this batch)."""
        b = self.sole.forget(x)
        R, A = self.reach, self.anc
        m = (1 << b) | R.get(b, 0)
        R[x] = m
        bx = 1 << x
        for y in bits(m):
            A[y] = A.get(y, 0) | bx
        if x in fresh:
            fresh.discard(x)
            told = 0
        else:
            before = next((rx for n, rx, _added in gained if n == b), R.get(b, 0))
            told = (1 << b) | before
        if self.vreach is not None:
            if told:
                self.vreach[x] = self.vertices_of(told)
            gained.append((x, 0, m))
        else:
            gained.append((x, 0, m ^ told))  # told is within m

    def drop_reporting(self, upto: int, strict: bool) -> list:
        """Drop the levels `<= upto` (`< upto` when `strict`), reporting what leaves with each:
        `[(L, [(x, vertices)])]`, per start node x the vertices (a vertex mask, as `insert`'s)
        it reaches with L's edges and not without them (bottleneck exactly L), x's own vertex
        among them (whether its pair is a result is the caller's: an ε-pair's, or none)."""
        levels = self.levels
        k = bisect_left(levels, upto) if strict else bisect_right(levels, upto)
        if not k:
            return []
        ns, start, vertices_of = self.nstates, self.start, self.vertices_of
        R, A, sole, vreach = self.reach, self.anc, self.sole.succ, self.vreach
        report = []
        for level in levels[:k]:
            dropped = self.by_exp.pop(level)
            if sole:
                dropped = [e for e in dropped if e[0] not in sole]
            # the rows that may shrink, and the ancestor sets that may (state/graph_closure.py)
            reach, anc = reclose(R, A, self._edges(), dropped)
            rows = []
            for x, up in reach.items():
                if x % ns != start:
                    continue
                m = R.get(x, 0)
                if up == m:
                    continue
                if vreach is None:  # one final state: a final node lost is a vertex lost
                    gone = vertices_of(m ^ up)  # the graph shrank: up is within m
                else:
                    held = vreach.get(x, 0)
                    now = vertices_of(up)
                    if now:
                        vreach[x] = now
                    elif held:
                        del vreach[x]
                    if now == held:
                        continue
                    gone = held ^ now  # now is within held
                if gone:
                    rows.append((x, gone))
            self._followers_lost(level, reach, rows)
            report.append((level, rows))
            _update(R, reach)
            _update(A, anc)
        del levels[:k]
        return report

    def _followers_lost(self, level: int, reach: dict, rows: list) -> None:
        """`drop_reporting`'s rows of the sole-edge sources at `level`: all of their
        successor's vertices when their edge goes (forgotten then), else what their
        successor lost (`reach`: the rows that changed without the level's edges)."""
        vertices_of = self.vertices_of
        sources = self.sole
        sole_exp, followers = sources.exp, sources.followers
        for b, xs in list(followers.items()):
            bb = 1 << b
            old_m = bb | self.reach.get(b, 0)
            new_m = bb | reach[b] if b in reach else old_m
            held = vertices_of(old_m)
            lost = None
            for x in list(xs):
                if sole_exp[x] <= level:
                    gone = held  # one mask for all of b's followers
                    sources.forget(x)  # (and b's followers entry after its last)
                else:
                    if lost is None:
                        lost = held ^ vertices_of(new_m) if new_m != old_m else 0
                    gone = lost
                if gone:
                    rows.append((x, gone))

    def _edges(self) -> Iterator[tuple[int, int]]:
        """The kept edges but the sole-edge sources' (which no row's reach depends on)."""
        sole = self.sole.succ
        for level in self.by_exp.values():
            if sole:
                yield from (e for e in level if e[0] not in sole)
            else:
                yield from level

    def _all_edges(self) -> Iterator[tuple[int, int]]:
        for level in self.by_exp.values():
            yield from level

    def purge(self, now: int) -> None:
        """Recycle the vertices whose tuples all expired (their levels were dropped)."""
        assert not self.levels or self.levels[0] > now, (self.levels[0], now)
        self.recycle(now)

    def live_pairs(self, own_vertex: bool) -> dict:
        """`{(x, vertex bit): bottleneck}` of every result: the closures of the levels from
        the top down, each pair at the highest level that has it (a hand-over; rare)."""
        return self.pairs_by_level(self._top_down(), own_vertex)

    def _top_down(self) -> Iterator[tuple[int, dict]]:
        edges: list = []
        for level in reversed(self.levels):
            edges.extend(self.by_exp[level])  # the sole-edge sources' too: all rows
            yield level, closure(edges)[0]

    # ---- reporting
    def __len__(self) -> int:
        """Bitset entries (nodes with a non-empty reach or ancestor set) and kept edges."""
        edges = sum(len(e) for e in self.by_exp.values())
        return len(self.reach) + len(self.anc) + len(self.sole) + edges

    def density(self) -> tuple[int, int, int, float]:
        """`density_of` the window's closure (the lowest level's), sole-edge sources as rows."""
        return self.density_with_sources(self.reach, self.sole)

    def _check(self, graph_of_level=None) -> None:
        """Invariants: levels are the kept exps; the closure is that of the kept edges (and,
        with `graph_of_level(L)` -> product edges of G_L, of the lowest level's graph)."""
        self._check_vertices()
        assert self.levels == sorted(self.by_exp), (self.levels, sorted(self.by_exp))
        reach, anc = closure(self._all_edges())
        sole = self.sole.succ
        assert reach == self._full_reach(), "closure differs from the kept edges"
        assert self.density() == self.density_of(reach), "density differs from the rows'"
        alias = sum(1 << x for x in sole)
        want = {n: m ^ (m & alias) for n, m in anc.items()}
        assert {n: m for n, m in want.items() if m} == self.anc, "anc is not reach transposed"
        self.sole.check(self.nstates, self.start)
        for x, b in sole.items():
            assert x not in self.reach and x not in anc, ("a source with a row", x)
            e = self.sole.exp[x]
            assert e in self.by_exp and (x, b) in self.by_exp[e], ("its edge is not kept", x)
        if self.vreach is not None:
            assert self.vreach == self._folded(self.reach), "vreach is not the rows' vertices"
        for level in self.levels:
            for a, b in self.by_exp[level]:
                assert self.names[a // self.nstates] is not None
                assert self.names[b // self.nstates] is not None
                assert a not in sole or sole[a] == b, ("a source with two edges out", a)
        if graph_of_level is not None and self.levels:
            want, _ = closure(graph_of_level(self.levels[0]))
            assert want == reach, "closure differs from the window graph"


def _update(sets: dict, changed: dict) -> None:
    """Write the changed sets `{node: bitset}` into `sets`, an empty one as no entry."""
    for n, m in changed.items():
        if m:
            sets[n] = m
        else:
            sets.pop(n, None)
