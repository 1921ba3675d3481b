"""A plan's estimated cost: every distinct operator's output characteristics (estimates.py)
and cost per unit time (operator_costs.py), and their sum (thesis 6.3.2)."""

from __future__ import annotations

import attrs

from ..algebra import Op, Plan, WScan, children, postorder
from .calibration import CALIBRATION
from .estimates import StreamEstimate, estimate
from .operator_costs import Weights, operator_cost
from .statistics import StreamStatistics


@attrs.frozen
class OperatorCost:
    """One operator: its output's estimate and its own cost per unit time."""

    estimate: StreamEstimate
    cost: float


class CostModel:
    """Estimates and costs of plan nodes over one `StreamStatistics`, cached per node (a node
    is its whole sub-plan, so the cache holds across the plans the optimizer compares). Each
    operator's formula cost is multiplied by its kind's `calibration` factor (calibration.py;
    `{}`: the formulas as the thesis gives them)."""

    def __init__(
        self,
        stats: StreamStatistics,
        weights: Weights = Weights(),
        calibration: dict[type, float] = CALIBRATION,
    ) -> None:
        self.stats = stats
        self.weights = weights
        self.calibration = calibration
        self._costs: dict[Op, OperatorCost] = {}

    def of(self, op: Op) -> OperatorCost:
        """`op`'s estimate and own cost (its inputs first, recursively)."""
        got = self._costs.get(op)
        if got is None:
            for node in postorder((op,), self._costs):  # (iterative: plans of any depth)
                self._costs[node] = self._priced(node)
            got = self._costs[op]
        return got

    def _priced(self, op: Op) -> OperatorCost:
        """`op`'s estimate and cost, its children's already known."""
        inputs = [self._costs[child].estimate for child in children(op)]
        if isinstance(op, WScan) and (op.conditions or op.properties):  # rule 12: priced
            raw = attrs.evolve(op, conditions=(), properties=())  # on the raw stream
            inputs = [self._priced(raw).estimate]
        out = estimate(op, inputs, self.stats)
        factor = self.calibration.get(type(op), 1.0)
        return OperatorCost(out, factor * operator_cost(op, inputs, out, self.weights))

    def total(self, roots) -> float:
        """The summed cost of the distinct operators under `roots`."""
        return sum(self.of(op).cost for op in Plan(tuple(roots)).nodes())

    def per_operator(self, plan: Plan) -> dict[Op, OperatorCost]:
        return {op: self.of(op) for op in plan.nodes()}
