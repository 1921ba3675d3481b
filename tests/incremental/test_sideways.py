"""Sideways information passing (operators/sideways.py): an intersection whose inputs are a
closure PATH and a PATTERN has the closure name only the pairs the PATTERN holds. Its events
are the hash join's (`Tuning(intersections=False)`) for any stream, chunking, window and
slide, with deletions (the mask turns off), with the closure handing over to S-PATH, with a
sweep at every round (`SWEEP_SLACK` 0), and across a checkpoint."""

from __future__ import annotations

import pickle
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st
from incremental_support import chunked_streams, delta_events
from sgq.base.options import PlanOptions, Tuning
from sgq.incremental.operators import sideways

import sgq

PROGRAMS = [
    # the shared Q6: a closure and a chain on the same pair
    "Answer(x, y) :- a+(x, y), b(x, m), a(m, y).",
    # the PATTERN first in the body
    "Answer(x, y) :- b(x, m), b(m, y), a+(x, y).",
    # a nullable closure: its (v, v) pairs are the domain's, named whatever is wanted
    "Answer(x, y) :- a*(x, y), b(x, m), a(m, y).",
    # a closure over two DFA states
    "Answer(x, y) :- [a/b*](x, y), a(x, m), b(m, y).",
]

#: the closure hands over to S-PATH at its first slide's end (as sparse)
HANDS_OVER = {"min_rows": 1, "tree_cost": 0, "clearly_sparse": 0}


def _query(text: str, **tuning):
    return sgq.compile(text, options=PlanOptions(tuning=Tuning(**tuning)))


def _masks(text: str, **tuning) -> list:
    engine = _query(text, **tuning).engine(history=False, deltas=True)
    return [op.mask for op in engine.dataflow.ops if getattr(op, "mask", None) is not None]


def test_each_program_runs_sideways_in_delta_mode_only():
    for text in PROGRAMS:
        assert len(_masks(".window 4\n" + text)) == 1, text
        assert not _masks(".window 4\n" + text, sideways=False), text
    # two PATHs, or a RENAME that swaps the output's variables: no mask
    assert not _masks(".window 4\nAnswer(x, y) :- a+(x, y), b+(x, y).")
    swapped = "R(x, y) :- a+(x, y), b(x, m), b(m, y).\nAnswer(y, x) :- R(x, y)."
    assert not _masks(".window 4\n" + swapped)


@st.composite
def cases(draw):
    text, chunks = draw(chunked_streams(PROGRAMS))
    tuning = HANDS_OVER if draw(st.booleans()) else {}
    return text, chunks, tuning, draw(st.booleans())


@settings(max_examples=150, deadline=None)
@given(cases())
def test_sideways_gives_the_hash_joins_events(case):
    text, chunks, tuning, sweeping = case
    with mock.patch.object(sideways, "SWEEP_SLACK", 0 if sweeping else sideways.SWEEP_SLACK):
        got = delta_events(_query(text, **tuning), chunks, deltas=True)
    assert got == delta_events(_query(text, intersections=False), chunks, deltas=True)


def _events_resumed(query, chunks: list, cut: int) -> list:
    """`delta_events` in delta mode, the engine checkpointed after `chunks[:cut]` and the
    rest fed to one restored from it."""
    engine = query.engine(history=False, deltas=True)
    view = engine.delta_view()
    events: list = []
    for i, chunk in enumerate(chunks):
        if i == cut:
            saved = pickle.loads(pickle.dumps(engine.state()))
            engine = query.engine(history=False, deltas=True)
            engine.restore(saved)
            view = engine.delta_view()
        engine.push_batch(chunk)
        events += view.feed(engine.drain_rows(), engine.time)
    engine.close()
    events += view.feed(engine.drain_rows(), engine.time)
    return events + view.close()


@settings(max_examples=80, deadline=None)
@given(chunked_streams(PROGRAMS[:1]), st.integers(0, 4))
def test_a_checkpoint_keeps_the_wanted_pairs(case, cut):
    text, chunks = case
    with mock.patch.object(sideways, "SWEEP_SLACK", 0):
        got = _events_resumed(_query(text), chunks, min(cut, len(chunks)))
    assert got == delta_events(_query(text, intersections=False), chunks, deltas=True)


@settings(max_examples=80, deadline=None)
@given(chunked_streams(PROGRAMS[:1]))
def test_every_key_of_the_partner_is_wanted(case):
    """After every chunk, each key the PATTERN holds is wanted (what exactness needs)."""
    text, chunks = case
    engine = _query(text).engine(history=False, deltas=True)
    (mask,) = [op.mask for op in engine.dataflow.ops if getattr(op, "mask", None) is not None]
    with mock.patch.object(sideways, "SWEEP_SLACK", 2):
        for chunk in chunks:
            engine.push_batch(chunk)
            if not mask.on:  # (a deletion)
                assert mask.wanted == {}
                continue
            wanted = {(src, trg) for src, trgs in mask.wanted.items() for trg in trgs}
            assert mask.count == len(wanted)
            assert set(mask.partner.live) <= wanted


def test_a_sweep_keeps_the_wanted_pairs_within_twice_the_partners_keys():
    """A chain whose keys come and go: each round that admits keys leaves at most twice
    the PATTERN's keys (and the slack) wanted, however many it held before."""
    engine = _query(".window 2\n.slide 1\n" + PROGRAMS[0]).engine(history=False, deltas=True)
    (mask,) = [op.mask for op in engine.dataflow.ops if getattr(op, "mask", None) is not None]
    with mock.patch.object(sideways, "SWEEP_SLACK", 2):
        for t in range(200):
            engine.push_batch([(f"x{t}", f"m{t}", "b", 2 * t), (f"m{t}", f"y{t}", "a", 2 * t)])
            assert mask.count <= 2 * len(mask.partner.live) + 2
    assert 0 < mask.count < 10  # (not the 200 keys it was told of)


def test_a_pair_the_closure_reaches_later_in_a_span_enters_then():
    """One span (no expiry from 1 to 9): the chain holds (1, 3) from 1, the closure reaches it
    at 2 only. The PATTERN runs first in the round (runtime `order`), so (1, 3) is wanted
    before the closure's instants: it enters at 2, as in the hash join."""
    edges = [
        ("1", "5", "b", 1),
        ("5", "3", "a", 1),
        ("1", "2", "a", 2),
        ("2", "3", "a", 2),
    ]
    for text in PROGRAMS[:2]:
        text = text.replace("b(m, y)", "a(m, y)")
        query = _query(".window 10\n.slide 10\n" + text)
        got = delta_events(query, [edges], deltas=True)
        assert got == delta_events(
            _query(".window 10\n.slide 10\n" + text, intersections=False), [edges], deltas=True
        )
        assert (2, "+", "1", "3", "Answer") in got
