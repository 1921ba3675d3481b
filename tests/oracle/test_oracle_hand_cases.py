"""The Spark oracle on hand-computed cases, and against the brute-force reference."""

from __future__ import annotations

import pytest
from sgq.datalog.check import check_text
from sgq.datalog.parser import parse
from sgq.oracle import evaluate, evaluate_many
from sgq.oracle.automaton import build_automaton
from snapshot_reference import change_points, delta_view, output_snapshots

pytestmark = pytest.mark.spark


def prog(text: str):
    return check_text(text, "t.dl")


def test_automaton_accepts_by_hand():
    regex = parse("A(x, y) :- [a/b*/(c|d)?](x, y).", "t.dl").rules[0].body[0].regex
    auto = build_automaton(regex)

    def accepts(word):
        states = set(auto.initial)
        for letter in word:
            states = {q2 for q, lbl, q2 in auto.moves if q in states and lbl == letter}
        return bool(states & auto.accepting)

    assert not auto.nullable
    for word, ok in [
        ("a", True),
        ("ab", True),
        ("abbbc", True),
        ("ad", True),
        ("", False),
        ("b", False),
        ("acd", False),
        ("abcb", False),
    ]:
        assert accepts(word) is ok, word


@pytest.mark.slow  # ~17 s of Spark: over the README test budget
def test_windows_slide_deletions_ties(spark):
    p = prog(".window 10\n.slide 5\nAnswer(x, z) :- a(x, y), a(y, z).")
    edges = [("1", "2", "a", 1, "+"), ("2", "3", "a", 6, "+"), ("1", "2", "a", 8, "-")]
    r = evaluate(p, edges)
    assert r.points == [1, 6, 8, 10, 15]
    assert r.delta() == [(6, "+", "1", "3", "Answer"), (8, "-", "1", "3", "Answer")]
    assert r.snapshot(7) == {("1", "3", "Answer")}
    assert r.snapshot(8) == set() and r.snapshot(0) == set()


MANY = prog(".window 4\nAnswer(x, y) :- a+(x, y).")
MANY_STREAMS = {
    7: [("1", "2", "a", 0, "+"), ("2", "3", "a", 1, "+")],
    9: [("1", "2", "a", 0, "+"), ("1", "2", "a", 0, "-"), ("2", "1", "a", 2, "+")],
    11: [],
}


@pytest.fixture(scope="module")
def one_pass(spark):
    """The cases of every test below that needs Spark, through the oracle in one pass (each
    pass costs seconds of Spark job launches, whatever its size): name -> (cases, results)."""
    from query_cases import FOLDERS, edges

    groups = {
        "many": [(MANY, stream) for stream in MANY_STREAMS.values()],
        "several": SEVERAL_CASES + PROPERTY_CASES,
        "golden": [(prog((f / "query.dl").read_text(encoding="utf-8")), edges(f)) for f in FOLDERS],
    }
    results = evaluate_many([case for cases in groups.values() for case in cases])
    out, at = {}, 0
    for name, cases in groups.items():
        out[name] = (cases, results[at : at + len(cases)])
        at += len(cases)
    return out


def test_many_cases_one_program(one_pass):
    _cases, results = one_pass["many"]
    res = dict(zip(MANY_STREAMS, results))
    assert res[7].snapshot(1) == {("1", "2", "Answer"), ("2", "3", "Answer"), ("1", "3", "Answer")}
    assert res[7].snapshot(4) == {("2", "3", "Answer")}
    assert res[7].delta()[-1] == (5, "-", "2", "3", "Answer")
    # '+' then '-' at one time: invisible; the other edge alone
    assert res[9].snapshot(2) == {("2", "1", "Answer")}
    assert res[11].points == [] and res[11].delta() == []


SEVERAL_CASES = [
    (
        prog(".window 5\n.window 2 for b\nAnswer(x, y) :- a(x, z), b(z, y).\n"),
        [("1", "2", "a", 0, "+"), ("2", "3", "b", 0, "+")],
    ),
    (
        prog(".window 5\nD(x, y) :- a(x, y), x != y.\nAnswer(x, y) :- D*(x, y).\n"),
        [("1", "1", "a", 0, "+"), ("1", "2", "a", 3, "+")],
    ),
    (
        prog(".window 5\nAnswer(x, y) :- [a?/b+](x, y), b(y, 3).\n"),
        [("1", "2", "a", 0, "+"), ("2", "3", "b", 1, "+"), ("3", "3", "b", 1, "+")],
    ),
    (
        # time variables (specs/semantics.md §4b): a(1, 2) renewed at 3 and, abutting,
        # at 8 keeps its start 0; b(2, 3) starts at 2
        prog(".window 5\nAnswer(x, z) :- a(x, y)@t1, b(y, z)@t2, t1 < t2.\n"),
        [
            ("1", "2", "a", 0, "+"),
            ("2", "3", "b", 2, "+"),
            ("1", "2", "a", 3, "+"),
            ("2", "3", "b", 4, "+"),
            ("1", "2", "a", 8, "+"),
        ],
    ),
]


