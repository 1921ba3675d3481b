"""The window closure of delta-mode PATH (state/window_closure.py) and the rebuilt closures it
drops levels with (state/graph_closure.py), against a breadth-first search and against the
per-level closures (state/level_closure.py) they replace for deltas."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from sgq.base.components import strongly_connected as components
from sgq.incremental.state.graph_closure import closure, reclose
from sgq.incremental.state.level_closure import LevelClosure
from sgq.incremental.state.product_nodes import bits
from sgq.incremental.state.window_closure import WindowClosure

_graphs = st.lists(st.tuples(st.integers(0, 9), st.integers(0, 9)), max_size=30)


def _bfs_reach(edges) -> dict:
    succ: dict = {}
    for a, b in edges:
        succ.setdefault(a, set()).add(b)
    out = {}
    for x in succ:
        seen: set = set()
        todo = list(succ[x])
        while todo:
            y = todo.pop()
            if y not in seen:
                seen.add(y)
                todo.extend(succ.get(y, ()))
        out[x] = sum(1 << y for y in seen)
    return out


@given(_graphs)
def test_rebuilt_closure_is_the_reachability_of_the_graph(edges):
    reach, anc = closure(edges)
    assert reach == _bfs_reach(edges)
    assert anc == {
        y: m
        for y, m in (
            (y, sum(1 << x for x, r in reach.items() if r >> y & 1)) for y in {b for _, b in edges}
        )
        if m
    }


@given(_graphs, st.data())
def test_a_closure_rebuilt_in_part_is_the_closure_without_the_dropped_edges(edges, data):
    """`reclose` after dropping some edges (a copy of a dropped edge may stay): the sets it
    gives, written over the closure before, are the closure of the edges left; a node it
    leaves out kept its sets."""
    dropped = data.draw(st.lists(st.sampled_from(edges), max_size=8)) if edges else []
    left = [e for e in edges if e not in dropped or data.draw(st.booleans())]
    reach, anc = closure(edges)
    new_reach, new_anc = reclose(reach, anc, left, dropped)
    want_reach, want_anc = closure(left)
    for sets, new, want in ((reach, new_reach, want_reach), (anc, new_anc, want_anc)):
        got = {**sets, **new}
        assert {n: m for n, m in got.items() if m} == want


@given(_graphs)
def test_components_come_sinks_first(edges):
    succ: dict = {}
    for a, b in edges:
        succ.setdefault(a, []).append(b)
        succ.setdefault(b, [])
    comps = components(succ)
    assert sorted(v for c in comps for v in c) == sorted(succ)
    reach = _bfs_reach(edges)
    where = {v: i for i, c in enumerate(comps) for v in c}
    for a, b in edges:
        assert where[b] <= where[a]  # a component after all it reaches
        same = reach.get(a, 0) >> b & 1 and reach.get(b, 0) >> a & 1
        assert (where[a] == where[b]) == bool(same or a == b)


def _sorted(report):
    """A report's rows sorted, their vertices as sorted bit positions (the window closure
    gives a vertex mask, the level closures a list)."""
    return [(level, sorted((x, _positions(vs)) for x, vs in rows)) for level, rows in report]


def _without_own(report, ns: int) -> list:
    """A window closure's report without each start node's own vertex (start state 0), as
    the level closures leave it out with `own_vertex`."""
    out = []
    for level, rows in report:
        kept = [(x, m & ~(1 << (x - x % ns))) for x, m in rows]
        out.append((level, [(x, m) for x, m in kept if m]))
    return out


def _positions(vertices) -> list:
    return sorted(bits(vertices) if isinstance(vertices, int) else vertices)


# a batch: (now, [(a, b, exp)]) with exp > now; vertices 0..5, two DFA states
_batches = st.lists(
    st.tuples(
        st.integers(0, 3),
        st.lists(
            st.tuples(
                st.integers(0, 5),
                st.integers(0, 5),
                st.integers(1, 4),
                st.integers(0, 1),
                st.integers(0, 1),
            ),
            max_size=6,
        ),
    ),
    max_size=8,
)


@settings(max_examples=200)
@given(_batches)
def test_window_closure_enters_and_leaves_as_the_level_closures_say(batches):
    """The same product edges into both: every batch's entering pairs are the lowest level's
    new pairs, and every dropped level reports the same leaving pairs."""
    ns, finals = 2, {1}
    window, levels = WindowClosure(ns, 0, finals), LevelClosure(ns, 0, finals)
    now = 0
    for step, (dt, raw) in enumerate(batches):
        now += dt
        got = _sorted(window.drop_reporting(now, False))
        want = _sorted(levels.drop_reporting(now, False, False))
        assert got == want, (step, got, want)
        window.purge(now)
        levels.purge(now)
        edges = []
        for u, v, life, p, q in raw:
            exp = now + life
            a = window.intern(u, exp) * ns
            b = window.intern(v, exp) * ns
            assert (a, b) == (levels.intern(u, exp) * ns, levels.intern(v, exp) * ns)
            edges.append((a + p, b + q, exp))
        entering: list = []
        before = levels.live_pairs(False)
        window.insert(list(edges), entering)
        levels.insert(list(edges))
        after = levels.live_pairs(False)
        got = {(x, y) for x, vertices in entering for y in bits(vertices)}
        assert got == set(after) - set(before), step  # the pairs that enter
        window._check()
        levels._check()
        assert window.live_pairs(False) == after
    got = _sorted(_without_own(window.drop_reporting(now + 10, False), ns))
    want = _sorted(levels.drop_reporting(now + 10, False, True))
    assert got == want
