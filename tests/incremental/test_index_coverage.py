"""A WSCAN read by PATHs only reads its emitted coverage off its node's shared index
(incremental/state/index_coverage.py) instead of keeping a Coalescer beside it: the same rows,
end records, deltas and checkpoints, `-` edges and edges given twice at one instant included."""

from __future__ import annotations

import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from incremental_support import assert_checkpoint_round_trip, compile_text, timed
from sgq.incremental.operators.wscan import WScanOp
from sgq.incremental.state.coalescer import Coalescer
from sgq.incremental.state.index_coverage import IndexCoverage

PATHS = ".window 10\n.slide 5\nAnswer(x, y) :- [a/b*](x, y)."
PATH_OPERATORS = ("spath", "closure")


def _query(text=PATHS, path_operator="spath"):
    from sgq.base.options import PlanOptions

    return compile_text(text, options=PlanOptions(path_operator=path_operator))


def _wscans(eng) -> list:
    return [op for op in eng.dataflow.ops if type(op) is WScanOp]


def _own_coverage(eng) -> None:
    """Make every WSCAN of `eng` keep a Coalescer, as before index coverage."""
    for op in _wscans(eng):
        op.out = Coalescer()


def _run(query, edges, emit: str, own: bool) -> list:
    """Interval rows with end records (`rows`) or delta events (`deltas`) of `edges`."""
    eng = query.engine(history=emit == "rows", deltas=emit == "deltas")
    if own:
        _own_coverage(eng)
    view = eng.delta_view()
    events: list = []
    for e in edges:
        eng.push(*e)
        eng.flush()
        eng.dataflow._check()
        if emit == "deltas":
            events += view.feed(eng.drain(), eng.time)
    eng.close()
    if emit == "deltas":
        return events + view.feed(eng.drain(), eng.time) + view.close()
    return [(r.src, r.trg, r.label, r.ts, r.exp) for r in eng.drain()]


def test_only_a_wscan_read_by_paths_alone_reads_its_coverage_off_the_index():
    (a, b) = _wscans(_query().engine())
    assert type(a.out) is IndexCoverage and type(b.out) is IndexCoverage
    # `a` is also read by a PATTERN, and is an output through a RENAME: its own Coalescer
    text = PATHS + "\n.output Answer, B, C\nB(x, z) :- a(x, y), c(y, z).\nC(x, y) :- b(x, y)."
    kinds = {op.label: type(op.out) for op in _wscans(_query(text).engine())}
    assert kinds == {"a": Coalescer, "b": Coalescer, "c": Coalescer}, kinds


def test_the_state_of_an_index_read_wscan_is_its_index():
    eng = _query().engine()
    eng.push_batch([("1", "2", "a", 0), ("2", "3", "b", 1), ("2", "3", "b", 6)])
    assert all(len(op.out) == 0 for op in _wscans(eng))
    sizes = eng.dataflow.state_sizes()
    assert sizes["#0 WSCAN[a]"] == 1 and sizes["#1 WSCAN[b]"] == 1  # (one index entry each)


EDGES = st.lists(
    st.tuples(
        st.sampled_from("123"),
        st.sampled_from("123"),
        st.sampled_from("ab"),
        st.sampled_from((0, 0, 1, 2, 5)),  # (0: the same instant, an edge given twice too)
        st.sampled_from("+++-"),
    ),
    max_size=20,
)


@settings(max_examples=80, deadline=None)
@given(EDGES, st.sampled_from(PATH_OPERATORS))
def test_rows_and_deltas_are_those_of_a_wscan_with_its_own_coalescer(edges, path_operator):
    edges = timed(edges)
    query = _query(path_operator=path_operator)
    for emit in ("rows", "deltas"):
        assert _run(query, edges, emit, own=False) == _run(query, edges, emit, own=True)


@pytest.mark.parametrize("path_operator", PATH_OPERATORS)
def test_checkpoints_round_trip(path_operator):
    edges = [
        ("1", "2", "a", 0),
        ("2", "3", "b", 1),
        ("2", "3", "b", 1),
        ("3", "4", "b", 6),
        ("1", "2", "a", 7),
        ("2", "3", "b", 8, "-"),
        ("2", "3", "b", 12),
        ("3", "4", "b", 16),
    ]
    query = _query(path_operator=path_operator)
    for cut in range(len(edges) + 1):
        assert_checkpoint_round_trip(query, edges, cut)


@pytest.mark.parametrize("path_operator", PATH_OPERATORS)
def test_a_checkpoint_of_a_wscan_with_its_own_coalescer_is_read_on_with_it(path_operator):
    """A state saved by a WSCAN keeping its coverage (before index coverage) restores into
    one that reads the index: it keeps the saved Coalescer, and the run goes on alike."""
    edges = [("1", "2", "a", 0), ("2", "3", "b", 1), ("1", "2", "a", 6), ("2", "3", "b", 7, "-")]
    edges += [("2", "3", "b", 8), ("3", "1", "b", 9), ("1", "2", "a", 13)]
    query = _query(path_operator=path_operator)
    whole = query.engine()
    whole.push_batch(edges)
    whole.close()
    first = query.engine()
    _own_coverage(first)
    first.push_batch(edges[:4])
    second = query.engine()
    second.restore(pickle.loads(pickle.dumps(first.state())))
    assert all(type(op.out) is Coalescer for op in _wscans(second))
    second.push_batch(edges[4:])
    second.close()
    assert second.history == whole.history
