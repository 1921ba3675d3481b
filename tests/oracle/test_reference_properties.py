"""Hand-computed cases for property predicates in the brute-force reference
(tests/snapshot_reference.py; specs/semantics.md §1, §4c)."""

from __future__ import annotations

from sgq.datalog.check import check_text
from snapshot_reference import input_snapshot, input_tuples, output_snapshot, output_snapshots

FLIGHTS = [
    ("1", "2", "f", 0, "+", {"d": 10}),
    ("2", "3", "f", 1, "+", {"d": 45.5, "c": "AA"}),
    ("3", "4", "f", 2, "+", {"d": "x"}),
    ("1", "2", "f", 3, "+", {}),
]


def answers(body: str, edges, tau: int, window: int = 100) -> set[tuple[str, str]]:
    checked = check_text(f".window {window}\nAnswer(a, b) :- {body}.\n", "t.dl")
    return {(s, t) for s, t, _label in output_snapshot(checked, edges, tau)}


def test_braces_bind_test_and_ask_for_presence():
    assert answers("f(a, b){d: _}", FLIGHTS, 5) == {("1", "2"), ("2", "3"), ("3", "4")}
    assert answers("f(a, b){c: _}", FLIGHTS, 5) == {("2", "3")}
    assert answers('f(a, b){c: "AA"}', FLIGHTS, 5) == {("2", "3")}
    # typed constants: 10 equals 10.0, never "10"
    assert answers("f(a, b){d: 10.0}", FLIGHTS, 5) == {("1", "2")}
    assert answers('f(a, b){d: "10"}', FLIGHTS, 5) == set()
    assert answers("f(a, b){d: v}", FLIGHTS, 5) == {("1", "2"), ("2", "3"), ("3", "4")}


def test_comparisons_hold_only_between_comparable_values():
    # 10 is not != 10; 45.5 is; "x" is no number, so neither = nor != holds for it
    assert answers("f(a, b){d: v}, v != 10", FLIGHTS, 5) == {("2", "3")}
    assert answers("f(a, b){d: v}, v = 10", FLIGHTS, 5) == {("1", "2")}
    assert answers('f(a, b){d: v}, v != "y"', FLIGHTS, 5) == {("3", "4")}
    assert answers("f(a, b){d: v}, v + 30 < 50", FLIGHTS, 5) == {("1", "2")}
    assert answers("f(a, b){d: v}, 20 <= v - 20", FLIGHTS, 5) == {("2", "3")}


def test_property_variables_order_numbers_and_never_strings():
    edges = [
        ("1", "2", "f", 0, "+", {"d": 1, "e": 1.5}),
        ("2", "3", "f", 0, "+", {"d": "a", "e": "b"}),
        ("3", "4", "f", 0, "+", {"d": 1, "e": "b"}),
    ]
    assert answers("f(a, b){d: v, e: w}, v < w", edges, 0) == {("1", "2")}
    assert answers("f(a, b){d: v, e: w}, v != w", edges, 0) == {("1", "2"), ("2", "3")}
    # a number added to a string is no value, whatever the other side
    assert answers("f(a, b){d: v, e: w}, v + 1 != w", edges, 0) == {("1", "2")}


def test_joins_on_property_variables():
    late = 'f(a, m){d: d1}, f(m, b){d: d2, c: "AA"}, d2 > d1 + 30'
    assert answers(late, FLIGHTS, 5) == {("1", "3")}
    edges = [
        ("1", "2", "f", 0, "+", {"d": 2}),
        ("2", "3", "f", 0, "+", {"d": 2.0}),
        ("3", "4", "f", 0, "+", {"d": "2"}),
    ]
    # one variable in two atoms: equal values, 2 and 2.0 alike, "2" unlike
    assert answers("f(a, m){d: v}, f(m, b){d: v}", edges, 0) == {("1", "3")}
    # twice in one atom's braces
    assert answers("f(a, b){d: v, e: v}", [("1", "2", "f", 0, "+", {"d": 1, "e": 1.0})], 0) == {
        ("1", "2")
    }


