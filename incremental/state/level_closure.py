"""Reachability per expiry level: the state of the closure PATH operator
(operators/path_closure.py).

PATH's result for `(x, y)` is valid until the largest *bottleneck* expiry over the paths
x -> y of the product of the window graph and the DFA (the `min` exp of a path's tuples,
maximised over paths; specs/semantics.md §6). That value is always some input tuple's exp, and
with slides those take few distinct values (the slide buckets' expiries; per-label windows add
a few; derived inputs intersect intervals, so their exps stay on the same grid). So, per live
*level* `L` (a distinct exp `> now` of an input tuple), this keeps the transitive closure of

    G_L = the product edges of the input tuples with exp >= L

as Python-int bitsets over interned product nodes (`node = vertex_index * nstates + state`):
`reach[L][n]` (nodes reachable from n by >= 1 edge) and `anc[L][n]` (nodes reaching n). For
`L1 > L2`, `G_L1 ⊆ G_L2`: the closures are nested, and `(x, y)` has bottleneck `max{L : y in
reach[L][x]}`.

Inserting a product edge `a -> b` into level L: a no-op iff `b` is already in `reach[L][a]`
(then it is a no-op at every lower level too: nestedness); else every `x` in `{a} ∪ anc[a]`
gains `{b} ∪ reach[b]`, and every `y` there gains `{a} ∪ anc[a]` as ancestors. A batch goes
top-down over the levels `<= exp` of its edges, dropping an edge at the first level where it
changes nothing. A start-state node whose reach gains final-state nodes at L that the next
higher level does not have found a result with exp L (`insert` reports them).

Levels: a tuple whose exp is not a level creates one: a copy of the next higher level (no
valid tuple has an exp in between), or an empty one on top. `drop(now)` deletes the levels
`<= now` whole. Vertex indexes are recycled once every tuple at the vertex expired (no level
`> now` mentions it then), so bitsets stay as wide as the live vertex set and memory is bounded
by the window. Cost of one edge at one level: O(|anc(a)| + |reach(b)|) bitset operations of
O(live nodes / 64) words each; O(1) when it is implied.
"""

from __future__ import annotations

import heapq
from bisect import bisect_left, bisect_right, insort

import numpy as np

from .expiry import ExpiryBuckets


def bits(m: int) -> list[int]:
    """The positions of the 1 bits of `m >= 0` (in no promised order).

    >>> sorted(bits(0b101001))
    [0, 3, 5]
    """
    n = m.bit_count()
    if n <= 8:
        out = []
        while m:
            low = m & -m
            out.append(low.bit_length() - 1)
            m ^= low
        return out
    if n > 256:
        return _bits_numpy(m)
    s = bin(m)
    top = len(s) - 1
    out = []
    find = s.find
    p = find("1", 2)
    while p != -1:
        out.append(top - p)
        p = find("1", p + 1)
    return out


