"""PATTERN's native deltas with re-derived ends (operators/native_keys.py): a native PATTERN
admits only tuples that start at their instant, so a key's recorded end may lag its true one,
and a key whose recorded end comes up is re-derived. Its delta events must be those of the
same program in row mode (interval rows through a DeltaView), for any stream, chunking of the
input into `push_batch` calls, window and slide (also no multiple of it), and deletions (before
a round with deletions the ends are made exact and rows take over)."""

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


def _events(text: str, chunks: list, deltas: bool) -> list:
    return delta_events(sgq.compile(text), chunks, deltas)


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
@given(streams())
def test_native_pattern_deltas_are_the_row_modes(case):
    text, chunks = case
    assert _events(text, chunks, deltas=True) == _events(text, chunks, deltas=False)


@settings(max_examples=200, deadline=None)
@given(streams(), st.integers(1, 3))
def test_ends_rederived_a_few_sources_at_a_time_are_the_same(case, part):
    """Many keys due at once (the close of a run) are re-derived a part at a time, whole
    sources per part (Coalescer.leaving_rederived): with parts of a few keys, the same
    events as in row mode."""
    text, chunks = case
    with patch.object(coalescer, "REDERIVE_PART", part):
        assert _events(text, chunks, deltas=True) == _events(text, chunks, deltas=False)


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
