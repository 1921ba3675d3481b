"""What each physical operator costs per unit of application time (thesis 6.3.2, Operator
Formulas 8-12, eqs. 6.18-6.28), from its inputs' and its output's estimates (estimates.py).
A plan costs the sum of its distinct operators (thesis 6.3.2, last paragraph).

The weights of Table 6.1 (`Weights`: C_O, C_σ, U_h, P_h, U_pq, P_pq) are 1: one hash or heap
step each; the thesis sets them empirically (6.5.1), which here is a factor per operator kind
on these formulas (calibration.py, applied by plan_cost.py), measured on the bench programs. One departure, for the n-ary PATTERN: the thesis's probe cost
P = P_h (6.23) is one lookup into the other input of a binary join; an arrival at input i of
an n-ary PATTERN walks the other inputs one after another, so its probe cost is P_h times the
partial matches along the order incremental/operators/join_plan.py would pick (smallest
fan-out first), which is what makes a grouping of the join cheaper or dearer than the flat
join.
"""

from __future__ import annotations

import math

import attrs

from ...base.dfa import compile_regex
from ..algebra import (
    Attribute,
    BoundPath,
    Filter,
    Op,
    Path,
    Pattern,
    Rename,
    Union,
    Vertices,
    WScan,
)
from .estimates import StreamEstimate, variable_distincts


@attrs.frozen
class Weights:
    """Table 6.1's unit costs."""

    output: float = 1.0  # C_O: push one sgt to the consumers
    predicate: float = 1.0  # C_σ: evaluate a FILTER predicate
    hash_update: float = 1.0  # U_h
    hash_probe: float = 1.0  # P_h
    heap_update: float = 1.0  # U_pq
    heap_probe: float = 1.0  # P_pq


def _log(x: float) -> float:
    return math.log2(max(x, 1.0) + 1.0)


def partial_matches(op: Pattern, inputs: list[StreamEstimate], i: int) -> float:
    """Partial results one arrival at input i makes while joining the others, greedily
    smallest fan-out first (a disconnected input multiplies by its whole content)."""
    by_var = variable_distincts(op.bindings, inputs)
    bound = set(op.bindings[i])
    left = [j for j in range(len(inputs)) if j != i]
    partial = total = 1.0
    while left:
        best_j, best_g = left[0], math.inf
        for j in left:
            g = inputs[j].size
            for v in set(op.bindings[j]) & bound:
                g /= max(max(by_var[v]), 1.0)
            if g < best_g:
                best_j, best_g = j, g
        partial *= max(best_g, 0.0)
        total += partial
        bound.update(op.bindings[best_j])
        left.remove(best_j)
    return total


def pattern_cost(
    op: Pattern, inputs: list[StreamEstimate], out: StreamEstimate, w: Weights
) -> float:
    """Formula 11 (6.21-6.24): Σ_i r_i · (I_i + P_i + E_i) + r_O · C_O, with
    I_i = E_i = U_h + U_pq · log(r_i v_i) and P_i = P_h · partial matches."""
    total = out.rate * w.output
    for i, e in enumerate(inputs):
        keep = w.hash_update + w.heap_update * _log(e.size)
        total += e.rate * (2 * keep + w.hash_probe * partial_matches(op, inputs, i))
    return total


def path_cost(
    op: Path | BoundPath, inputs: list[StreamEstimate], out: StreamEstimate, w: Weights
) -> float:
    """Formula 12 (6.25-6.28): r_i · (I + E) + r_O · C_O with n the snapshot's vertices and k
    the states of the minimal DFA:
    I = P_h n k² + U_pq n k log(n k) + U_h k,
    E = P_h n² k + P_pq n log n + U_pq n k log(n k) + U_h k."""
    rate = sum(e.rate for e in inputs)
    n = max((e.vertices for e in inputs), default=1.0)
    k = compile_regex(op.regex).size
    insert = w.hash_probe * n * k * k + w.heap_update * n * k * _log(n * k) + w.hash_update * k
    expire = (
        w.hash_probe * n * n * k
        + w.heap_probe * n * _log(n)
        + w.heap_update * n * k * _log(n * k)
        + w.hash_update * k
    )
    return rate * (insert + expire) + out.rate * w.output


def operator_cost(
    op: Op, inputs: list[StreamEstimate], out: StreamEstimate, w: Weights = Weights()
) -> float:
    """Cost per unit time of `op` given its inputs' estimates (in `children` order; for a WSCAN
    with conditions, the unfiltered stream's) and its own output estimate."""
    if isinstance(op, WScan):
        if op.conditions or op.properties:  # rule 12: Formula 9 (6.19) on the raw stream
            return inputs[0].rate * w.predicate + out.rate * w.output
        return out.rate * w.output  # Formula 8 (6.18); over several labels (rule 13) alike
    if isinstance(op, Filter):
        return inputs[0].rate * w.predicate + out.rate * w.output  # Formula 9 (6.19)
    if isinstance(op, (Union, Rename, Vertices, Attribute)):
        return out.rate * w.output  # Formula 10 (6.20); RENAME and VERTICES alike
    if isinstance(op, Pattern):
        return pattern_cost(op, inputs, out, w)
    if isinstance(op, Path):
        return path_cost(op, inputs[: len(op.inputs)], out, w)
    if isinstance(op, BoundPath):  # at most its PATH's (bound to fewer roots)
        return path_cost(op, inputs[:-1], out, w)
    raise TypeError(f"no cost for {type(op).__name__}")  # pragma: no cover
