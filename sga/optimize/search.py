"""The cheapest plans of a memo under the cost model (thesis 6.4: Cascades-style search, the
plan costing the sum of its operators, 6.3.2).

Bottom-up over the groups, each keeps its `keep` cheapest sub-plans: every expression with
every combination of its children groups' kept sub-plans, priced as the summed cost of the
distinct operators under it (a shared node counts once). The outputs' groups then give whole
plans, ranked by cost. The plan `sgq` runs today is always among them (it is what the memo
started from), and `optimize` keeps it unless a plan is estimated cheaper by the factor
`MARGIN`: the model is calibrated per operator kind only (sga/cost/calibration.py), not per
plan shape (a nested PATTERN's coalesced output, for one, is priced as a flat one's), so a
small estimated gain is no reason to change a plan that is known to work. The rules of
`EXACT` (sga/rewrite/equivalences.py) change no plan shape, only the number of operators doing
the same work, so they are then applied to the plan to run wherever its estimated cost drops
(`apply_exact`), margin or not.
"""

from __future__ import annotations

import itertools
from collections.abc import Generator

import attrs

from ..algebra import Op, Plan, children, map_plan
from ..cost.plan_cost import CostModel
from ..cost.statistics import StreamStatistics
from ..rewrite.equivalences import EXACT, RULES
from .memo import Memo, with_children

#: a plan replaces today's only when estimated to cost at most this fraction of it (at 0.5 the
#: flat join of RPQ Q11 on snb, estimated cheaper than today's nested one, replaced it and
#: ran slower: docs/optimizer.md)
MARGIN = 0.25
#: sub-plans kept per group
KEEP = 6
#: combinations of its children's kept sub-plans priced per expression, the cheapest-ranked
#: first: all of them grow as KEEP to the expression's arity (a generated 6-atom rule would
#: price a hundred thousand of them)
COMBINATIONS = 2 * KEEP
#: sub-plans the search may price in all (the spec programs' most: 44): a program whose
#: memo holds more alternatives than that (a rule joining dozens of atoms, two thousand
#: expressions) runs today's plan, and `sgq explain --optimize` says so, rather than spend
#: seconds ranking them
MAX_PRICED = 1000


class _BudgetSpent(Exception):
    """The search priced `MAX_PRICED` sub-plans without finishing."""


@attrs.frozen
class RankedPlan:
    plan: Plan
    cost: float


@attrs.frozen
class Optimized:
    """The optimizer's answer: `chosen` (what runs), `today` (the plan without the optimizer)
    with its cost, the `ranked` alternatives (cheapest first), whether the memo's budget
    ran out (`exhausted`), how many expressions were too wide to explore (`skipped`: kept as
    the rewrite passes left them, memo.MAX_WIDTH), and whether the search gave up after
    `MAX_PRICED` sub-plans (`spent`: then `chosen` is `today`)."""

    chosen: RankedPlan
    today: RankedPlan
    ranked: tuple[RankedPlan, ...]
    groups: int
    expressions: int
    exhausted: bool
    skipped: int = 0
    spent: bool = False


class _Search:
    def __init__(self, memo: Memo, model: CostModel, keep: int) -> None:
        self.memo, self.model, self.keep = memo, model, keep
        self.best: dict[int, list[Op]] = {}
        self.active: set[int] = set()
        self.priced = 0

    def cost(self, op: Op) -> float:
        self.priced += 1
        if self.priced > MAX_PRICED:
            raise _BudgetSpent
        return self.model.total((op,))

    def plans(self, group: int) -> list[Op]:
        """The `keep` cheapest sub-plans of `group` (computed once per group); iteratively,
        each group's `_ranked` a generator that asks for its children groups' plans, so the
        memo of a long chain of predicates is searched without deep recursion."""
        got = self.best.get(group)
        if got is not None:
            return got
        stack = [self._ranked(group)]
        value: list[Op] | None = None
        while stack:
            try:
                wanted = stack[-1].send(value)
            except StopIteration as done:
                stack.pop()
                value = done.value
                continue
            stack.append(self._ranked(wanted))
            value = None
        assert value is not None
        return value

    def _ranked(self, group: int) -> Generator[int, list[Op] | None, list[Op]]:
        """`group`'s cheapest sub-plans: yields a child group whose plans it needs (and is
        sent them), returns its own."""
        self.active.add(group)
        found: dict[Op, float] = {}
        for expr in self.memo.groups[group]:
            kid_groups = [self.memo.group_of[c] for c in children(expr)]
            if any(g in self.active for g in kid_groups):
                continue  # an expression reading its own group: never cheaper
            choices = []
            for g in kid_groups:
                got = self.best.get(g)
                if got is None:
                    got = yield g
                choices.append(got)
            for combo in _combinations(choices, COMBINATIONS):
                op = with_children(expr, list(combo))
                if op not in found:
                    found[op] = self.cost(op)
        self.active.discard(group)
        ranked = sorted(found, key=found.__getitem__)[: self.keep]
        self.best[group] = ranked
        return ranked


