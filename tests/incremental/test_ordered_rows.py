"""Rows in exp order (state/edge_index.py `order_by_exp`) and S-PATH's Propagate that reads
only the edges outliving a node's old exp (state/delta_path.py `_relax`): the index keeps
its rows ordered while the input allows it and says when it no longer can, and the trees
reach the same exp for every node as with a full read of every row."""

from __future__ import annotations

import heapq

from hypothesis import given, settings
from hypothesis import strategies as st
from incremental_support import OperatorContext
from sgq.incremental.operators.path import PathOp
from sgq.incremental.sgt import FOREVER
from sgq.incremental.state.edge_index import EdgeIndex
from sgq.sga.algebra import Path, WScan


def _exps(row: dict) -> list[int]:
    return [e.exp for e in row.values()]


def test_rows_stay_in_exp_order_and_a_widened_entry_moves_to_its_rows_end():
    index = EdgeIndex()
    index.order_by_exp()
    index.insert("a", "b", 0, 10, None, 0)
    index.insert("a", "c", 1, 11, None, 1)
    index.insert("a", "d", 2, 12, None, 2)
    index.insert("a", "b", 3, 13, None, 3)  # renewed: behind the others
    assert list(index.by_src["a"]) == ["c", "d", "b"]
    index.insert("a", "c", 3, 9, None, 3)  # outlived by what is stored: no change
    assert list(index.by_src["a"]) == ["c", "d", "b"] and index.ordered
    index._check()


def test_without_a_reader_asking_rows_keep_their_first_order():
    index = EdgeIndex()
    index.insert("a", "b", 0, 10, None, 0)
    index.insert("a", "c", 1, 11, None, 1)
    index.insert("a", "b", 3, 13, None, 3)
    assert list(index.by_src["a"]) == ["b", "c"] and not index.ordered


def test_rows_filled_before_the_request_are_sorted_in_place():
    index = EdgeIndex()
    index.insert("a", "b", 0, 10, None, 0)
    index.insert("a", "c", 1, 11, None, 1)
    index.insert("a", "b", 3, 13, None, 3)
    row = index.by_src["a"]
    index.order_by_exp()
    assert index.by_src["a"] is row and list(row) == ["c", "b"] and index.ordered


def test_a_late_entry_or_a_cut_ends_the_order_for_good():
    late = EdgeIndex()
    late.order_by_exp()
    late.insert("a", "b", 5, 15, None, 5)
    late.insert("a", "c", 3, 13, None, 5)  # an edge that came late: before b in exp
    assert not late.ordered
    late.insert("x", "y", 6, 16, None, 6)
    assert not late.ordered
    late._check()
    cut = EdgeIndex()
    cut.order_by_exp()
    cut.insert("a", "b", 0, 10, None, 0)
    cut.insert("a", "c", 1, 11, None, 1)
    cut.cut("a", "b", 4, None, 4)  # deleted at 4
    assert not cut.ordered


def test_a_restored_index_reads_its_rows_as_the_saved_run_did():
    """A resumed run must read rows as the run it resumes would have: the flags are saved,
    and a reader asking again after the restore changes nothing."""
    index = EdgeIndex()
    index.order_by_exp()
    index.insert("a", "b", 0, 10, None, 0)
    index.insert("a", "c", 1, 11, None, 1)
    copy = EdgeIndex()
    copy.restore(index.state())
    assert copy.ordering and copy.ordered and list(copy.by_src["a"]) == ["b", "c"]
    index.insert("a", "d", 0, 5, None, 1)  # late: the order ends
    copy = EdgeIndex()
    copy.restore(index.state())
    copy.order_by_exp()
    assert not copy.ordered and list(copy.by_src["a"]) == ["b", "c", "d"]
    older = index.state()
    del older["ordering"], older["ordered"]  # a checkpoint from before the flags
    copy = EdgeIndex()
    copy.order_by_exp()
    copy.restore(older)
    assert copy.ordering and not copy.ordered


def _path_op(regex, letters):
    scans = tuple(WScan(letter, 100, 1) for letter in letters)
    ctx = OperatorContext()
    op = PathOp(Path(scans, regex, "P"), ctx)
    return op, [ctx.index_of(s) for s in scans]


