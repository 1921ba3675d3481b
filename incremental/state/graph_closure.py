"""The transitive closure of a product graph as bitsets: extended by one edge (`extend`, the
step of both closure states, state/level_closure.py and state/window_closure.py), built for a
fixed graph in O(edges) bitset operations (`closure`), or rebuilt for the nodes that may lose
something when edges go (`reclose`, where state/window_closure.py drops an expired level).

`extend` adds `a -> b`: a no-op iff `b` is already in `reach[a]`; else every `x` in
`{a} ∪ anc[a]` gains `{b} ∪ reach[b]` and every `y` there gains `{a} ∪ anc[a]` as ancestors,
O(|anc(a)| + |reach(b)|) bitset operations.

For `closure`, Tarjan's algorithm (iterative)
condenses the strongly connected components; they come out sinks first, so each component's
reach is the union over its outgoing edges of the target component's members and reach (one
`|` per edge, not per node pair), and, read the other way round, sources first, the same for
ancestors. A component reaches its own members iff it has an edge inside (a cycle or a
self-loop): `reach[n]` is "reachable by one edge or more", as the incremental closures keep it.
`reclose` does the same on the nodes reaching a dropped edge (their reach) and those it
reaches (their ancestors), reading every other node's set as it was.
"""

from __future__ import annotations

from collections.abc import Iterable

from ...base.components import strongly_connected
from .product_nodes import bits


def extend(
    reach: dict,
    anc: dict,
    a: int,
    b: int,
    ns: int,
    start: int,
    fmask: int,
    gained: list,
    watch: dict | frozenset = frozenset(),
) -> int:
    """Add the edge `a -> b` to the closure `(reach, anc)`; returns the bitset operations it
    took, `|{a} ∪ anc[a]| + |{b} ∪ reach[b]|` (what operators/path_closure.py weighs against
    S-PATH), 0 when the edge was implied. `gained` gets `(x, before, added)` for each
    start-state node x (`x % ns == start`), or node of `watch`, whose reach grows: its reach
    before and the nodes added (`fmask` tells the final ones). `added` is the very object `{b} ∪ reach[b]` for
    every x that reached none of it, most of them: a caller may work per distinct object."""
    bb = 1 << b
    ra = reach.get(a, 0)
    if ra & bb:
        return 0
    desc = bb | reach.get(b, 0)
    srcs = (1 << a) | anc.get(a, 0)
    ab = anc.get(b, 0)
    # a node that reached b before holds all of desc already, a node a reached before is
    # reached by all of srcs already: both are left out by one mask operation each
    # (`s ^ (s & m)`, never `s & ~m`: CPython's `&` with a negative int is much slower), so
    # every node left gains something (each x lacks b, each y lacks a): nothing is tested
    # before an update, and what x held of desc is read only for the nodes reported.
    # Every x but a reaches a, every y but b is reached from b (anc is reach transposed), so
    # both have an entry: a and b get one first (a is among the xs, b among the ys, since a
    # did not reach b), and the loops subscript, where a `get` call costs twice as much.
    if not ra:
        reach[a] = 0
    if not ab:
        anc[b] = 0
    for x in bits(srcs ^ (srcs & ab)):
        rx = reach[x]
        reach[x] = rx | desc
        if x % ns == start or x in watch:
            common = rx & desc
            gained.append((x, rx, desc ^ common if common else desc))
    for y in bits(desc ^ (desc & ra)):  # (each lacks a as an ancestor: all gain)
        anc[y] |= srcs
    return srcs.bit_count() + desc.bit_count()


def closure(edges: Iterable[tuple[int, int]]) -> tuple[dict, dict]:
    """`(reach, anc)` of the graph of `edges` (pairs of int nodes): node -> bitset of the nodes
    it reaches by one edge or more, and node -> bitset of the nodes reaching it; nodes with an
    empty set are left out.

    >>> reach, anc = closure([(0, 1), (1, 2), (2, 1)])
    >>> {n: bin(m) for n, m in sorted(reach.items())}
    {0: '0b110', 1: '0b110', 2: '0b110'}
    >>> {n: bin(m) for n, m in sorted(anc.items())}
    {1: '0b111', 2: '0b111'}
    """
    succ: dict = {}
    pred: dict = {}
    for a, b in edges:
        s = succ.get(a)
        if s is None:
            succ[a] = s = set()
            pred.setdefault(a, set())
        s.add(b)
        p = pred.get(b)
        if p is None:
            pred[b] = p = set()
            succ.setdefault(b, set())
        p.add(a)
    comps = strongly_connected(succ)
    condensed = _condensation(comps)
    reach = _spread(condensed, succ, range(len(comps)))
    anc = _spread(condensed, pred, range(len(comps) - 1, -1, -1))
    return reach, anc


