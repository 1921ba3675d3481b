"""The facts `check` derives for later stages (CheckedProgram): edb, idb, outputs, order,
windows with command-line overrides, and expiry (specs/semantics.md §2)."""

from __future__ import annotations

import pytest
from sgq.datalog.check import check, check_text
from sgq.datalog.errors import DlErrors
from sgq.datalog.parser import parse

EXAMPLE = """
.window 24h
.slide 1h
.window 30d for purchase
.input likes, follows, posts, purchase, unused
RL(u1, u2)   :- likes(u1, m1), follows+(u1, u2) as FP, posts(u2, m1).
Answer(u, m) :- RL+(u, v) as RLP, posts(v, m), purchase(u, m).
"""


def test_facts():
    checked = check_text(EXAMPLE)
    assert checked.edb == ("likes", "follows", "posts", "purchase")  # unused is not read
    assert checked.idb == ("RL", "Answer")
    assert checked.outputs == ("Answer",)
    assert checked.order == ("likes", "follows", "posts", "RL", "purchase", "Answer")
    assert (checked.window, checked.slide) == (86400, 3600)
    assert checked.label_windows == (("purchase", 30 * 86400),)
    assert checked.window_of("likes") == 86400
    assert checked.expiry("likes", 7201) == 7200 + 86400
    assert checked.expiry("purchase", 3599) == 30 * 86400


def test_overrides():
    checked = check(parse(EXAMPLE), window=7200, slide=60)
    assert (checked.window, checked.slide) == (7200, 60)
    assert checked.window_of("purchase") == 30 * 86400  # per-label windows stay


def test_override_slide_is_checked_against_every_window():
    with pytest.raises(DlErrors, match="slide 3h is larger than the window 2h"):
        check(parse(EXAMPLE), window=7200, slide=3 * 3600)


def test_outputs_accumulate_without_repeats():
    checked = check_text(
        ".window 5\n.output B\n.output A, B\nA(x, y) :- a(x, y).\nB(x, y) :- A(x, y)."
    )
    assert checked.outputs == ("B", "A")


def test_label_windows_covering_every_input_need_no_default():
    checked = check_text(".window 5 for a, b\nAnswer(x, y) :- a(x, z), b(z, y).")
    assert checked.window is None
    assert checked.window_of("a") == checked.window_of("b") == 5


def test_default_slide_is_one():
    assert check_text(".window 5\nAnswer(x, y) :- a(x, y).").slide == 1


def test_all_errors_are_reported_together_in_source_order():
    with pytest.raises(DlErrors) as info:
        check_text(".window 0\nAnswer(x, z) :- Answer(x, y).\n.foo\n", "m.dl")
    locs = [(e.loc.line, e.loc.column) for e in info.value.errors]
    assert locs == sorted(locs) and len(locs) == 4
