"""The lowering of property predicates (specs/semantics.md §4c, specs/plans.md) and their
statistics: what WSCAN tests, what it carries, and what the cost model expects of them."""

from __future__ import annotations

import pytest
from sgq.datalog.check import check_text
from sgq.sga.algebra import Attribute, Pattern, PropertyTest, WScan, properties_read
from sgq.sga.cost.plan_cost import CostModel
from sgq.sga.cost.statistics import collect, loads
from sgq.sga.translate import translate

HEADER = ".window 10\n.output A\n"


def scans(text: str) -> list[WScan]:
    plan = translate(check_text(HEADER + text))
    return [n for n in plan.nodes() if isinstance(n, WScan) and n.source]


def test_a_comparison_with_a_constant_is_a_test_of_the_scan():
    (scan,) = scans('A(x, y) :- flight(x, y){delay: d, carrier: "AA"}, d - 5 < 10, 2 <= d.')
    assert set(scan.properties) == {
        PropertyTest("carrier", "=", "AA"),
        PropertyTest("delay", "<", 15),
        PropertyTest("delay", ">=", 2),
    }
    assert scan.carries == () and scan.label.startswith("flight{")


def test_a_shared_variable_reifies_both_atoms_and_joins_on_the_value():
    plan = translate(check_text(HEADER + "A(x, z) :- p(x, y){k: v}, p(y, z){k: v}."))
    (pattern,) = [n for n in plan.nodes() if isinstance(n, Pattern)]
    parts = [n.part for n in pattern.inputs if isinstance(n, Attribute)]
    assert parts == [-1, 0, -1, 0]
    assert properties_read(plan) == {"p": ("k",)}


def test_a_path_label_test_is_its_own_scan_and_letter():
    (scan,) = scans("A(x, y) :- [(p{w >= 3} | q)*](x, y).")
    assert scan.properties == (PropertyTest("w", ">=", 3),) and scan.source == "p"


def test_statistics_give_each_property_its_figures_and_the_tests_their_share():
    edges = [
        ("a", "b", "flight", t, "+", {"delay": t % 20, "carrier": "AA" if t % 4 else "UA"})
        for t in range(100)
    ]
    stats = loads(collect(edges).dumps())
    delay = stats.properties["flight"]["delay"]
    assert (delay.present, delay.minimum, delay.maximum, delay.distinct) == (100, 0, 19, 20)
    assert stats.selectivity("flight", "delay", "<", 5) == pytest.approx(5 / 19)
    assert stats.selectivity("flight", "carrier", "=", "AA") == pytest.approx(0.5)
    assert stats.selectivity("flight", "carrier", "<", "AA") < 0.05  # strings: no order
    narrow = translate(check_text(HEADER + "A(x, y) :- flight(x, y){delay: d}, d < 2."))
    wide = translate(check_text(HEADER + "A(x, y) :- flight(x, y){delay: d}, d < 18."))
    rate = [CostModel(stats).of(p.outputs[0]).estimate.rate for p in (narrow, wide)]
    assert rate[0] < rate[1]
