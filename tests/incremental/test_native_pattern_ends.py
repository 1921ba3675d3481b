"""PATTERN's native deltas with re-derived ends (operators/native_keys.py): a native PATTERN
that admits only tuples that start at their instant records ends that may lag the true ones,
and re-derives a key whose recorded end comes up. It does so from the start, never (every
renewal joins, the ends exact) or once renewals are many (`Tuning.renewed_share`, switched
part-way through a stream here). Its delta events must be those of the same program in row
mode (interval rows through a DeltaView), for any stream, chunking of the input into
`push_batch` calls, window and slide (also no multiple of it), and deletions (before a round
with deletions the ends are made exact and rows take over)."""

from __future__ import annotations

from unittest.mock import patch

from hypothesis import given, settings
from hypothesis import strategies as st
from incremental_support import chunked_streams, delta_events
from sgq.incremental.state import coalescer

import sgq

PROGRAMS = [
    "Answer(x, y) :- a(x, z), b(z, y).",
    "Answer(x, y) :- a+(x, y), b(x, m), a(m, y).",
    "Answer(x, m) :- a+(x, y), b(m, y).",
    "Answer(x, y) :- a(x, z), b(z, w), a(w, y), x != y.",
    # cyclic (so Q5's shape), a guard on both head variables: a span's entering keys may be
    # derived from it, each with both head variables bound
    "Answer(m1, m2) :- a(x, y), b(m1, x), b(m2, y), a(m2, m1).",
    # an output RENAME swapping src and trg: the PATTERN's keys go out reversed
    "R(x, y) :- a(x, z), b(z, y).\nAnswer(y, x) :- R(x, y).",
]


#: ends re-derived from the start, exact throughout, and exact until renewals are a fifth
#: of the tuples taken (past the first two: part-way through the streams drawn here)
RE_DERIVED = sgq.Tuning(renewed_share=0)
EXACT = sgq.Tuning(renewed_share=float("inf"))
SWITCHING = sgq.Tuning(renewed_share=0.2, renewals_seen=2)


def _events(text: str, chunks: list, deltas: bool, tuning: sgq.Tuning = RE_DERIVED) -> list:
    return delta_events(sgq.compile(text, options=sgq.PlanOptions(tuning=tuning)), chunks, deltas)


def test_an_end_inside_a_slide_bucket_is_released_when_the_next_batch_starts_after_it():
    """Window 10, slide 3: the result of the edges at 4 expires at 13, inside the bucket
    [12, 15) a batch at 12 opened; the next batch, at 14, must first let it leave (before,
    a '-' at 13 was lost when the batches came in separate `push_batch` calls)."""
    text = ".window 10\n.slide 3\nAnswer(x, y) :- a(x, z), b(z, y)."
    chunks = [
        [("1", "2", "a", 4), ("2", "3", "b", 4)],
        [("7", "8", "a", 12)],
        [("1", "2", "a", 14), ("2", "3", "b", 14)],
    ]
    want = [(4, "+", "1", "3", "Answer"), (13, "-", "1", "3", "Answer")]
    want += [(14, "+", "1", "3", "Answer"), (22, "-", "1", "3", "Answer")]
    assert _events(text, chunks, deltas=True) == want
    assert _events(text, [sum(chunks, [])], deltas=True) == want
    assert _events(text, chunks, deltas=False) == want


def streams():
    return chunked_streams(PROGRAMS)


@settings(max_examples=300, deadline=None)
@given(streams(), st.sampled_from([RE_DERIVED, EXACT, SWITCHING, sgq.Tuning()]))
def test_native_pattern_deltas_are_the_row_modes(case, tuning):
    text, chunks = case
    assert _events(text, chunks, True, tuning) == _events(text, chunks, False, tuning)


@settings(max_examples=200, deadline=None)
@given(streams(), st.integers(1, 3), st.sampled_from([RE_DERIVED, SWITCHING]))
def test_ends_rederived_a_few_sources_at_a_time_are_the_same(case, part, tuning):
    """Many keys due at once (the close of a run) are re-derived a part at a time, whole
    sources per part (Coalescer.leaving_rederived): with parts of a few keys, the same
    events as in row mode."""
    text, chunks = case
    with patch.object(coalescer, "REDERIVE_PART", part):
        assert _events(text, chunks, True, tuning) == _events(text, chunks, False, tuning)


