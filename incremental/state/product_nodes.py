"""Nodes of the product of the window graph and a path atom's DFA, as bit positions: what the
closure states of PATH (state/level_closure.py, state/window_closure.py) have in common.

Contract: `intern` gives a vertex an index, product node `(vertex, state)` is bit `index *
nstates + state`, and masks over them are Python ints; `recycle` frees the indexes of expired
vertices. Cost: O(1) per intern, O(mask width / 64) words per mask operation.

A vertex gets a dense index when a tuple first mentions it (`intern`), and product node
`(vertex, state)` is bit `index * nstates + state`, so a set of nodes is one Python int. An
index is recycled once every tuple at the vertex expired (`recycle`), so bitsets stay as wide
as the live vertex set. A vertex first seen as the source of an edge may be interned *cold*
(`intern(..., cold=True)`): an index from `COLD` on, kept aside, so the sole-edge sources of a
closure (state/sole_sources.py: a post on its way to its creator, most vertices of an snb
window) take no bit position between the vertices the bitsets hold, which would make every
bitset as wide as the whole window. A cold
vertex has no node in any bitset: its closure `promote`s it to a dense index first. `plain`
says whether every vertex interned so far is a string CSV writes as it is (no quoting): a
writer given results of such names need not check its text. `vertices_of` folds the final-state
nodes of a bitset into one bit per vertex: a result is a pair of vertices, whichever final
state reaches it.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable
from itertools import compress
from operator import itemgetter

from ..deltas import csv_plain
from ..stateful import restore_into, state_of
from .expiry import ExpiryBuckets

COLD = 1 << 40  # the first cold index: far above any dense one, never a bit position


def bits(m: int) -> list[int]:
    """The positions of the 1 bits of `m >= 0` (in no promised order).

    The top bit first, by `bit_length` (O(1)) and one xor that shortens `m` to its next
    bit: on a wide mask with few bits, a few short operations, where `bit_count`, `m & -m` or
    a shift would each walk the whole width.
    A dense mask goes to `_bits_dense` at once (a narrow one's `bit_count` is a few words),
    the rest of any mask from its 40th bit on.

    >>> sorted(bits(0b101001))
    [0, 3, 5]
    """
    if 64 < m.bit_length() <= _COUNTED and m.bit_count() > _DENSE:
        return _bits_dense(m)
    out = []
    append = out.append
    n = 0
    while m:
        if n == _DENSE:
            out.extend(_bits_dense(m))
            return out
        p = m.bit_length() - 1
        append(p)
        m ^= 1 << p
        n += 1
    return out


_DENSE = 40  # bits from which a mask is read in C rather than bit by bit
_COUNTED = 1024  # widths up to which `bits` counts a mask's bits first
_NARROW = 640  # widths up to which `_bits_dense` reads the binary text, numpy above
_DIGITS = bytes.maketrans(b"01", b"\x00\x01")
_WIDE_BEFORE_NUMPY = 64  # wide dense masks read by their text before numpy is imported
_wide_before_numpy = _WIDE_BEFORE_NUMPY


def _bits_dense(m: int) -> list[int]:
    """`bits` of a mask with many 1 bits, in C, lowest first. Up to `_NARROW` bits wide: the
    binary text reversed, its digits as bytes 0/1, `compress` of the positions by them (one
    O(width) pass, below numpy's fixed cost); wider, numpy: the bytes of m, then the bits of
    the non-zero ones, or of every byte at once where one bit in 32 or more is set. numpy is
    imported here, after the first `_WIDE_BEFORE_NUMPY` wide dense masks (read by the text):
    a run that has none or a few does not pay its import."""
    global _wide_before_numpy
    width = m.bit_length()
    if width <= _NARROW or _wide_before_numpy:
        if width > _NARROW:
            _wide_before_numpy -= 1
        return list(compress(range(width), bin(m)[:1:-1].encode().translate(_DIGITS)))
    import numpy as np

    raw = np.frombuffer(m.to_bytes((width + 7) // 8, "little"), np.uint8)
    if m.bit_count() << 5 >= width:  # one bit in 32 or more: every byte unpacked at once
        return np.unpackbits(raw, bitorder="little").nonzero()[0].tolist()
    nonzero = raw.nonzero()[0]  # (the methods: numpy's functions wrap them in Python calls)
    byte, bit = np.unpackbits(raw[nonzero], bitorder="little").reshape(-1, 8).nonzero()
    return (nonzero[byte] * 8 + bit).tolist()


def _picked(names: list, at: list) -> list:
    """`[names[i] for i in at]`, in C (one `itemgetter`)."""
    if len(at) > 1:
        return list(itemgetter(*at)(names))
    return [names[i] for i in at]


class ProductNodes:
    """Interned vertices of the live window and the masks over their product nodes."""

    __slots__ = (
        "nstates",
        "start",
        "finals",
        "vid",
        "names",
        "free",
        "vexp",
        "vheap",
        "fmask",
        "vfinals",
        "vbase",
        "cap",
        "work",
        "plain",
        "cold",
        "cold_exp",
        "next_cold",
        "named",
        "vertex_lists",
        "several",
    )

    def __init__(self, nstates: int, start: int, finals: Iterable[int]) -> None:
        self.nstates = nstates
        self.start = start
        self.finals = sorted(finals)
        self.several = len(self.finals) > 1  # several final states: masks `fold`ed by vertex
        self.vid: dict = {}  # vertex -> index
        self.names: list = []  # index -> vertex (None when free)
        self.free: list[int] = []  # heap of free indexes
        self.vexp: list[int] = []  # index -> largest exp of a tuple at the vertex
        self.vheap = ExpiryBuckets()  # vexp -> index, possibly stale
        self.fmask = 0  # final-state bits of vertex indexes < cap
        self.vfinals = sum(1 << q for q in self.finals)  # one vertex's final-state bits
        self.vbase = 0  # state-0 bits (one per vertex index < cap)
        self.cap = 0
        self.work = 0  # bitset operations of `extend` since the last `take_work`
        self.plain = True  # every vertex interned so far is `csv_plain`
        self.cold: dict[int, object] = {}  # cold index -> vertex
        self.cold_exp: dict[int, int] = {}  # cold index -> largest exp of a tuple at it
        self.next_cold = COLD
        self.named: dict[int, list] = {}  # mask -> `final_names`, until an index is freed
        self.vertex_lists: dict[int, list] = {}  # vertex mask -> `sorted_vertex_names`, as `named`

    STATE_VERSION = 1

    def state(self) -> dict:
        """The checkpoint contract (incremental/stateful.py): the interned vertices; a
        subclass adds its closure (`closure_state`)."""
        return {
            "vertices": self.names,
            "free": self.free,
            "vertex_exp": self.vexp,
            "vertex_expiry": state_of(self.vheap),
            "capacity": self.cap,
            "cold_vertices": [[i, v, self.cold_exp[i]] for i, v in self.cold.items()],
            "next_cold": self.next_cold,
            **self.closure_state(),
        }

    def restore(self, state: dict) -> None:
        self.named = {}
        self.vertex_lists = {}
        self.names = list(state["vertices"])
        self.vid = {v: i for i, v in enumerate(self.names) if v is not None}
        cold = state["cold_vertices"]
        self.cold = {int(i): v for i, v, _exp in cold}
        self.cold_exp = {int(i): int(exp) for i, _v, exp in cold}
        self.next_cold = int(state["next_cold"])
        self.vid.update({v: i for i, v in self.cold.items()})
        self.plain = all(csv_plain(v) for v in self.vid)
        self.free = list(state["free"])
        self.vexp = list(state["vertex_exp"])
        restore_into(self.vheap, state["vertex_expiry"])
        self.cap = self.fmask = self.vbase = 0
        if state["capacity"]:
            self._grow(state["capacity"])
        self.restore_closure(state)

    def closure_state(self) -> dict:  # pragma: no cover - interface
        raise NotImplementedError

    def restore_closure(self, state: dict) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    def take_work(self) -> float:
        """The 64-bit words of bitset work the inserts did since the last call (`extend`'s
        operations times the words a row spans), and start counting again. A measure, not
        state: operators/path_closure.py keeps what it sums."""
        work, self.work = self.work, 0
        return work * self.cap * self.nstates / 64

    def intern(self, v: str, exp: int, cold: bool = False) -> int:
        """The index of vertex `v`, kept until `exp` at least; a new one `cold` if asked."""
        i = self.vid.get(v)
        if i is None:
            if cold:
                i = self.next_cold
                self.next_cold += 1
                self.cold[i] = v
                self.cold_exp[i] = exp
            elif self.free:
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
            if self.plain and not csv_plain(v):
                self.plain = False
        elif i >= COLD:
            if exp > self.cold_exp[i]:
                self.cold_exp[i] = exp
                self.vheap.add(exp, i)
        elif exp > self.vexp[i]:
            self.vexp[i] = exp
            self.vheap.add(exp, i)
        return i

    def graph_of(self, inputs: list, moves: list):
        """`graph(level)`: the product edges of the input indexes' tuples with exp `>= level`
        (a closure's `_check`)."""
        vid, ns = self.vid, self.nstates

        def graph(level):
            for port, index in enumerate(inputs):
                for s, t, entry in index.entries():
                    if entry.exp >= level:
                        a, b = vid[s] * ns, vid[t] * ns
                        for p, q in moves[port]:
                            yield a + p, b + q

        return graph

    def name_of(self, i: int):
        """The vertex of index i, dense or cold."""
        return self.names[i] if i < COLD else self.cold[i]

    def promote(self, i: int) -> int:
        """The cold vertex of index i gets a dense one (its nodes are about to be bits)."""
        v = self.cold.pop(i)
        exp = self.cold_exp.pop(i)
        del self.vid[v]
        return self.intern(v, exp)

    def _grow(self, need: int) -> None:
        cap = max(64, self.cap)
        while cap < need:
            cap *= 2
        ns = self.nstates
        m = 0
        for q in self.finals:
            m |= 1 << q
        k = 1
        while k < cap:  # repeat the per-vertex pattern by doubling
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

    def recycle(self, now: int) -> None:
        """Free the indexes of the vertices whose tuples all expired by `now` (no live level
        mentions them any more)."""
        vexp, names, vid = self.vexp, self.names, self.vid
        freed = False
        for i in self.vheap.expired(now):
            if i >= COLD:
                v = self.cold.get(i)
                if v is not None and self.cold_exp[i] <= now:
                    del vid[v], self.cold[i], self.cold_exp[i]
                continue
            v = names[i]
            if v is None or vexp[i] > now:
                continue
            del vid[v]
            names[i] = None
            heapq.heappush(self.free, i)
            freed = True
        if not vid and names:  # everything expired: start afresh
            freed = True
            names.clear()
            vexp.clear()
            self.free.clear()
        if freed:  # (an index may now name another vertex: the kept names go)
            self.named.clear()
            self.vertex_lists.clear()

    def fold(self, m: int) -> int:
        """The vertices with a final-state node in `m`, each as its first final state's node
        (`v * nstates + finals[0]`): one bit per vertex however many of its final nodes m
        holds, so masks of several final states compare by vertex (a key is its vertices).
        With one final state, the final nodes of m themselves.

        >>> c = ProductNodes(3, 0, {1, 2}); c._grow(4)
        >>> bin(c.fold(0b100_000_100_010))   # (0, 1), (1, 2) and (3, 2)
        '0b10000010010'
        """
        if not self.several:
            return m & self.fmask
        q = self.finals[0]
        v = self.vertices_of(m)
        return v << q if q else v

    def spread(self, folded: int) -> int:
        """Every final-state node of the vertices of a `fold`ed mask."""
        finals = self.finals
        first = finals[0]
        at = folded >> first if first else folded
        out = 0
        for q in finals:
            out |= at << q if q else at
        return out

    #: the masks `kept_names` and `sorted_vertex_names` each keep named at most (then they
    #: start afresh)
    NAMED_KEPT = 4096

    def kept_names(self, m: int) -> list:
        """`final_names` of m, kept by m's value until an index is freed (only then may a
        bit name another vertex): a held node's ends by level are read again for every
        follower it gets (snb `[hasCreator*/knows*]`: a person's for each new post), most
        often from masks that did not change. The lists are shared: read, never changed."""
        got = self.named.get(m)
        return got if got is not None else self._keep(self.named, m, self.final_names(m))

    def sorted_vertex_names(self, v: int) -> list:
        """The names of the vertices of a vertex mask `v` (`vertices_of`'s: bit `i * nstates`
        for vertex index i), sorted, kept by v's value until an index is freed or
        `NAMED_KEPT` masks are kept (then it starts afresh). A closure reports the same
        vertex sets again and again (what a start node gains is what its successor gained;
        what a level takes away, it takes from many start nodes): each is named and sorted
        once while it is kept. The lists are shared: read, never changed. Cost: a hash of v
        when kept; else `_names_at`, and a sort."""
        got = self.vertex_lists.get(v)
        if got is not None:
            return got
        return self._keep(self.vertex_lists, v, sorted(self._names_at(v, self.nstates)))

    def _keep(self, kept: dict, m: int, names: list) -> list:
        """Keep `names` for mask m in `kept` (`named`, `vertex_lists`), which starts afresh
        once it holds `NAMED_KEPT` masks; returns `names`."""
        if len(kept) >= self.NAMED_KEPT:
            kept.clear()
        kept[m] = names
        return names

    def _names_at(self, m: int, step: int) -> list:
        """The names of the vertex indexes i whose bit `i * step` is set in `m` (no other bits
        set): a dense enough mask (a bit in 32 of its `step`-th positions or more) by
        `_names_read`, a sparser one bit by bit, a name lookup per bit."""
        if m.bit_count() * step << 5 >= m.bit_length():
            return self._names_read(m, step)
        names = self.names
        return [names[y // step] for y in bits(m)]

    def _names_read(self, m: int, step: int) -> list:
        """`_names_at` in C. Wider than `_NARROW` and with fewer than one of 4 names set, the
        positions of its 1 bits (`_bits_dense`, numpy once a run has enough wide masks) pick
        the names by one `itemgetter`: O(names). Else, O(width): the binary text of m,
        every `step`-th digit, picks them by `compress`, which walks every name of the
        width (cheaper per name, so the denser a mask the better)."""
        width = m.bit_length()
        if width > _NARROW and m.bit_count() * step << 2 < width:
            at = _bits_dense(m)
            if step > 1:
                at = [p // step for p in at]
            return _picked(self.names, at)
        text = bin(m)[:1:-1]
        if step > 1:
            text = text[::step]
        return list(compress(self.names, text.encode().translate(_DIGITS)))

    def final_names(self, m: int) -> list:
        """The names of the vertices with a final-state node in `m` (final-state nodes only),
        in no promised order; a vertex with two final nodes in m may be named twice. A dense
        enough mask (a node in 32 of its width or more: a held node's whole reach,
        `ends_by_level`) is read in C: the binary text of m from the final state's bit (of its
        vertices, `vertices_of`, with several final states), every `nstates`-th digit, picks
        the names by `compress` (O(width)); a sparser one bit by bit, a name lookup per node
        (O(nodes)).

        >>> c = ProductNodes(2, 0, {1}); _ = [c.intern(v, 9) for v in "abcd"]
        >>> sorted(c.final_names(0b1000_0010))   # (a, final) and (d, final)
        ['a', 'd']
        """
        names, ns = self.names, self.nstates
        if m.bit_count() << 5 >= m.bit_length():
            if not self.several:
                q = self.finals[0]
                return self._names_read(m >> q if q else m, ns)
            # (a vertex once, however many of its final nodes m holds)
            return self._names_read(self.vertices_of(m), ns)
        return [names[y // ns] for y in bits(m)]

    def vertices_of(self, m: int) -> int:
        """The vertices whose final-state nodes are in bitset `m`, as a bitset with bit
        `v * nstates` for vertex index v (a pair's key is its vertices: two final states of one
        vertex are one result).

        >>> c = ProductNodes(2, 0, {1}); c._grow(4)
        >>> bin(c.vertices_of(0b1000_0010))   # (0, final) and (3, final)
        '0b1000001'
        """
        if self.nstates == 1 and self.finals:
            return m  # one state, final: the nodes are the vertices
        base = self.vbase
        out = 0
        for f in self.finals:
            part = (m >> f if f else m) & base  # a shift walks the whole width: none for 0
            out = out | part if out else part
        return out

    def final_vertices(self, m: int) -> list[tuple[int, int]]:
        """`(v, mask)` per vertex with a final-state node in `m`: its bit `v * nstates` and
        the mask of its final-state nodes (what `fresh_among` tests a reach against)."""
        ns = self.nstates
        if ns == 1:
            return [(p, 1 << p) for p in bits(m)] if self.finals else []
        fm = m & self.fmask
        if not fm:
            return []
        finals = self.vfinals
        out: list = []
        seen: set = set()
        for p in bits(fm):
            v = p - p % ns
            if v not in seen:
                seen.add(v)
                out.append((v, finals << v))
        return out

    def fresh_vertices(self, held: int, gained: int) -> list[int]:
        """The vertices (bit `v * nstates` of vertex index v) with a final-state node in
        `gained` and none in `held` (disjoint bitsets of one start node's reach: what it
        reaches now against what it reached before, or what it lost against what it keeps).
        Per final node of `gained`, one test against `held`; no fold of the wide `held`.

        >>> c = ProductNodes(2, 0, {0, 1}); c._grow(4)
        >>> sorted(c.fresh_vertices(0b0000_0001, 0b1000_0110))  # vertex 0 held; 1, 3 fresh
        [2, 6]
        """
        return [v for v, mask in self.final_vertices(gained) if not held & mask]

    def pairs_by_level(self, top_down: Iterable[tuple[int, dict]], own_vertex: bool) -> dict:
        """`{(x, vertex bit): bottleneck}` from `top_down`, `(level, reach rows)` from the
        highest level down: each start node's vertices at the highest level that reaches them.
        `own_vertex`: x's own vertex is left out (an ε-pair's)."""
        out: dict = {}
        ns, start = self.nstates, self.start
        seen: dict = {}
        for level, rows in top_down:
            for x, m in rows.items():
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

    def density_of(self, rows: dict) -> tuple[int, int, int, float]:
        """`(rows, pairs, start pairs, words per bitset)` of a closure's reach `rows`: the
        rows kept, the pairs they hold, the pairs of start-state rows (what S-PATH keeps as
        tree nodes: one per root and node reached) and the 64-bit words each row's bitset
        spans. operators/path_closure.py weighs the two PATH operators' work with them."""
        ns, start = self.nstates, self.start
        pairs = starts = 0
        for x, m in rows.items():
            n = m.bit_count()
            pairs += n
            if x % ns == start:
                starts += n
        return len(rows), pairs, starts, self.cap * ns / 64

    def density_with_sources(self, reach: dict, sole, level: int | None = None) -> tuple:
        """`density_of` of `reach` with the rows of the sole-edge sources `sole`
        (state/sole_sources.py) added, those whose edge is in G_`level` (every one when None),
        without building them: a source is a start node whose row is its successor's plus the
        successor, so one bit count per successor serves all its followers."""
        rows, pairs, starts, words = self.density_of(reach)
        exp = sole.exp
        for b, xs in sole.followers.items():
            n = len(xs) if level is None else sum(1 for x in xs if exp[x] >= level)
            if n:
                k = n * ((1 << b) | reach.get(b, 0)).bit_count()
                rows += n
                pairs += k
                starts += k
        return rows, pairs, starts, words

    def _check_vertices(self) -> None:
        for i, v in enumerate(self.names):
            if v is not None:
                assert self.vid[v] == i
        for i, v in self.cold.items():
            assert self.vid[v] == i >= COLD and i in self.cold_exp
        assert len(self.cold_exp) == len(self.cold)
        assert len(self.vid) == sum(v is not None for v in self.names) + len(self.cold)
        assert sorted(self.free) == [i for i, v in enumerate(self.names) if v is None]