def reclose(reach: dict, anc: dict, edges: Iterable, dropped: Iterable) -> tuple[dict, dict]:
    """The closure of the graph `edges`, where `(reach, anc)` is the closure of `edges` and
    the edges `dropped` together (the edges of an expired level): `(reach', anc')` of only
    the nodes whose sets may differ, an empty set as 0. Only a node that reaches the source of
    a dropped edge can lose reach, and only one reached from a dropped edge's target can lose
    ancestors; every other node keeps its set, which the affected ones read as it is where an
    edge leaves (or, for ancestors, enters) the affected nodes. So `closure`'s condensation
    and spread run on the affected nodes only, once for each kind. Cost: one pass over
    `edges`, a lookup or two each, and `closure`'s work on the affected nodes and their edges.

    >>> reach, anc = closure([(0, 1), (1, 2), (2, 3)])
    >>> up, down = reclose(reach, anc, [(1, 2), (2, 3)], [(0, 1)])
    >>> sorted((n, bin(m)) for n, m in up.items()), sorted((n, bin(m)) for n, m in down.items())
    ([(0, '0b0')], [(1, '0b0'), (2, '0b10'), (3, '0b110')])
    """
    losing = gaining = 0  # the nodes that may lose reach, and those that may lose ancestors
    for a, b in dropped:
        losing |= (1 << a) | anc.get(a, 0)
        gaining |= (1 << b) | reach.get(b, 0)
    succ: dict = {v: set() for v in bits(losing)}  # the edges among the first
    pred: dict = {v: set() for v in bits(gaining)}  # the edges among the second, reversed
    beyond = dict.fromkeys(succ, 0)  # what a node reaches through edges out of `succ`'s
    before = dict.fromkeys(pred, 0)  # what reaches a node through edges into `pred`'s
    for a, b in edges:
        out = succ.get(a)
        if out is not None:
            if b in succ:
                out.add(b)
            else:
                beyond[a] |= (1 << b) | reach.get(b, 0)
        into = pred.get(b)
        if into is not None:
            if a in pred:
                into.add(a)
            else:
                before[b] |= (1 << a) | anc.get(a, 0)
    return _closure_within(succ, beyond), _closure_within(pred, before)


def _closure_within(adj: dict, outside: dict) -> dict:
    """Per node of `adj` (node -> successors, all of them keys), the union over its edges of
    the target and its set, and `outside[node]` (what it gets through edges to other nodes)."""
    comps = strongly_connected(adj)  # (sinks first)
    got = _spread(_condensation(comps), adj, range(len(comps)), outside)
    return {v: got.get(v, 0) for v in adj}


def _condensation(comps: list[list[int]]) -> tuple[list, dict, list]:
    """`(comps, comp_of, members)`: each node's component, and each component's nodes as a
    bitset."""
    comp_of: dict = {}
    members: list = []
    for i, comp in enumerate(comps):
        m = 0
        for v in comp:
            comp_of[v] = i
            m |= 1 << v
        members.append(m)
    return comps, comp_of, members


def _spread(
    condensed: tuple[list, dict, list],
    adj: dict[int, set[int]],
    order: Iterable[int],
    outside: dict | None = None,
) -> dict[int, int]:
    """Per node, the union over its component's edges in `adj` of the target component's
    members and set (and its nodes' `outside` sets), components taken in `order` (targets
    before the components that read them)."""
    comps, comp_of, members = condensed
    out: dict = {}
    full = [0] * len(comps)  # members | set: what an edge into the component brings
    for i in order:
        comp = comps[i]
        targets = set()
        m = 0
        for v in comp:
            for w in adj[v]:
                targets.add(comp_of[w])
            if outside:
                m |= outside[v]
        for j in targets:
            m |= members[j] if j == i else full[j]
        full[i] = m | members[i]
        if m:
            for v in comp:
                out[v] = m
    return out
