"""Hand-computed cases for the brute-force reference (tests/snapshot_reference.py)."""

from __future__ import annotations

from sgq.datalog.check import check_text
from sgq.datalog.parser import parse
from snapshot_reference import (
    change_points,
    delta_view,
    evaluate,
    input_snapshot,
    output_snapshot,
    regex_accepts_empty,
)


def prog(text: str, window: int | None = None, slide: int | None = None):
    return check_text(text, "t.dl", window=window, slide=slide)


def test_window_interval_and_slide():
    p = prog(".window 10\n.slide 5\nAnswer(x, y) :- a(x, y).")
    edges = [("1", "2", "a", 7, "+")]  # valid on [7, 5 + 10) = [7, 15)
    assert input_snapshot(p, edges, 6) == set()
    assert input_snapshot(p, edges, 7) == {("1", "2", "a")}
    assert input_snapshot(p, edges, 14) == {("1", "2", "a")}
    assert input_snapshot(p, edges, 15) == set()
    assert change_points(p, edges) == [7, 15]


def test_per_label_windows():
    p = prog(".window 10\n.window 3 for b\nAnswer(x, y) :- a(x, y), b(y, x).")
    edges = [(1, 2, "a", 0, "+"), (2, 1, "b", 0, "+")]
    assert output_snapshot(p, edges, 2) == {("1", "2", "Answer")}
    assert output_snapshot(p, edges, 3) == set()
    assert change_points(p, edges) == [0, 3, 10]


def test_deletions_and_ties():
    p = prog(".window 10\nAnswer(x, y) :- a(x, y).")
    plus_minus = [("1", "2", "a", 3, "+"), ("1", "2", "a", 3, "-")]
    assert input_snapshot(p, plus_minus, 3) == set()
    minus_plus = [("1", "2", "a", 1, "+"), ("1", "2", "a", 3, "-"), ("1", "2", "a", 3, "+")]
    assert input_snapshot(p, minus_plus, 3) == {("1", "2", "a")}
    cut = [("1", "2", "a", 1, "+"), ("1", "2", "a", 2, "+"), ("1", "2", "a", 5, "-")]
    assert input_snapshot(p, cut, 4) == {("1", "2", "a")}
    assert input_snapshot(p, cut, 5) == set()
    # a '-' cuts only tuples valid at its time; a later '+' is untouched
    later = cut + [("1", "2", "a", 6, "+")]
    assert input_snapshot(p, later, 12) == {("1", "2", "a")}
    assert input_snapshot(p, later, 16) == set()
    # a '-' matching nothing is harmless
    assert input_snapshot(p, [("9", "9", "a", 1, "-")], 1) == set()


def test_join_constants_comparisons():
    p = prog(
        ".window 100\n"
        "Answer(x, z) :- a(x, y), b(y, z), x != z.\n"
        "Answer(x, y) :- a(x, y), b(y, 7).\n"
    )
    snap = {("1", "2", "a"), ("2", "1", "b"), ("2", "3", "b"), ("4", "5", "a"), ("5", "7", "b")}
    got = evaluate(p, snap)["Answer"]
    assert got == {("1", "3"), ("4", "7"), ("4", "5")}


def test_repeated_variable_and_anonymous():
    p = prog(
        ".window 100\nAnswer(x, x) :- a(x, x).\nB(x, y) :- a(x, _), a(_, y).\n.output Answer, B"
    )
    snap = {("1", "1", "a"), ("2", "3", "a")}
    res = evaluate(p, snap)
    assert res["Answer"] == {("1", "1")}
    assert res["B"] == {(x, y) for x in ("1", "2") for y in ("1", "3")}


def test_closures_over_derived_and_active_domain():
    p = prog(
        ".window 100\n"
        "D(x, y) :- a(x, y).\n"
        "P(x, y) :- D+(x, y).\n"
        "S(x, y) :- D*(x, y).\n"
        ".output P, S\n"
    )
    snap = {("1", "2", "a"), ("2", "3", "a"), ("3", "1", "a"), ("7", "8", "z")}
    res = evaluate(p, snap)
    cycle = {(x, y) for x in "123" for y in "123"}
    assert res["P"] == cycle
    # "z" is not read by any rule: 7 and 8 are outside the active domain
    assert res["S"] == cycle


def test_star_adds_domain_pairs_only():
    p = prog(".window 100\nAnswer(x, y) :- a*(x, y), b(y, y).")
    snap = {("1", "2", "a"), ("3", "3", "b"), ("2", "2", "b")}
    assert evaluate(p, snap)["Answer"] == {("1", "2"), ("2", "2"), ("3", "3")}


def test_path_atoms():
    p = prog(".window 100\nAnswer(x, y) :- [a/b*/(c|d)](x, y).")
    snap = {
        ("1", "2", "a"),
        ("2", "2", "b"),
        ("2", "3", "c"),
        ("1", "4", "a"),
        ("4", "5", "d"),
        ("2", "9", "x"),
    }
    assert evaluate(p, snap)["Answer"] == {("1", "3"), ("1", "5")}
    # arbitrary paths: vertices may repeat
    p2 = prog(".window 100\nAnswer(x, y) :- [a/a/a/a](x, y).")
    snap2 = {("1", "2", "a"), ("2", "1", "a")}
    assert evaluate(p2, snap2)["Answer"] == {("1", "1"), ("2", "2")}
    # nullable: epsilon pairs on the active domain
    p3 = prog(".window 100\nAnswer(x, y) :- [a?/b*](x, y).")
    snap3 = {("1", "2", "b"), ("3", "4", "a")}
    assert evaluate(p3, snap3)["Answer"] == {
        ("1", "1"),
        ("2", "2"),
        ("3", "3"),
        ("4", "4"),
        ("1", "2"),
        ("3", "4"),
    }


def test_path_over_derived_predicate():
    p = prog(".window 100\nD(x, y) :- a(x, z), a(z, y).\nAnswer(x, y) :- [D+/b](x, y).")
    snap = {("1", "2", "a"), ("2", "3", "a"), ("3", "4", "a"), ("4", "5", "a"), ("5", "6", "b")}
    assert evaluate(p, snap)["Answer"] == {("1", "6"), ("3", "6")}


def test_regex_nullable_agrees_with_ast():
    for text, nullable in [
        ("a", False),
        ("a*", True),
        ("a?/b", False),
        ("(a|b*)", True),
        ("(a?/b?)+", True),
        ("a/b", False),
    ]:
        prog_ast = parse(f"Answer(x, y) :- [{text}](x, y).", "t.dl")
        regex = prog_ast.rules[0].body[0].regex
        assert regex_accepts_empty(regex) is nullable, text


def test_delta_view_end_to_end():
    p = prog(".window 10\n.slide 5\nAnswer(x, z) :- a(x, y), a(y, z).")
    edges = [("1", "2", "a", 1, "+"), ("2", "3", "a", 6, "+"), ("1", "2", "a", 8, "-")]
    # a(1,2) valid [1,10) cut at 8; a(2,3) valid [6,15): Answer(1,3) on [6, 8)
    assert delta_view(p, edges) == [(6, "+", "1", "3", "Answer"), (8, "-", "1", "3", "Answer")]
    assert change_points(p, edges) == [1, 6, 8, 10, 15]
