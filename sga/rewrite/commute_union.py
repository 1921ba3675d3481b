"""Rule 1 of the thesis (6.2.1), commutativity of UNION: S_a ∪[d] S_b ≡ S_b ∪[d] S_a.

    UNION[d]              ->   UNION[d]
      RENAME[a -> d]             RENAME[b -> d]
      RENAME[b -> d]             RENAME[a -> d]

A snapshot of a UNION is the union of its inputs' snapshots (thesis Lemma 2), and per key
the validity is the max over inputs, which is symmetric. The physical UNION
(incremental/operators/union.py) treats its inputs alike, so no plan differs in cost by this
rule alone: the optimizer does not explore it (sga/rewrite/equivalences.py), it is here with
its test as part of the algebra.
"""

from __future__ import annotations

from ..algebra import Op, Union

NAME = "commute_union"
THESIS_RULE = 1


def commute_union(op: Op) -> tuple[Op, ...]:
    """Every UNION with two neighbouring inputs swapped; `()` when `op` is no UNION of two or
    more distinct inputs."""
    if not isinstance(op, Union) or len(op.inputs) < 2:
        return ()
    out: list[Op] = []
    for i in range(len(op.inputs) - 1):
        inputs = list(op.inputs)
        inputs[i], inputs[i + 1] = inputs[i + 1], inputs[i]
        if inputs != list(op.inputs):
            out.append(Union(tuple(inputs), op.label))
    return tuple(dict.fromkeys(out))