def _run(op, indexes, instants) -> list[dict]:
    """Feed `instants` `(port, s, t, ts, exp, now)` one at a time (`now` past `ts` for an
    edge that came late); return the exp of every valid tree node after each."""
    seen = []
    for port, s, t, ts, exp, now in instants:
        indexes[port].insert(s, t, ts, exp, None, now)
        batches = [[] for _ in indexes]
        batches[port].append((s, t, ts, exp, None))
        op.process(batches, now)
        op.purge(now)
        op._check()
        for index in indexes:
            index._check()
        seen.append(
            {
                (x, key): node[1]
                for x, tree in op.delta_path.trees.items()
                for key, node in tree.items()
                if node[1] > now and node[2] is not None  # (not the root)
            }
        )
    return seen


def test_a_propagate_reaches_the_edges_that_outlive_the_old_exp_and_no_others():
    op, indexes = _path_op(("plus", ("label", "b")), "b")
    instants = [
        (0, "a", "m", 0, 10, 0),
        (0, "m", "c", 0, 8, 0),  # expires before m's old exp (10): nothing to gain
        (0, "m", "e", 1, 11, 1),  # after m's old exp, before its new one
        (0, "m", "d", 5, 30, 5),
        (0, "a", "m", 6, 20, 6),  # renewed: m in T_a now until 20
    ]
    assert indexes[0].ordered
    last = _run(op, indexes, instants)[-1]
    assert last[("a", ("m", 1))] == 20
    assert last[("a", ("d", 1))] == 20
    assert last[("a", ("e", 1))] == 11  # 10 before: the stop is past it
    assert last[("a", ("c", 1))] == 8


_VERTICES = st.sampled_from("abcdef")
_EDGE = st.tuples(st.integers(0, 1), _VERTICES, _VERTICES, st.integers(0, 3), st.integers(1, 12))


def test_after_a_late_edge_a_propagate_reads_the_whole_row():
    op, indexes = _path_op(("plus", ("label", "b")), "b")
    instants = [
        (0, "a", "m", 0, 10, 0),
        (0, "m", "d", 5, 30, 5),
        (0, "m", "c", 2, 9, 6),  # came late: at the row's end, expiring first
        (0, "a", "m", 7, 20, 7),
    ]
    last = _run(op, indexes, instants)[-1]
    assert not indexes[0].ordered
    assert last[("a", ("d", 1))] == 20  # behind c from the row's end


def _widest_paths(op, edges: dict, now: int) -> list[dict]:
    """The reference: per root, the max over paths of the min exp of their edges, for every
    product node a valid edge reaches (Dijkstra on the bottleneck, from scratch)."""
    dfa, letters = op.dfa, op.letters
    out = {}
    roots = {s for (port, s, _t), exp in edges.items() if exp > now}
    for x in roots:
        best = {(x, dfa.start): FOREVER}
        heap = [(-FOREVER, x, dfa.start)]
        while heap:
            c, v, q = heapq.heappop(heap)
            if -c < best[(v, q)]:
                continue
            for (port, s, t), exp in edges.items():
                q2 = dfa.delta[q].get(letters[port])
                if s != v or q2 is None or exp <= now:
                    continue
                c2 = min(-c, exp)
                if c2 > best.get((t, q2), now):
                    best[(t, q2)] = c2
                    heapq.heappush(heap, (-c2, t, q2))
        for key, exp in best.items():
            if key != (x, dfa.start):
                out[(x, key)] = exp
    return out


@settings(max_examples=150, deadline=None)
@given(st.lists(_EDGE, min_size=1, max_size=40), st.booleans())
def test_the_trees_hold_every_nodes_widest_path(raw, same_window):
    """Insert-only streams with renewals, windows of one length or of many, and edges that
    come late (ts before the last one): after every instant each node's exp is the widest
    path's (max over paths of the min exp of their edges), as from scratch."""
    instants, now = [], 0
    for port, s, t, step, length in raw:
        now += step
        ts = max(0, now - 2) if step == 3 else now  # (a step of 3: an edge 2 instants late)
        instants.append((port, s, t, ts, ts + (10 if same_window else length), now))
    op, indexes = _path_op(("concat", ("label", "a"), ("star", ("label", "b"))), "ab")
    seen = _run(op, indexes, instants)
    edges: dict = {}
    for (port, s, t, _ts, exp, now), got in zip(instants, seen, strict=True):
        edges[(port, s, t)] = max(exp, edges.get((port, s, t), exp))
        assert got == _widest_paths(op, edges, now)
