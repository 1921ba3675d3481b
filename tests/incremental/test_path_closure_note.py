"""The worked example of docs/design/path-closure.md, step by step: the rows and the interval
rows' bookkeeping (`IntervalRows.describe`) the note shows are what the code gives; and a
checkpoint of an older state version of the closure PATH is refused with a message that says
so."""

from __future__ import annotations

import json

import pytest
from incremental_support import compile_text
from sgq.incremental.operators.path_closure import PathClosureOp

from sgq import PlanOptions, Tuning
from sgq.state_codec import decode, encode

STREAM = [
    ("h", "t", "a", 0),
    ("s", "h", "a", 1),
    ("t", "u", "a", 2),
    ("h", "t", "a", 3),
    ("x", "s", "a", 4),
    ("h", "t", "a", 5, "-"),
]


def _steps(options: PlanOptions | None = None) -> list:
    """`(rows, describe())` after each instant of the note's stream."""
    options = options or PlanOptions()
    query = compile_text("Answer(x, y) :- a+(x, y).", window=4, slide=1, options=options)
    engine = query.engine()
    (op,) = [op for op in engine.dataflow.ops if isinstance(op, PathClosureOp)]
    out = []
    for edge in STREAM:
        engine.push(*edge)
        engine.advance(edge[3] + 1)
        rows = sorted((r.src, r.trg, r.ts, r.exp) for r in engine.drain())
        out.append((rows, None if op.mode is None else op.mode.describe()))
        engine.dataflow._check()
    return out


def test_the_notes_example_step_by_step():
    steps = _steps()
    rows = [rows for rows, _ in steps]
    assert rows == [
        [("h", "t", 0, 4)],
        [("s", "h", 1, 5), ("s", "t", 1, 4)],
        [("h", "u", 2, 4), ("s", "u", 2, 4), ("t", "u", 2, 6)],
        [("h", "t", 3, 7), ("h", "u", 3, 6), ("s", "t", 3, 5), ("s", "u", 3, 5)],
        [("x", "h", 4, 5), ("x", "s", 4, 8), ("x", "t", 4, 5), ("x", "u", 4, 5)],
        [("h", "t", 3, 5), ("h", "u", 3, 5)],
    ]
    states = [state for _, state in steps]
    assert [s["followers"] for s in states[:5]] == [
        {"h": ("t", 4, 0)},
        {"s": ("h", 5, 1)},
        {"s": ("h", 5, 1)},
        {"s": ("h", 5, 1)},
        {"x": ("s", 8, 4)},
    ]
    assert [s["levels"] for s in states[:5]] == [[4], [4, 5], [4, 5, 6], [5, 6, 7], [6, 7, 8]]
    assert all(s["keys"] == {} for s in states[:5])  # every start node held or a follower
    assert states[1]["held"] == [("h", ["t"], 0, 4)]  # h made rows, held at once
    assert ("s", ["h"], 1, 5) in states[4]["held"]  # s made rows: its coverage logged
    assert ("s", ["t", "u"], 3, 5) in states[4]["held"]
    assert states[5] is None  # handed over to S-PATH at the deletion


def test_the_notes_example_with_coarse_levels():
    steps = _steps(PlanOptions(tuning=Tuning(coarse_work=0, level_every=4)))
    rows = [rows for rows, _ in steps]
    assert ("t", "u", 2, 4) in rows[2]  # a lower bound: 4 is the only closure
    assert rows[3] == [
        ("h", "t", 4, 7),
        ("h", "u", 4, 6),
        ("s", "t", 4, 5),
        ("s", "u", 4, 5),
        ("t", "u", 4, 6),
    ]
    state = steps[3][1]
    assert state["levels"] == [5, 7] and state["exps"] == [5, 6, 7]
    assert state["memos"] == {6: {"t": ["u"], "h": ["u"]}}


def test_a_checkpoint_of_an_older_closure_state_version_is_refused():
    from sgq.incremental.stateful import StateError

    query = compile_text("Answer(x, y) :- a+(x, y).", window=4, slide=1)
    first = query.engine()
    first.push_batch([e for e in STREAM if len(e) == 4])
    saved = json.loads(json.dumps(encode({"engine": first})))
    text = json.dumps(saved)
    tag = f'"class", "PathClosureOp", "version", {PathClosureOp.STATE_VERSION},'
    assert text.count(tag) == 1
    older = json.loads(text.replace(tag, '"class", "PathClosureOp", "version", 8,'))
    with pytest.raises(StateError, match="PathClosureOp state version 8; this build reads"):
        decode(older, {"engine": query.engine()})
