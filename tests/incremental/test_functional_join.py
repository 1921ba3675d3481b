"""A two-input PATTERN whose keys have one derivation each (operators/functional_join.py)
reads their coverage off its inputs' entries. Its output must be the keyed join's, row for
row per instant and key, for any stream: with one side functional (each b one y, as a message
has one creator), with the functionality broken part-way (the keyed join takes over from the
coverage emitted before that round), with deletions (it takes over before the first), across a
checkpoint, and as the input of another operator."""

from __future__ import annotations

import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from incremental_support import assert_matches_reference, compile_text, norm
from sgq.incremental.deltas import delta_rows
from sgq.incremental.fan_rows import FanRows, Sources
from sgq.incremental.operators.pattern import PatternOp

from sgq import PlanOptions, Tuning

PROGRAMS = [
    "Answer(x, m) :- a(x, y), b(m, y).",
    "Answer(m, x) :- a(x, y), b(m, y).",  # head reversed
    "Answer(x, m) :- a(y, x), b(y, m).",  # y the source of both
    "Answer(x, m) :- a+(x, y), b(m, y).",  # a closure PATH on one side (thesis SGA Q7)
    "Answer(m, x) :- b(m, y), a+(x, y).",  # ... on the other
    # read by another operator: its rows go into an index
    "F(x, m) :- a(x, y), b(m, y).\nAnswer(x, z) :- F(x, m), c(m, z).",
]


@st.composite
def streams(draw, functional_b: bool, deletions: bool):
    """Edges `(src, trg, label, t, op)` in time order; with `functional_b`, every `b(m, y)`
    has the y of its m (m mod 2) until, perhaps, one edge that breaks it."""
    n = draw(st.integers(1, 40))
    t = draw(st.integers(0, 3))
    breaks = draw(st.integers(0, 2 * n)) if functional_b else -1
    out = []
    for i in range(n):
        t += draw(st.sampled_from((0, 0, 1, 1, 2, 5)))
        label = draw(st.sampled_from("aabbc"))
        s = draw(st.integers(0, 5))
        d = draw(st.integers(0, 3))
        if label == "b" and functional_b and i != breaks:
            d = s % 2
        op = "-" if deletions and draw(st.integers(0, 7)) == 0 else "+"
        out.append((s, d, label, t, op))
    return norm(out)


