"""Rule 4 of the thesis (6.2.1), disjunctive FILTER predicates:
σ_Φ2(S) ∪ σ_Φ1(S) ≡ σ_{Φ1 ∨ Φ2}(S).

A FILTER of ours keeps a conjunction of conditions, so the rule applies where the disjunction
is itself one: when one conjunction implies the other (its conditions include the other's),
the disjunction is the weaker; and when the two differ in one condition and its negation
(`x = c` and `x != c`), the disjunction is the rest (no FILTER when nothing is left). An input
that is `S` itself is `σ_true(S)`.

    UNION[d]                          ->   UNION[d]
      FILTER[src = "1"]                      WSCAN[a]
        WSCAN[a]
      FILTER[src != "1"]
        WSCAN[a]

A snapshot of the UNION is the union of the two filtered snapshots, which is the snapshot
filtered by the disjunction (Lemma 2); a key in both keeps the max of its intervals, which
are the same interval of S. It pays one operator and the UNION's coalescing of those tuples.
"""

from __future__ import annotations

from ..algebra import EdgeCondition, Filter, Op, Union

NAME = "merge_filtered_union"
THESIS_RULE = 4

_NEGATION = {"=": "!=", "!=": "="}


def _split(op: Op) -> tuple[Op, frozenset]:
    if isinstance(op, Filter):
        return op.input, frozenset(op.conditions)
    return op, frozenset()


def _disjunction(a: frozenset, b: frozenset) -> frozenset | None:
    """The conditions of `a ∨ b` when that is a conjunction, else None."""
    if a <= b:
        return a
    if b <= a:
        return b
    only_a, only_b = a - b, b - a
    if len(only_a) == len(only_b) == 1:
        (x,), (y,) = only_a, only_b
        negated = EdgeCondition(x.left, _NEGATION[x.op], x.right, x.right_const)
        if negated == y:
            return a & b
    return None


def merge_filtered_union(op: Op) -> tuple[Op, ...]:
    """The UNION with two inputs that filter one stream merged into one FILTER of their
    disjunction, for every such pair; `()` when there is none."""
    if not isinstance(op, Union):
        return ()
    out: list[Op] = []
    parts = [_split(i) for i in op.inputs]
    for i in range(len(parts)):
        for j in range(i + 1, len(parts)):
            if parts[i][0] != parts[j][0]:
                continue
            either = _disjunction(parts[i][1], parts[j][1])
            if either is None:
                continue
            base = parts[i][0]
            kept = tuple(c for c in _ordered(op.inputs[i], op.inputs[j]) if c in either)
            merged = Filter(base, kept) if kept else base
            inputs = list(op.inputs)
            inputs[i] = merged
            del inputs[j]
            out.append(Union(tuple(dict.fromkeys(inputs)), op.label))
    return tuple(dict.fromkeys(out))


def _ordered(*ops: Op) -> tuple[EdgeCondition, ...]:
    """The conditions of the FILTERs among `ops`, first-occurrence order."""
    seen: dict = {}
    for o in ops:
        if isinstance(o, Filter):
            for c in o.conditions:
                seen.setdefault(c, None)
    return tuple(seen)
