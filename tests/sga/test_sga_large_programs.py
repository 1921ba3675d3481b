"""Large programs plan in time that grows with their size, never with a RecursionError (issue
69; specs/language.md "Limits", specs/plans.md §7): plan walks are iterative and keep the
order of the recursive walks they replaced, the optimizer's search is bounded and says so,
and the automata of long expressions are built in polynomial time."""

from __future__ import annotations

import itertools
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sgq.base.dfa import AutomatonTooLarge, compile_regex
from sgq.datalog.check import check_text
from sgq.sga.algebra import Plan, Rename, WScan, children, map_plan
from sgq.sga.cost.statistics import LabelStatistics, StreamStatistics
from sgq.sga.explain import explain_text, number
from sgq.sga.optimize.memo import MAX_WIDTH
from sgq.sga.optimize.report import optimized_text
from sgq.sga.optimize.search import MAX_PRICED, _ranks_summing, has_alternatives, optimize
from sgq.sga.translate import translate

LABELS = ("a", "b", "c", "a2q")
STATS = StreamStatistics(
    4000, 1000, {name: LabelStatistics(1000, 50, 50, 500, 40, 40) for name in LABELS}
)


def _recursive_nodes(plan: Plan) -> list:
    """Plan.nodes as it was written before issue 69 (the reference order)."""
    done: list = []
    index: dict = {}

    def visit(op) -> None:
        if op in index:
            return
        for child in children(op):
            visit(child)
        index[op] = None
        done.append(op)

    for root in plan.outputs:
        visit(root)
    return done


def _recursive_number(plan: Plan) -> dict:
    ids: dict = {}

    def visit(op) -> None:
        if op in ids:
            return
        ids[op] = len(ids) + 1
        for child in children(op):
            visit(child)

    for root in plan.outputs:
        visit(root)
    return ids


_RULES = st.sampled_from(
    [
        "{h}(x, y) :- {b}(x, y).",
        "{h}(x, y) :- {b}(x, z), a(z, y).",
        "{h}(x, y) :- {b}+(x, y).",
        "{h}(x, y) :- [{b}/b*](x, y).",
        "{h}(x, y) :- {b}(y, x), {b}(x, z), c(z, y).",
        '{h}(x, y) :- {b}(x, y), x != "v1".',
    ]
)


@settings(max_examples=60)
@given(st.lists(_RULES, min_size=1, max_size=8), st.lists(st.integers(0, 7), min_size=8))
def test_iterative_walks_keep_the_recursive_order(rules, reads):
    lines = [".window 10", "P0(x, y) :- a(x, y)."]
    for i, rule in enumerate(rules, start=1):
        lines.append(rule.format(h=f"P{i}", b=f"P{reads[i - 1] % i}"))
    lines.append(f"Answer(x, y) :- P{len(rules)}(x, y), P0(y, x).")
    plan = translate(check_text("\n".join(lines)))
    assert list(plan.nodes()) == _recursive_nodes(plan)
    assert number(plan) == _recursive_number(plan)
    assert map_plan(plan, lambda op: op) is plan


def test_a_plan_thousands_deep_is_walked_explained_and_priced():
    op = WScan("a", 10, 1)
    for i in range(1500):  # (built bottom-up, each node hashed as it is made)
        op = Rename(op, f"P{i}")
        hash(op)
    plan = Plan((op,))
    assert len(list(plan.nodes())) == 1501
    assert explain_text(plan).count("RENAME") == 1500
    renamed = map_plan(plan, lambda o: o)
    assert renamed is plan
    result = optimize(plan, STATS)
    assert result.chosen.plan == plan


def test_a_chain_of_derived_predicates_plans_to_the_bound():
    lines = [".window 10", "P0(x, y) :- a(x, y)."]
    lines += [f"P{i}(x, y) :- P{i - 1}(x, y)." for i in range(1, 249)]
    plan = translate(check_text("\n".join(lines) + "\n.output P248\n"))
    result = optimize(plan, STATS)
    assert result.chosen.plan == plan
    assert "RENAME" in explain_text(result.chosen.plan)


def test_a_thousand_label_concatenation_plans_in_well_under_a_second():
    text = ".window 10\nAnswer(x, y) :- [" + "/".join(["a2q"] * 1000) + "](x, y).\n"
    started = time.monotonic()
    plan = translate(check_text(text))
    assert not has_alternatives(plan)  # (so `sgq run` reads no statistics)
    result = optimize(plan, STATS)
    took = time.monotonic() - started
    assert took < 1.0, took
    assert result.skipped == 1 and result.chosen is result.today
    first = optimized_text(result, STATS, 0).splitlines()[0]
    assert f"1 operator wider than {MAX_WIDTH} kept as rewritten, unexplored" in first


def test_thirty_labels_are_not_explored_either():
    text = ".window 10\nAnswer(x, y) :- [" + "/".join(["a2q"] * 30) + "](x, y).\n"
    started = time.monotonic()
    result = optimize(translate(check_text(text)), STATS)
    assert time.monotonic() - started < 1.0
    assert result.skipped == 1


def test_a_search_past_its_budget_keeps_todays_plan_and_says_so():
    chain = ", ".join(f"a(x{i}, x{i + 1})" for i in range(32))
    plan = translate(check_text(f".window 10\nAnswer(x0, x32) :- {chain}.\n"))
    result = optimize(plan, STATS, alternatives=3)
    assert result.spent and result.chosen is result.today
    assert result.ranked == (result.today,)
    first = optimized_text(result, STATS, 3).splitlines()[0]
    assert f"search stopped after {MAX_PRICED} sub-plans priced" in first


def test_ranks_of_a_thousand_children():
    got = list(itertools.islice(_ranks_summing(1, [2] * 1000), 2))
    assert got == [(0,) * 999 + (1,), (0,) * 998 + (1, 0)]


@pytest.mark.parametrize(
    "regex",
    [
        ("concat", *(("label", f"l{i}") for i in range(1000))),
        ("alt", *(("label", f"l{i}") for i in range(1000))),
        ("star", ("alt", *(("label", f"l{i}") for i in range(1000)))),
    ],
    ids=["concat", "alt", "alt-star"],
)
def test_automata_of_a_thousand_letters_are_quick(regex):
    started = time.monotonic()
    dfa = compile_regex(regex)
    assert time.monotonic() - started < 2.0
    assert dfa.size in (1, 2, 1001)


def test_an_automaton_past_its_bound_is_refused_early():
    ab = ("alt", ("label", "a"), ("label", "b"))
    regex = ("concat", ("star", ab), ("label", "a"), *([ab] * 16))  # 2^17 states
    started = time.monotonic()
    with pytest.raises(AutomatonTooLarge):
        compile_regex(regex, limit=4096)
    assert time.monotonic() - started < 2.0
    assert compile_regex(("concat", ("star", ab), ("label", "a"), ab), limit=4096).size == 4
