"""PATTERN as delta joins over the inputs' live tuples (thesis Def 33; specs/semantics.md
§4b, §6).

A batch's new combinations each hold at least one tuple that changed in the batch (new or
widened), so the candidates are the union over inputs i of

    Δ_i ⋈ live_1 ⋈ ... (every input but i) ... ⋈ live_n

each joined on the rule's shared variables (a variable bound twice in one atom first filters
`src = trg`), in an order that always joins next the input sharing the most variables with
what is bound so far (a cross join only for atoms that share none). Combinations of unchanged
tuples are found again when a delta holds one of them twice; the semiring merge
(spark_engine/coverage.py) makes that harmless. A combination is valid on the intersection
of its tuples' intervals: `ts = max ts_i`, `exp = min exp_i`. VarConditions (`x != y`,
`x = "c"`) filter the combinations; time conditions (`t1 < t2 + d`) compare the starts of
the tuples bound to the named atoms, which are the starts of their runs of validity: the
stored `ts` (a start never changes while its tuple stays valid, §4b); property conditions
(`d2 > d1 + 30`, §4c) compare the encoded values bound to two variables through ATTRIBUTE
inputs (spark_engine/property_values.py). Each join broadcasts
a side known to be small (exact counts from the flush of the inputs: Spark has no estimate
for a checkpointed table): a live input, or else the delta into its first join, so the
large live tuples stay where they are; otherwise Spark hash-partitions both sides on the
join's variables.
"""

from __future__ import annotations

from pyspark.sql import DataFrame

from ..sga.algebra import Pattern
from .batch_context import BatchContext
from .property_values import condition_sql
from .relation import Relation
from .selects import union_all
from .sql_text import greatest, least, literal


def _var(name: str) -> str:
    return f"v_{name}"


def _bound(df: DataFrame, binding: tuple[str, str], i: int) -> DataFrame:
    """Input i's tuples as columns of its variables plus `ts_i`, `exp_i`."""
    s, t = binding
    times = (f"ts AS ts_{i}", f"exp AS exp_{i}")
    if s == t:
        return df.filter("src = trg").selectExpr(f"src AS {_var(s)}", *times)
    return df.selectExpr(f"src AS {_var(s)}", f"trg AS {_var(t)}", *times)


def _tests(node: Pattern) -> list[str]:
    """The VarConditions, time and property conditions of `node` as SQL predicates."""
    tests = []
    for c in node.conditions:
        right = literal(str(c.right)) if c.right_const else _var(c.right)
        tests.append(f"{_var(c.left)} {'=' if c.op == '=' else '!='} {right}")
    start_of = {name: f"ts_{i}" for i, name in enumerate(node.times) if name is not None}
    for c in node.time_conditions:
        op = "<>" if c.op == "!=" else c.op
        tests.append(f"{start_of[c.left]} {op} {start_of[c.right]} + ({c.offset})")
    tests += [condition_sql(c, _var(c.left), _var(c.right)) for c in node.property_conditions]
    return tests


def _delta_rule(node: Pattern, first: int, frames: list[DataFrame], small: list[bool]) -> DataFrame:
    """The combinations holding input `first`'s delta (`frames[first]`) and the other
    inputs' live tuples; `small[j]`: frame j may be broadcast (the delta only to its first
    join: what it joins with may grow it)."""
    bindings = node.bindings
    joined = frames[first].hint("broadcast") if small[first] else frames[first]
    bound = set(bindings[first])
    rest = [j for j in range(len(bindings)) if j != first]
    while rest:
        j = max(rest, key=lambda k: (len(bound & set(bindings[k])), -k))
        rest.remove(j)
        shared = sorted(bound & set(bindings[j]))
        other = frames[j].hint("broadcast") if small[j] else frames[j]
        if shared:
            joined = joined.join(other, [_var(v) for v in shared])
        else:
            joined = joined.crossJoin(other)
        bound |= set(bindings[j])
    tests = _tests(node)
    if tests:
        joined = joined.filter(" AND ".join(f"({t})" for t in tests))
    n = len(bindings)
    return joined.selectExpr(
        f"{_var(node.head[0])} AS src",
        f"{_var(node.head[1])} AS trg",
        f"{greatest([f'ts_{i}' for i in range(n)])} AS ts",
        f"{least([f'exp_{i}' for i in range(n)])} AS exp",
    )


def pattern(node: Pattern, ctx: BatchContext) -> Relation:
    """The batch's new combinations, coalesced per head key."""
    if len(node.inputs) > 1:  # each input is read by every delta rule: make it final once
        ctx.store.flush()
    inputs = [ctx.input(i) for i in node.inputs]
    deltas = [r.delta for r in inputs]
    if all(d is None for d in deltas):
        return ctx.carry(node)
    lives = [_bound(r.live, b, i) for i, (r, b) in enumerate(zip(inputs, node.bindings))]
    sizes = [r.sizes() or (None, None) for r in inputs]
    small_live = [ctx.store.broadcastable(live) for live, _delta in sizes]
    rules = []
    for i, delta in enumerate(deltas):
        if delta is None:
            continue
        frames = list(lives)
        frames[i] = _bound(delta, node.bindings[i], i)
        small = list(small_live)
        # the delta goes to the live tuples, unless they are the smaller side
        small[i] = ctx.store.broadcastable(sizes[i][1]) and not any(
            small_live[j] for j in range(len(inputs)) if j != i
        )
        rules.append(_delta_rule(node, i, frames, small))
    return ctx.coalesce(node, union_all(rules))
