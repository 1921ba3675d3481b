"""A keyed PATTERN whose interval rows only the engine's output reads defers its widenings
(operators/pattern.py `defers_rows`): it joins the tuples new at their instant, not the renewed
ones, and widens a key by a row when its emitted end comes up (Coalescer.overdue). The
validity per key must be the eager join's at every instant once time has reached it (advance),
after the close, across deletions and across a checkpoint; only when a widening goes out may
differ, never later than the old end."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from incremental_support import (
    assert_checkpoint_round_trip,
    assert_matches_reference,
    compile_text,
    norm,
)
from sgq.incremental.operators.pattern import PatternOp

from sgq import PlanOptions, Tuning

PROGRAMS = [
    "Answer(x, m) :- a(x, y), b(m, y).",
    "Answer(m1, m2) :- a(x, y), b(m1, x), b(m2, y), c(m2, m1).",  # the shared so Q5's shape
    "Answer(x, z) :- a(x, y), a+(y, z), c(z, x).",  # a PATH read by the PATTERN
    "Answer(x, y) :- a(x, y), b(x, y).\nAnswer(x, y) :- c(x, y), c(y, x).",  # under a UNION
    'Answer(x, x) :- a(x, y), y != "1".',  # one atom: a key per tuple or several
]


def _query(text: str, window: int, slide: int, deferred: bool):
    # keyed joins: a functional one gives exact ends on its own (operators/functional_join.py)
    tuning = Tuning(functional_joins=False, deferred_widenings=deferred)
    return compile_text(
        ".window 1\n" + text, window=window, slide=slide, options=PlanOptions(tuning=tuning)
    )


def _deferring(engine) -> list:
    return [op for op in engine.dataflow.ops if isinstance(op, PatternOp) and op.deferred]


@st.composite
def streams(draw, deletions: bool):
    """Edges `(src, trg, label, t, op)` in time order, over few vertices (renewals often)."""
    n = draw(st.integers(1, 40))
    t = draw(st.integers(0, 3))
    out = []
    for _ in range(n):
        t += draw(st.sampled_from((0, 0, 1, 1, 2, 5)))
        label = draw(st.sampled_from("abc"))
        op = "-" if deletions and draw(st.integers(0, 7)) == 0 else "+"
        out.append((draw(st.integers(0, 3)), draw(st.integers(0, 3)), label, t, op))
    return norm(out)


def test_only_a_pattern_read_by_the_output_alone_defers():
    deferring = [bool(_deferring(_query(p, 4, 1, True).engine())) for p in PROGRAMS]
    assert deferring == [True, True, True, False, True]  # under a UNION: the UNION's rows
    query = _query(PROGRAMS[0], 4, 1, True)
    assert not _deferring(query.engine(history=False, deltas=True))  # native keys instead
    assert not _deferring(query.engine(paths=True))  # a witness per row: joined tuple by tuple
    assert not _deferring(_query(PROGRAMS[0], 4, 1, False).engine())  # turned off


def test_a_renewed_tuple_widens_its_key_when_the_old_end_comes_up():
    text = "Answer(x, m) :- a(x, y), b(m, y)."
    edges = norm([(1, 0, "a", 1), (7, 0, "b", 2), (1, 0, "a", 3)])
    rows = {}
    for deferred in (False, True):
        engine = _query(text, 10, 1, deferred).engine()
        assert bool(_deferring(engine)) == deferred
        engine.push_batch(edges)
        engine.flush()
        got = [(r.src, r.trg, r.ts, r.exp) for r in engine.drain()]
        engine.advance(10)
        before = [(r.src, r.trg, r.ts, r.exp) for r in engine.drain()]
        engine.advance(11)
        at_end = [(r.src, r.trg, r.ts, r.exp) for r in engine.drain()]
        rows[deferred] = (got, before, at_end)
    # eager: the renewal at 3 widens (1, 7) to b's end at once
    assert rows[False] == ([("1", "7", 2, 11), ("1", "7", 2, 12)], [], [])
    # deferred: the same widening, once time reaches the end first emitted
    assert rows[True] == ([("1", "7", 2, 11)], [], [("1", "7", 2, 12)])


def test_a_key_ending_at_a_round_goes_on_in_that_round():
    """`(1, 7)` ends at 2 where its tuples come again: the round at 2 must show it (the
    snapshot at 2 is read before time passes 2), as one validity `[0, 4)`."""
    text = "Answer(x, m) :- a(x, y), b(m, y)."
    engine = _query(text, 2, 1, True).engine()
    engine.push_batch(norm([(1, 0, "a", 0), (7, 0, "b", 0), (1, 0, "a", 1)]))
    engine.push_batch(norm([(1, 0, "a", 2), (7, 0, "b", 2)]))
    engine.flush()
    assert ("1", "7", "Answer") in engine.snapshot(2)
    engine.close()
    assert engine.history == {("1", "7", "Answer"): [(0, 4)]}


@settings(max_examples=60, deadline=None)
@given(
    data=st.data(),
    program=st.sampled_from(PROGRAMS),
    window=st.integers(2, 8),
    slide=st.sampled_from((1, 1, 2)),
    deletions=st.booleans(),
)
def test_deferred_widenings_give_the_eager_validity(data, program, window, slide, deletions):
    edges = data.draw(streams(deletions))
    query = _query(program, window, slide, True)
    engine, _rows = assert_matches_reference(query, edges, check_state=True)
    eager = _query(program, window, slide, False).engine()
    eager.push_batch(edges)
    eager.close()
    assert engine.history == eager.history  # (merged per key: the validity)


@settings(max_examples=40, deadline=None)
@given(data=st.data(), program=st.sampled_from(PROGRAMS), cut=st.integers(0, 40))
def test_a_checkpoint_keeps_the_deferred_ends(data, program, cut):
    edges = data.draw(streams(False))
    cut = min(cut, len(edges))
    assert_checkpoint_round_trip(_query(program, 4, 1, True), edges, cut)