def _run(text, edges, window, slide, functional: bool, chunks=1, close=True, deferred=False):
    """An engine run; the keyed join widens at once unless `deferred` (the rows compared
    row for row: tests/incremental/test_deferred_widenings.py compares the deferred ones)."""
    options = PlanOptions(tuning=Tuning(functional_joins=functional, deferred_widenings=deferred))
    query = compile_text(".window 1\n" + text, window=window, slide=slide, options=options)
    engine = query.engine()
    size = max(1, len(edges) // chunks)
    for k in range(0, len(edges), size):
        engine.push_batch(edges[k : k + size])
    if close:
        engine.close()
    return query, engine


def _events(text, edges, window, slide, functional: bool, chunks: int) -> list:
    """The delta events of a delta-mode engine (native keys: exact ends from the functional
    join, re-derived ones from the keyed)."""
    options = PlanOptions(tuning=Tuning(functional_joins=functional))
    query = compile_text(".window 1\n" + text, window=window, slide=slide, options=options)
    engine = query.engine(history=False, deltas=True)
    view = engine.delta_view()
    events: list = []
    size = max(1, len(edges) // chunks)
    for k in range(0, len(edges), size):
        engine.push_batch(edges[k : k + size])
        events += view.feed(engine.drain_rows(), engine.time)
    engine.close()
    events += view.feed(engine.drain_rows(), engine.time)
    return events + view.close()


def _functional_ops(engine) -> list:
    return [op for op in engine.dataflow.ops if isinstance(op, PatternOp) and op.functional]


@pytest.mark.parametrize("text", PROGRAMS)
@settings(max_examples=60, deadline=None)
@given(
    data=st.data(),
    functional_b=st.booleans(),
    deletions=st.booleans(),
    window=st.integers(1, 8),
    slide=st.integers(1, 3),
    chunks=st.integers(1, 4),
)
def test_functional_join_gives_the_keyed_joins_rows(
    text, data, functional_b, deletions, window, slide, chunks
):
    edges = data.draw(streams(functional_b, deletions))
    slide = min(slide, window)
    _q, keyed = _run(text, edges, window, slide, False, chunks)
    query, fast = _run(text, edges, window, slide, True, chunks)
    assert fast.history == keyed.history
    rows, keyed_rows = fast.drain(), keyed.drain()
    assert sorted(rows) == sorted(keyed_rows)  # the same rows, none twice
    assert delta_rows(rows) == delta_rows(keyed_rows)
    assert _events(text, edges, window, slide, True, chunks) == _events(
        text, edges, window, slide, False, chunks
    )
    assert_matches_reference(query, edges, check_state=True)


def test_a_functional_side_keeps_no_key_and_breaking_it_hands_the_coverage_over():
    text = "Answer(x, m) :- a(x, y), b(m, y)."
    edges = norm(
        [(1, 0, "a", 1), (1, 1, "a", 1), (2, 0, "a", 1), (7, 0, "b", 2), (8, 0, "b", 2)]
        + [(1, 0, "a", 3)]
    )
    _q, keyed = _run(text, edges, 10, 1, False, close=False)
    _q, fast = _run(text, edges, 10, 1, True, close=False)
    assert fast.history == keyed.history
    (op,) = [op for op in fast.dataflow.ops if isinstance(op, PatternOp)]
    assert op.functional is not None and len(op.out) == 0  # no key of its own
    assert [side.functional for side in op.functional.sides] == [False, True]
    # a second y for m = 7: the keyed join takes over with the coverage emitted so far
    more = norm([(7, 1, "b", 4), (3, 1, "a", 5)])
    for engine in (keyed, fast):
        engine.push_batch(more)
        engine.advance(6)
    assert op.functional is None
    assert dict(op.out.live) == dict(
        next(o for o in keyed.dataflow.ops if isinstance(o, PatternOp)).out.live
    )
    assert fast.history == keyed.history
    for engine in (keyed, fast):
        engine.close()
    assert fast.history == keyed.history


@settings(max_examples=40, deadline=None)
@given(data=st.data(), window=st.integers(2, 8), cut=st.integers(0, 40))
def test_a_checkpoint_of_a_functional_join_restores_the_keyed_joins_state(data, window, cut):
    text = "Answer(x, m) :- a+(x, y), b(m, y)."
    edges = data.draw(streams(True, False))
    cut = min(cut, len(edges))
    options = PlanOptions(tuning=Tuning(functional_joins=True, deferred_widenings=False))
    query = compile_text(".window 1\n" + text, window=window, slide=1, options=options)
    whole = query.engine()
    whole.push_batch(edges)
    whole.close()
    first = query.engine()
    first.push_batch(edges[:cut])
    saved = pickle.loads(pickle.dumps(first.state()))
    second = query.engine()
    second.restore(saved)
    assert not _functional_ops(second)  # restored: keyed from there on
    second.push_batch(edges[cut:])
    second.close()
    assert second.history == whole.history
    # and the first engine goes on as it was
    first.push_batch(edges[cut:])
    first.close()
    assert first.history == whole.history


def test_a_group_handed_out_as_a_fan_is_copied_before_it_changes():
    """`b(7, 0)` and `b(8, 0)` end together (one slide): the fan of `(1, 7)` handed out at 2
    holds the group's list, which `b(8, 0)` at 3 must not grow under it."""
    text = ".window 10\n.slide 5\nAnswer(x, m) :- a(x, y), b(m, y)."
    edges = norm([(7, 0, "b", 1), (1, 0, "a", 2), (8, 0, "b", 3), (2, 0, "a", 4)])
    query = compile_text(text)
    engine = query.engine()
    engine.push_batch(edges)
    engine.close()
    (op,) = [op for op in engine.dataflow.ops if isinstance(op, PatternOp)]
    assert op.functional is not None and op.functional.fans
    rows = sorted((r.src, r.trg, r.ts, r.exp) for r in engine.drain())
    want = [("1", "7", 2, 10), ("1", "8", 3, 10), ("2", "7", 4, 10), ("2", "8", 4, 10)]
    assert rows == want


def test_entries_of_one_y_widened_together_go_out_as_one_cross_fan_with_their_own_starts():
    """`a(1, 0)` (from 0) and `a(2, 0)` (from 4) both widen from 12 to 18 at 7, past the
    group of `b(7, 0)` (from 1) and `b(8, 0)` (from 3), which lasts to 18: the four keys
    widen in one cross-product fan, each row from the later of its two starts (`(1, 7)` from
    1, `(2, 7)` from 4), as the keyed join has them, and the rows count what they are."""
    text = "Answer(x, m) :- a(x, y), b(m, y)."
    edges = norm(
        [(1, 0, "a", 0), (7, 0, "b", 1), (8, 0, "b", 3), (2, 0, "a", 4)]
        + [(7, 0, "b", 6), (8, 0, "b", 6), (1, 0, "a", 7), (2, 0, "a", 7)]
    )
    _q, keyed = _run(text, edges, 12, 6, False, close=False)
    _q, fast = _run(text, edges, 12, 6, True, close=False)
    segments = fast.drain_segments()
    crossed = [
        fan
        for _label, rows in segments
        if type(rows) is FanRows
        for fan in rows.fans
        if type(fan[0]) is Sources
    ]
    # (the others: new entries of b, one fan per group of a's entries of 0 and end)
    assert (["1", "2"], ["7", "8"], 18) in [
        (sorted(src.names), sorted(trgs), exp) for src, trgs, _ts, exp in crossed
    ]
    rows = [row[:4] for _label, part in segments for row in part]
    assert sum(len(part) for _label, part in segments) == len(rows)
    assert sorted(rows) == sorted((r.src, r.trg, r.ts, r.exp) for r in keyed.drain())
    assert ("1", "7", 1, 18) in rows and ("2", "7", 4, 18) in rows


@pytest.mark.parametrize(
    "text", ["Answer(x, m) :- a+(x, y), b(m, y).", "Answer(x, m) :- a(x, y), b(m, y)."]
)
@settings(max_examples=40, deadline=None)
@given(data=st.data(), window=st.integers(2, 8), cut=st.integers(0, 40))
def test_a_checkpoint_of_a_functional_join_with_native_keys_goes_on_from_their_ends(
    text, data, window, cut
):
    edges = data.draw(streams(True, False))
    cut = min(cut, len(edges))
    query = compile_text(".window 1\n" + text, window=window, slide=1)

    def run(engine, part) -> list:
        view = engine.delta_view()
        engine.push_batch(part)
        return view.feed(engine.drain_rows(), engine.time)

    def close(engine) -> list:
        view = engine.delta_view()
        engine.close()
        return view.feed(engine.drain_rows(), engine.time) + view.close()

    whole = query.engine(history=False, deltas=True)
    want = run(whole, edges) + close(whole)
    first = query.engine(history=False, deltas=True)
    got = run(first, edges[:cut])
    second = query.engine(history=False, deltas=True)
    second.restore(pickle.loads(pickle.dumps(first.state())))
    assert not _functional_ops(second)
    assert got + run(second, edges[cut:]) + close(second) == want


def test_once_the_functional_join_ends_the_keyed_join_takes_spans():
    """A chain over two WSCANs whose functional side is broken part-way goes on as if no
    functional join had been tried: its native keys' ends stay exact while it counts the
    renewals it takes (re-derived once they are many: `Tuning.renewed_share`) and the
    dataflow takes spans, where it would otherwise run one round per instant for the rest of
    the stream."""
    text = ".window 10\n.slide 5\nAnswer(x, m) :- a(x, y), b(m, y)."
    query = compile_text(text)
    engine = query.engine(history=False, deltas=True)
    (op,) = [op for op in engine.dataflow.ops if isinstance(op, PatternOp)]
    engine.push_batch(norm([(7, 0, "b", 1), (1, 0, "a", 2)]))
    assert op.functional is not None and op.native.rederive is None
    assert engine.dataflow.spanning and not engine.dataflow.span_ready(3)
    engine.push_batch(norm([(7, 1, "b", 3), (1, 1, "a", 3)]))  # a second y for m and x
    assert op.functional is None and op.native.rederive is None and op.taken is not None
    assert engine.dataflow.span_ready(6)