def _combinations(choices: list[list[Op]], limit: int):
    """Tuples of one sub-plan per list of `choices` (each list cheapest first), by rising sum
    of their ranks, at most `limit`: the one of every list's cheapest first, and only what
    is nearest to it after."""
    sizes = [len(c) for c in choices]
    count = 0
    for total in range(sum(sizes) - len(sizes) + 1):
        for ranks in _ranks_summing(total, sizes):
            yield tuple(c[r] for c, r in zip(choices, ranks))
            count += 1
            if count >= limit:
                return


def _ranks_summing(total: int, sizes: list[int]):
    """Every tuple of ranks `r_i < sizes[i]` summing to `total` (the first rank slowest: in
    lexicographic order). Iterative, O(len(sizes)) per tuple: an expression may read a
    thousand children (a UNION of as many rules)."""
    n = len(sizes)
    room = [0] * (n + 1)  # room[i]: the largest sum of the ranks from i on
    for i in range(n - 1, -1, -1):
        room[i] = room[i + 1] + sizes[i] - 1
    if total < 0 or total > room[0] or any(size < 1 for size in sizes):
        return
    ranks = [0] * n

    def fill(start: int, left: int) -> None:  # the smallest ranks from `start` summing to left
        for j in range(start, n):
            ranks[j] = max(0, left - room[j + 1])
            left -= ranks[j]

    fill(0, total)
    while True:
        yield tuple(ranks)
        after = 0  # the sum of the ranks after i
        for i in range(n - 2, -1, -1):
            after += ranks[i + 1]
            if ranks[i] < sizes[i] - 1 and after >= 1:
                ranks[i] += 1
                fill(i + 1, after - 1)
                break
        else:
            return


def has_alternatives(plan: Plan, memo: Memo | None = None) -> bool:
    """Whether the rules give `plan` any equivalent other than itself (a few ms: one rule
    application per node at most, nothing explored): when not, there is nothing to choose
    and no statistics to read."""
    memo = memo or Memo()
    for op in plan.outputs:
        memo.insert(op)
    return memo.any_alternative()


def optimize(
    plan: Plan, stats: StreamStatistics, *, alternatives: int = 1, memo: Memo | None = None
) -> Optimized:
    """Explore `plan`'s equivalents and rank them by estimated cost over `stats`; the plan to
    run is the cheapest when it beats `plan` by `MARGIN`, else `plan` itself. `alternatives`:
    how many ranked plans to keep (for `sgq explain --plans N`)."""
    memo = memo or Memo()
    roots = [memo.insert(op) for op in plan.outputs]
    memo.explore()
    model = CostModel(stats)
    search = _Search(memo, model, max(KEEP, alternatives))
    try:
        per_root = [search.plans(g) for g in roots]
    except _BudgetSpent:  # today's plan, unranked
        today = RankedPlan(plan, model.total(plan.outputs))
        groups, expressions = len(memo.groups), memo.expressions
        return Optimized(today, today, (today,), groups, expressions, True, memo.skipped, True)
    whole: dict[tuple[Op, ...], float] = {}
    for combo in itertools.islice(itertools.product(*per_root), 10_000):
        whole[combo] = model.total(combo)
    today = RankedPlan(plan, model.total(plan.outputs))
    ranked = [
        RankedPlan(attrs.evolve(plan, outputs=outs), cost)
        for outs, cost in sorted(whole.items(), key=lambda item: item[1])
    ]
    best = ranked[0] if ranked else today
    chosen = best if best.cost <= MARGIN * today.cost else today
    exact = apply_exact(chosen.plan, model)
    if exact is not chosen.plan:
        chosen = RankedPlan(exact, model.total(exact.outputs))
    return Optimized(
        chosen,
        today,
        tuple(ranked[: max(1, alternatives)]),
        len(memo.groups),
        memo.expressions,
        memo.exhausted,
        memo.skipped,
    )


def apply_exact(plan: Plan, model: CostModel) -> Plan:
    """`plan` with the rules of `EXACT` applied, one node at a time, while one lowers the
    plan's estimated cost (a node shared with another consumer keeps its own operator, so the
    whole plan is priced); `plan` itself when none does."""
    cost = model.total(plan.outputs)
    while True:
        better = _cheaper_by_exact(plan, cost, model)
        if better is None:
            return plan
        plan, cost = better


def _cheaper_by_exact(plan: Plan, cost: float, model: CostModel) -> tuple[Plan, float] | None:
    """The first `plan` with one node rewritten by an `EXACT` rule that costs less than
    `cost`, with its cost; None when there is none."""
    rules = [RULES[name][1] for name in EXACT]
    for node in plan.nodes():
        for rule in rules:
            for alternative in rule(node):
                candidate = _replaced(plan, node, alternative)
                price = model.total(candidate.outputs)
                if price < cost:
                    return candidate, price
    return None


def _replaced(plan: Plan, node: Op, new: Op) -> Plan:
    """`plan` with the node `node` (that very object) replaced by `new`."""
    return map_plan(plan, lambda op: new if op is node else op)
