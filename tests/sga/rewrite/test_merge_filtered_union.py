"""Rule 4 of the thesis (merge_filtered_union): the equivalence property (rule_support.py), on plans
with FILTERs over WSCANs and UNIONs (filter_program)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from rule_support import EXAMPLES, check_filter_rule
from sgq.sga.algebra import EdgeCondition, Filter, Union, WScan
from sgq.sga.rewrite.merge_filtered_union import merge_filtered_union

SPLITS = (
    EdgeCondition("src", "=", "1", right_const=True),
    EdgeCondition("trg", "=", "2", right_const=True),
    EdgeCondition("src", "=", "trg"),
)


def split_filter(op):
    """The rule read right to left: σ_Φ(S) as σ_{Φ∧c}(S) ∪ σ_{Φ∧¬c}(S), or as S ∪ σ_{Φ∧c}(S)
    (a FILTER, or a WSCAN as σ_true), for a few conditions c."""
    if not isinstance(op, (Filter, WScan)):
        return ()
    base, conds = (op.input, op.conditions) if isinstance(op, Filter) else (op, ())
    out = []
    for c in SPLITS:
        negated = EdgeCondition(c.left, "!=" if c.op == "=" else "=", c.right, c.right_const)
        out.append(Union((Filter(base, conds + (c,)), Filter(base, conds + (negated,))), op.label))
        out.append(Union((op, Filter(base, conds + (c,))), op.label))
    return tuple(out)


@settings(max_examples=EXAMPLES)
@given(st.data())
def test_merge_filtered_union_keeps_every_snapshot(data):
    check_filter_rule(data, merge_filtered_union, split_filter)
