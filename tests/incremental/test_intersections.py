"""INTERSECT (operators/intersect.py): an output PATTERN joining two inputs on both of its
variables, run on its inputs' delta streams in delta mode, gives the delta events of the hash
join (`Tuning(intersections=False)`) and of row mode, for any stream, chunking of the input,
window and slide (also no multiple of it), and deletions (its inputs' native deltas turn into
rows, which their sides read)."""

from __future__ import annotations

from hypothesis import given, settings
from incremental_support import chunked_streams, delta_events
from sgq.base.options import PlanOptions, Tuning
from sgq.incremental.operators.intersect import IntersectOp

import sgq

PROGRAMS = [
    # a closure and a chain on the same pair (the shared Q6)
    "Answer(x, y) :- a+(x, y), b(x, m), a(m, y).",
    # the second input's variables swapped: its keys are written swapped
    "Answer(x, y) :- a+(x, y), b+(y, x).",
    # two chains, each a rule of its own
    "P(x, y) :- a(x, z), b(z, y).\nQ(x, y) :- b(x, w), a(w, y).\nAnswer(x, y) :- P(x, y), Q(x, y).",
    # a nullable closure (its (v, v) pairs from the domain) against a PATH
    "Answer(x, y) :- [a*](x, y), [b/a*](x, y).",
    # under an output RENAME that swaps src and trg
    "R(x, y) :- a+(x, y), b(x, m), b(m, y).\nAnswer(y, x) :- R(x, y).",
]


def _events(text: str, chunks: list, deltas: bool, intersections: bool = True) -> list:
    options = PlanOptions(tuning=Tuning(intersections=intersections))
    return delta_events(sgq.compile(text, options=options), chunks, deltas)


def _intersects(text: str) -> bool:
    query = sgq.compile(text)
    engine = query.engine(history=False, deltas=True)
    return any(type(op) is IntersectOp for op in engine.dataflow.ops)


def test_each_program_runs_as_an_intersection_in_delta_mode_only():
    for text in PROGRAMS:
        assert _intersects(".window 4\n" + text), text
    query = sgq.compile(".window 4\n" + PROGRAMS[0])
    rows = query.engine(history=False, deltas=False)
    assert not any(type(op) is IntersectOp for op in rows.dataflow.ops)
    # an input another rule reads, and a join condition, keep the hash join
    shared = "P(x, y) :- a+(x, y).\nAnswer(x, y) :- P(x, y), b(x, y).\nOther(x, y) :- P(x, y)."
    assert not _intersects(".window 4\n.output Answer\n.output Other\n" + shared)
    assert not _intersects(".window 4\nAnswer(x, y) :- a+(x, y), b+(x, y), x != y.")


def streams():
    return chunked_streams(PROGRAMS)


@settings(max_examples=400, deadline=None)
@given(streams())
def test_intersections_give_the_hash_joins_and_the_row_modes_events(case):
    text, chunks = case
    got = _events(text, chunks, deltas=True)
    assert got == _events(text, chunks, deltas=True, intersections=False)
    assert got == _events(text, chunks, deltas=False)