def _bits_numpy(m: int) -> list[int]:
    """`bits` of a mask with many 1 bits: its bytes unpacked in C (numpy), lowest first
    (above ~256 bits of a 30k-bit mask this beats scanning `bin(m)`: 88 vs 183 us at 1,000)."""
    raw = np.frombuffer(m.to_bytes((m.bit_length() + 7) // 8, "little"), np.uint8)
    return np.flatnonzero(np.unpackbits(raw, bitorder="little")).tolist()


class LevelClosure:
    """Nested per-level closures of the product graph, with interned vertices."""

    __slots__ = ("nstates", "start", "finals", "levels", "reach", "anc", "vid", "names",
                 "free", "vexp", "vheap", "fmask", "vbase", "cap")

    def __init__(self, nstates: int, start: int, finals) -> None:
        self.nstates = nstates
        self.start = start
        self.finals = sorted(finals)
        self.levels: list[int] = []          # ascending live levels
        self.reach: dict[int, dict] = {}     # level -> node -> bitset of reachable nodes
        self.anc: dict[int, dict] = {}       # level -> node -> bitset of ancestors
        self.vid: dict = {}                  # vertex -> index
        self.names: list = []                # index -> vertex (None when free)
        self.free: list[int] = []            # heap of free indexes
        self.vexp: list[int] = []            # index -> largest exp of a tuple at the vertex
        self.vheap = ExpiryBuckets()         # vexp -> index, possibly stale
        self.fmask = 0                       # final-state bits of vertex indexes < cap
        self.vbase = 0                       # state-0 bits (one per vertex index < cap)
        self.cap = 0

    # ---- vertices
    def intern(self, v, exp: int) -> int:
        """The index of vertex `v`, kept until `exp` at least."""
        i = self.vid.get(v)
        if i is None:
            if self.free:
                i = heapq.heappop(self.free)
                self.names[i] = v
                self.vexp[i] = exp
            else:
                i = len(self.names)
                self.names.append(v)
                self.vexp.append(exp)
                if i >= self.cap:
                    self._grow(i + 1)
            self.vid[v] = i
            self.vheap.add(exp, i)
        elif exp > self.vexp[i]:
            self.vexp[i] = exp
            self.vheap.add(exp, i)
        return i

    def _grow(self, need: int) -> None:
        cap = max(64, self.cap)
        while cap < need:
            cap *= 2
        ns = self.nstates
        m = 0
        for q in self.finals:
            m |= 1 << q
        k = 1
        while k < cap:              # repeat the per-vertex pattern by doubling
            m |= m << (k * ns)
            k *= 2
        self.fmask = m & ((1 << (cap * ns)) - 1)
        base = 1
        k = 1
        while k < cap:
            base |= base << (k * ns)
            k *= 2
        self.vbase = base & ((1 << (cap * ns)) - 1)
        self.cap = cap

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

    def purge(self, now: int) -> None:
        """Drop the levels `<= now` and recycle the vertices whose tuples all expired."""
        self.drop(now)
        vexp, names, vid = self.vexp, self.names, self.vid
        for i in self.vheap.expired(now):
            v = names[i]
            if v is None or vexp[i] > now:
                continue
            del vid[v]
            names[i] = None
            heapq.heappush(self.free, i)
        if not vid and names:               # everything expired: start afresh
            names.clear()
            vexp.clear()
            self.free.clear()

    def vertices_of(self, m: int) -> int:
        """The vertices whose final-state nodes are in bitset `m`, as a bitset with bit
        `v * nstates` for vertex index v (a pair's key is its vertices: two final states of one
        vertex are one result).

        >>> c = LevelClosure(2, 0, {1}); c._grow(4)
        >>> bin(c.vertices_of(0b1000_0010))   # (0, final) and (3, final)
        '0b1000001'
        """
        base = self.vbase
        out = 0
        for f in self.finals:
            out |= (m >> f) & base
        return out

    def drop_reporting(self, upto: int, strict: bool, own_vertex: bool) -> list:
        """`drop` the levels `<= upto` (`< upto` when `strict`), first reporting what leaves
        with each: `[(L, [(x, vertices)])]`, per start node x the vertices whose results have
        bottleneck exactly L (in L's closure, not in the next higher level's), so the pairs
        that leave the output at L. `own_vertex`: x's own vertex is never reported (its pair
        comes from the ε-pairs of a nullable regex). O(rows of the dropped levels) bitset
        operations."""
        levels = self.levels
        k = bisect_left(levels, upto) if strict else bisect_right(levels, upto)
        if not k:
            return []
        ns, start, reach = self.nstates, self.start, self.reach
        report = []
        for i in range(k):
            level = levels[i]
            higher = reach[levels[i + 1]] if i + 1 < len(levels) else {}
            rows = []
            for x, m in reach[level].items():
                if x % ns != start:
                    continue
                gone = self.vertices_of(m)
                up = higher.get(x)
                if up is not None:
                    gone &= ~self.vertices_of(up)
                if own_vertex:
                    gone &= ~(1 << (x - start))
                if gone:
                    rows.append((x, gone))
            report.append((level, rows))
        for level in levels[:k]:
            del reach[level]
            del self.anc[level]
        del levels[:k]
        return report

    def live_pairs(self, own_vertex: bool) -> dict:
        """`{(x, vertex bit): bottleneck}` of every result the closure holds: per start node
        its reached vertices, each with the highest level that reaches it."""
        out: dict = {}
        ns, start = self.nstates, self.start
        seen: dict = {}
        for level in reversed(self.levels):
            for x, m in self.reach[level].items():
                if x % ns != start:
                    continue
                got = self.vertices_of(m) & ~seen.get(x, 0)
                if own_vertex:
                    got &= ~(1 << (x - start))
                if got:
                    seen[x] = seen.get(x, 0) | got
                    for y in bits(got):
                        out[(x, y)] = level
        return out

    def new_levels(self, exps) -> int:
        """How many of `exps` are not levels yet."""
        reach = self.reach
        return sum(1 for e in set(exps) if e not in reach)

    def _ensure(self, level: int) -> None:
        if level in self.reach:
            return
        levels = self.levels
        k = bisect_right(levels, level)
        if k < len(levels):                 # G_level == G_next before the new tuples
            up = levels[k]
            self.reach[level] = dict(self.reach[up])
            self.anc[level] = dict(self.anc[up])
        else:                               # a new top: only the new tuples
            self.reach[level] = {}
            self.anc[level] = {}
        insort(levels, level)

    # ---- insertion
    def insert(self, edges: list, entering: list | None = None) -> list:
        """Add product edges `(a, b, exp)` (exp above every dropped level). Returns
        `(x, mask, L)`: start node x newly reaches the final nodes of `mask` with bottleneck
        exactly L (they are not in the next higher level). With `entering` (a list), that is
        skipped and `entering` gets `(x, vertices)` instead: the vertices start node x reaches
        now and did not before at any level (`vertices_of`), i.e. the results that enter."""
        found: list = []
        if not edges:
            return found
        for e in {e[2] for e in edges}:
            self._ensure(e)
        edges.sort(key=lambda e: -e[2])
        levels, reach_of, anc_of = self.levels, self.reach, self.anc
        ns, start, fmask = self.nstates, self.start, self.fmask
        n = len(edges)
        j = 0
        pending: list = []
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
            higher = reach_of[levels[idx + 1]] if idx + 1 < len(levels) else None
            keep = []
            for edge in pending:
                a, b = edge[0], edge[1]
                ra = R.get(a, 0)
                bb = 1 << b
                if ra & bb:
                    continue                 # implied here, so at every lower level
                keep.append(edge)
                desc = bb | R.get(b, 0)
                srcs = (1 << a) | A.get(a, 0)
                for x in bits(srcs):
                    rx = R.get(x, 0)
                    add = desc & ~rx
                    if add:
                        R[x] = rx | add
                        if entering is not None:
                            if idx == 0 and x % ns == start and add & fmask:
                                new = self.vertices_of(rx | add) & ~self.vertices_of(rx)
                                if new:
                                    entering.append((x, new))
                        elif x % ns == start:
                            new = add & fmask
                            if new:
                                if higher is not None:
                                    new &= ~higher.get(x, 0)
                                new &= ~(1 << x)
                                if new:
                                    found.append((x, new, level))
                for y in bits(desc):
                    ay = A.get(y, 0)
                    if srcs & ~ay:
                        A[y] = ay | srcs
            pending = keep
            idx -= 1
        return found

    # ---- reporting
    def __len__(self) -> int:
        """Bitset entries over all levels (nodes with a non-empty reach or ancestor set)."""
        return sum(len(r) for r in self.reach.values()) + sum(len(a) for a in self.anc.values())

    def density(self) -> tuple[int, int, int, float]:
        """`(rows, pairs, start pairs, words per bitset)` of the lowest (largest) level: the
        rows kept, the pairs they hold, the pairs of start-state rows (what S-PATH keeps as
        tree nodes: one per root and node reached) and the 64-bit words each row's bitset
        spans. operators/path_closure.py weighs the two operators' work with them."""
        if not self.levels:
            return 0, 0, 0, 0.0
        rows = self.reach[self.levels[0]]
        ns, start = self.nstates, self.start
        pairs = starts = 0
        for x, m in rows.items():
            n = m.bit_count()
            pairs += n
            if x % ns == start:
                starts += n
        return len(rows), pairs, starts, self.cap * ns / 64

    def _check(self, graph_of_level=None) -> None:
        """Invariants: levels sorted and in sync; anc is reach transposed; closures nested;
        every node is of a live vertex; with `graph_of_level(L)` -> product edges of G_L, each
        level is exactly the transitive closure of G_L."""
        levels = self.levels
        assert levels == sorted(set(levels)), levels
        assert set(levels) == set(self.reach) == set(self.anc)
        ns = self.nstates
        for i, v in enumerate(self.names):
            if v is not None:
                assert self.vid[v] == i
        assert len(self.vid) == sum(v is not None for v in self.names)
        assert sorted(self.free) == [i for i, v in enumerate(self.names) if v is None]
        prev = None
        for level in reversed(levels):
            R, A = self.reach[level], self.anc[level]
            trans: dict = {}
            for x, m in R.items():
                assert m, (level, x)
                assert self.names[x // ns] is not None, (level, x)
                for y in bits(m):
                    trans[y] = trans.get(y, 0) | (1 << x)
            assert trans == A, ("anc is not reach transposed", level)
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