def test_a_key_widened_past_a_purge_where_every_end_is_due_goes_on():
    """(1, 3) enters at 0 with end 10 and is widened to 15 at 5 (its expiry entry stays at
    10); at 11 every recorded end is due (the all-due path of `leaving_rederived`), yet
    (1, 3) goes on: no '-' before 15, and the renewal at 12 is no new '+'."""
    text = ".window 10\nAnswer(x, y) :- a(x, z), b(z, y)."
    edges = [("1", "2", "a", 0), ("2", "3", "b", 0), ("1", "4", "a", 5), ("4", "3", "b", 5)]
    chunks = [edges, [("7", "8", "a", 11)], [("1", "2", "a", 12), ("2", "3", "b", 12)]]
    want = [(0, "+", "1", "3", "Answer"), (22, "-", "1", "3", "Answer")]
    assert _events(text, chunks, deltas=True) == want
    assert _events(text, chunks, deltas=False) == want


def test_a_due_key_is_rederived_once_to_its_longest_derivation():
    """(1, 3) enters at 0 through six z's (neither atom functional: no functional join); the
    tuples through each z are renewed at 1, ..., 6, which widens no key (a renewal joins
    nothing), so its recorded end stays 10. When that comes up, its re-derivation
    (`PatternOp._longest`) gives the longest derivation, 16: one re-derivation, not one per
    renewal it goes through (a derivation that ended earlier, found first, would be)."""
    from sgq.incremental.operators.pattern import PatternOp

    text = ".window 10\nAnswer(x, y) :- a(x, z), b(z, y)."
    zs = ["2", "4", "5", "6", "11", "12"]
    chunks = [[edge for z in zs for edge in (("1", z, "a", 0), (z, "3", "b", 0))]]
    chunks += [[("1", z, "a", t), (z, "3", "b", t)] for t, z in enumerate(zs, 1)]
    chunks += [[("7", "8", "a", t)] for t in (11, 17, 18)]
    ends: list = []
    longest = PatternOp._longest

    def spy(self, keys, cutoff):
        got = longest(self, keys, cutoff)
        ends.extend(got[key][1] for key in keys if key == ("1", "3") and key in got)
        return got

    with patch.object(PatternOp, "_longest", spy):
        events = _events(text, chunks, deltas=True)
    assert ends == [16]
    assert events == [(0, "+", "1", "3", "Answer"), (16, "-", "1", "3", "Answer")]


def _pattern(engine):
    from sgq.incremental.operators.pattern import PatternOp

    (op,) = [op for op in engine.dataflow.ops if isinstance(op, PatternOp)]
    return op


def test_ends_stay_exact_while_renewals_are_few_and_are_rederived_once_they_are_many():
    """`Tuning.renewed_share`: new pairs at every instant keep the ends exact; the same pairs
    again and again turn them re-derived once renewals pass the share (the keyed join
    throughout: no functional join, which each key's one derivation would keep)."""
    text = ".window 10\nAnswer(x, y) :- a(x, z), b(z, y)."
    tuning = sgq.Tuning(renewals_seen=8, functional_joins=False)
    query = sgq.compile(text, options=sgq.PlanOptions(tuning=tuning))
    fresh, again = (query.engine(history=False, deltas=True) for _ in range(2))
    for t in range(12):
        fresh.push_batch([(f"x{t}", f"z{t}", "a", t, "+"), (f"z{t}", f"y{t}", "b", t, "+")])
        again.push_batch([("x", "z", "a", t, "+"), ("z", "y", "b", t, "+")])
    assert _pattern(fresh).watching and _pattern(fresh).native.rederive is None
    assert not _pattern(again).watching and _pattern(again).native.rederive is not None


def test_ends_turned_rederived_are_made_exact_before_a_deletion_reaches_them():
    """Renewals pass the share part-way (the recorded end of (1, 3) then lags its true one,
    17); the deletion at 9, of another key's tuple, finds the ends made exact first (runtime
    `exact_ends`), so (1, 3) leaves at 17, as in row mode, not at a lagging end."""
    text = ".window 10\nAnswer(x, y) :- a(x, z), b(z, y)."
    tuning = sgq.Tuning(renewals_seen=2, functional_joins=False)
    chunks = [[("1", "2", "a", t), ("2", "3", "b", t)] for t in range(8)]
    chunks += [[("7", "8", "a", 8), ("8", "9", "b", 8)]]
    chunks += [[("7", "8", "a", 9, "-")]]  # (a key of its own: its retraction leaves (1, 3) be)
    want = [(0, "+", "1", "3", "Answer"), (8, "+", "7", "9", "Answer")]
    want += [(9, "-", "7", "9", "Answer"), (17, "-", "1", "3", "Answer")]
    assert _events(text, chunks, True, tuning) == want
    assert _events(text, chunks, False, tuning) == want