def test_tests_that_differ_only_by_quotes_stay_apart():
    # `d = 2` and `d = "2"` are equal syntax trees (quotes take no part in a constant's
    # equality) but different tests
    edges = [("1", "2", "f", 0, "+", {"d": 2.0}), ("2", "3", "f", 0, "+", {"d": "2"})]
    checked = check_text(
        '.window 9\nNum(a, b) :- [f{d = 2}](a, b).\nStr(a, b) :- [f{d = "2"}](a, b).\n'
        'Both(a, b) :- f(a, b){d: 2}@t, f(a, b){d: "2"}@u.\n.output Num, Str, Both\n',
        "t.dl",
    )
    assert output_snapshot(checked, edges, 0) == {("1", "2", "Num"), ("2", "3", "Str")}


def test_path_labels_with_tests():
    assert answers("[f{d < 50}+](a, b)", FLIGHTS, 5) == {("1", "2"), ("2", "3"), ("1", "3")}
    assert answers('[f{c = "AA"} | f{d = "x"}](a, b)', FLIGHTS, 5) == {("2", "3"), ("3", "4")}
    assert answers('[f{d != "x"}](a, b)', FLIGHTS, 5) == set()


def test_tuples_differ_by_properties_and_deletions_match_given_ones():
    checked = check_text(".window 100\nAnswer(a, b) :- f(a, b).\n", "t.dl")
    # equal values coalesce (10 and 10.0), other values are other tuples
    edges = [("1", "2", "f", 0, "+", {"d": 10}), ("1", "2", "f", 1, "+", {"d": 10.0})]
    assert len(input_tuples(checked, edges, 2)) == 1
    edges += [("1", "2", "f", 1, "+", {"d": "10"}), ("1", "2", "f", 1, "+", {})]
    assert len(input_tuples(checked, edges, 2)) == 3
    # a '-' giving d = 10 deletes the two tuples that have it equal, not the others
    cut = [*edges, ("1", "2", "f", 2, "-", {"d": 10.0})]
    assert {dict(p).get("d") for *_k, p in input_tuples(checked, cut, 2)} == {"10", None}
    assert input_snapshot(checked, cut, 2) == {("1", "2", "f")}
    # a '-' giving nothing deletes them all; one giving a value no tuple has, none
    assert input_snapshot(checked, [*edges, ("1", "2", "f", 2, "-", {})], 2) == set()
    assert input_snapshot(checked, [*edges, ("1", "2", "f", 2, "-")], 2) == set()
    assert len(input_tuples(checked, [*edges, ("1", "2", "f", 2, "-", {"e": 1})], 2)) == 3


def test_start_of_a_braced_atom_is_that_of_the_tuple_it_sees():
    edges = [
        ("1", "2", "f", 0, "+", {"d": 1}),
        ("5", "6", "g", 2, "+", {}),
        ("1", "2", "f", 3, "+", {"d": 2}),
        ("1", "2", "f", 4, "+", {"d": 1.0, "e": 7}),
    ]
    checked = check_text(
        ".window 100\nAnswer(a, b) :- f(a, b){d: _}@t1, g(x, y)@t2, t1 > t2.\n"
        "Plain(a, b) :- f(a, b)@t1, g(x, y)@t2, t1 > t2.\n"
        "Seen(a, b) :- f(a, b){d: 1}@t1, g(x, y)@t2, t1 > t2.\n"
        ".output Answer, Plain, Seen\n",
        "t.dl",
    )
    snaps = output_snapshots(checked, edges)
    # the pair runs from 0; the tuple with d = 2 from 3; the one with d = 1 from 0, however
    # many edges (`e` or not) have that value
    assert snaps[4] == {("1", "2", "Answer")}
    # once the d = 2 tuple is deleted, no tuple seen by the atom started after g's
    gone = [*edges, ("1", "2", "f", 6, "-", {"d": 2})]
    assert output_snapshots(checked, gone)[6] == set()