def test_several_programs_one_pass(one_pass):
    cases, (r0, r1, r2, r3, *props) = one_pass["several"]
    assert r0.delta() == [(0, "+", "1", "3", "Answer"), (2, "-", "1", "3", "Answer")]
    # D* holds (v, v) for the active domain even where D is empty
    assert r1.snapshot(0) == {("1", "1", "Answer")}
    assert r1.snapshot(3) == {("1", "1", "Answer"), ("2", "2", "Answer"), ("1", "2", "Answer")}
    assert r2.snapshot(1) == {("1", "3", "Answer"), ("2", "3", "Answer"), ("3", "3", "Answer")}
    assert r3.delta() == [(2, "+", "1", "3", "Answer"), (9, "-", "1", "3", "Answer")]
    for (checked, edges), res in zip(cases, (r0, r1, r2, r3, *props)):
        assert res.delta() == delta_view(checked, edges)
    _check_property_cases(props)


# Property predicates (specs/semantics.md §1, §4c), evaluated in the pass above: typed values,
# missing ones, tuples that differ by their properties, deletions by given properties, tests
# on path labels, joins on property variables, the start of a tuple as a braced atom sees it.
FLIGHTS = [
    ("1", "2", "f", 0, "+", {"d": 10}),
    ("2", "3", "f", 1, "+", {"d": 45.5, "c": "AA"}),
    ("3", "4", "f", 2, "+", {"d": "x"}),
    ("1", "2", "f", 3, "+", {}),
    ("2", "3", "f", 4, "+", {"d": 2.0, "c": "AA"}),
    ("4", "5", "f", 4, "+", {"d": 2}),
    ("1", "2", "f", 6, "-", {"d": 10.0}),
    ("2", "3", "f", 7, "-", {}),
]
PROPERTY_CASES = [
    (
        prog(
            ".window 20\n"
            'Late(a, c) :- f(a, b){d: d1}, f(b, c){d: d2, c: "AA"}, d2 > d1 + 30.\n'
            "Fast(a, b) :- [f{d < 15}+](a, b).\n"
            "Same(a, c) :- f(a, b){d: v}, f(b2, c){d: v}, a != b2.\n"
            'Text(a, b) :- f(a, b){d: v}, v != "y".\n'
            # one test with 2, one with "2": equal as syntax trees (a constant's quotes take
            # no part in equality), different as tests
            "Num(a, b) :- [f{d = 2}](a, b).\n"
            'Str(a, b) :- [f{d = "2"}](a, b).\n'
            ".output Late, Fast, Same, Text, Num, Str\n"
        ),
        FLIGHTS,
    ),
    (
        prog(".window 20\nAnswer(a, b) :- f(a, b){d: _}@t1, g(x, y)@t2, t1 > t2.\n"),
        [
            ("1", "2", "f", 0, "+", {"d": 1}),
            ("5", "6", "g", 2, "+"),
            ("1", "2", "f", 3, "+", {"d": 2}),
            ("1", "2", "f", 4, "+", {"d": 1.0, "e": 7}),
            ("1", "2", "f", 6, "-", {"d": 2}),
        ],
    ),
]


def _check_property_cases(results) -> None:
    flights, timed = results
    # 45.5 > 10 + 30; a missing d or one that is no number is never < 15, nor != "y"
    assert flights.snapshot(1) == {("1", "3", "Late"), ("1", "2", "Fast")}
    # at 4: 2.0 and 2 join (Same); 10 + 30 < 45.5 still (Late); the path goes on at 2 < 15
    assert flights.snapshot(4) == {
        ("1", "3", "Late"),
        ("1", "2", "Fast"),
        ("2", "3", "Fast"),
        ("1", "3", "Fast"),
        ("4", "5", "Fast"),
        ("2", "5", "Same"),
        ("4", "3", "Same"),
        ("3", "4", "Text"),
        ("2", "3", "Num"),
        ("4", "5", "Num"),
    }
    # a '-' giving d = 10.0 deletes the d = 10 tuple only (the one without d stays), and one
    # giving nothing deletes every tuple of its edge
    assert ("1", "3", "Late") not in flights.snapshot(6)
    assert not {("2", "3", "Fast"), ("4", "3", "Same")} & flights.snapshot(7)
    # the pair runs from 0, its d = 2 tuple from 3 (after g's 2), its d = 1 tuple from 0
    assert timed.delta() == [(3, "+", "1", "2", "Answer"), (6, "-", "1", "2", "Answer")]


@pytest.mark.slow  # ~17 s of Spark; the README's test run keeps the hand cases above
def test_oracle_equals_reference_on_random_cases(spark):
    from harness_support import batch_cases

    cases = batch_cases(programs=12, streams=5, seed=1234, deletions=True)
    results = evaluate_many([(c, e) for _text, c, e in cases])
    for (text, checked, edges), res in zip(cases, results):
        assert res.points == change_points(checked, edges), text
        wanted = output_snapshots(checked, edges)
        for tau in res.points:
            assert res.snapshot(tau) == wanted[tau], (text, edges, tau)


def test_time_comparisons_written_every_way(one_pass):
    """The golden query cases of tests/cases/queries/ (durations on either side, with units,
    without spaces), evaluated by the oracle in one pass: its deltas are the reference's and
    its snapshots those of the case's expected rows."""
    from query_cases import FOLDERS, expected_validity, snapshot

    cases, results = one_pass["golden"]
    for folder, (checked, stream), res in zip(FOLDERS, cases, results, strict=True):
        assert res.delta() == delta_view(checked, stream), folder.name
        validity = expected_validity(folder)
        for tau in res.points:
            assert res.snapshot(tau) == snapshot(validity, tau), (folder.name, tau)
