"""Rules 7 and 8 of the thesis (6.2.1), commutativity and associativity of PATTERN: the
groupings of a join into nested joins, both ways.

- **nest**: two inputs `i, j` of an n-ary PATTERN become one input, the PATTERN of the two
  projected on the two variables the rest of the rule still needs (other inputs, the head,
  the conditions); thesis 6.5.3's star plans Q1s-Q4s and path plans Q2p/Q3p are such groupings:

      PATTERN[src1, trg3 -> A](trg1 = src2, trg2 = src3)
        a b c
    ->
      PATTERN[src1, trg2 -> A](trg1 = src2)
        a
        PATTERN[src1, trg2 -> [b/c]](trg1 = src2)
          b c

- **flatten**: an input that is itself a PATTERN is inlined, its variables other than its
  head renamed apart (the inverse; it lets a grouping another rewrite made be regrouped).

Sound because PATTERN is snapshot-reducible to a conjunctive query (thesis Lemma 2), whose
projection of an inner join on the variables used outside it is the same query; the validity
of a result is a max over combinations of a min over tuples, and max-min distributes over the
nesting (specs/semantics.md §6). Commutativity (rule 7) is the order of `inputs`, which the
physical PATTERN ignores (it plans its join order per slide from index fan-out,
incremental/operators/join_plan.py), so no plan differs by it alone. Side conditions: exactly
two variables of the pair are needed outside it (PATTERN's output is a pair), and for
flatten the inner PATTERN's head and the outer binding each name two distinct variables; no
PATTERN with time conditions (specs/semantics.md §4b) is regrouped.
"""

from __future__ import annotations

from ..algebra import Op, Pattern, VarCondition

NAME = "associate_pattern"
THESIS_RULE = 8


def _condition_vars(p: Pattern) -> set[str]:
    out = set()
    for c in p.conditions:
        out.add(c.left)
        if not c.right_const:
            out.add(c.right)
    return out


def timed(p: Pattern) -> bool:
    """Whether `p` compares time variables (specs/semantics.md §4b) or property values
    (§4c): each timed atom's own start must stay visible, and the rules carry no property
    condition over, so such a PATTERN is neither grouped nor inlined (`Pattern.fixed`)."""
    return isinstance(p, Pattern) and p.fixed()


def nest(p: Pattern, i: int, j: int) -> Pattern | None:
    """`p` with inputs `i < j` grouped into one inner PATTERN, or None when the pair shares no
    variable, the rest of `p` needs other than two of its variables, or `p` is timed."""
    if timed(p):
        return None
    pair = (*p.bindings[i], *p.bindings[j])
    if not set(p.bindings[i]) & set(p.bindings[j]):
        return None
    outside = set(p.head) | _condition_vars(p)
    for k, b in enumerate(p.bindings):
        if k not in (i, j):
            outside.update(b)
    needed = list(dict.fromkeys(v for v in pair if v in outside))
    if len(needed) != 2:
        return None
    src, trg = needed
    inner = Pattern(
        (p.inputs[i], p.inputs[j]),
        (p.bindings[i], p.bindings[j]),
        (src, trg),
        f"[{p.inputs[i].label}⋈{p.inputs[j].label}]",
    )
    inputs = list(p.inputs)
    bindings = list(p.bindings)
    inputs[i], bindings[i] = inner, (src, trg)
    del inputs[j], bindings[j]
    return Pattern(tuple(inputs), tuple(bindings), p.head, p.label, p.conditions)


def flatten(p: Pattern, i: int) -> Pattern | None:
    """`p` with its input `i`, a PATTERN, inlined; None when that input is no PATTERN, its
    head or its binding in `p` repeats a variable, or either is timed."""
    q = p.inputs[i]
    s, t = p.bindings[i]
    if not isinstance(q, Pattern) or q.head[0] == q.head[1] or s == t or timed(p) or timed(q):
        return None
    used = {v for b in p.bindings for v in b} | set(p.head) | _condition_vars(p)
    rename = {q.head[0]: s, q.head[1]: t}
    counter = 0
    for v in dict.fromkeys(v for b in q.bindings for v in b):
        if v in rename:
            continue
        while True:
            counter += 1
            name = f"_f{counter}"
            if name not in used:
                break
        rename[v] = name
    bindings = tuple((rename[a], rename[b]) for a, b in q.bindings)
    conditions = tuple(
        VarCondition(
            rename[c.left], c.op, c.right if c.right_const else rename[c.right], c.right_const
        )
        for c in q.conditions
    )
    return Pattern(
        p.inputs[:i] + q.inputs + p.inputs[i + 1 :],
        p.bindings[:i] + bindings + p.bindings[i + 1 :],
        p.head,
        p.label,
        p.conditions + conditions,
    )


def associate_pattern(op: Op) -> tuple[Op, ...]:
    """Every nesting of two inputs of an n-ary (n >= 3) PATTERN and every flattening of a
    PATTERN input; `()` when `op` is no PATTERN or none applies."""
    if not isinstance(op, Pattern):
        return ()
    out: list[Op] = []
    n = len(op.inputs)
    if n >= 3:
        for i in range(n):
            for j in range(i + 1, n):
                nested = nest(op, i, j)
                if nested is not None:
                    out.append(nested)
    for i in range(n):
        flat = flatten(op, i)
        if flat is not None:
            out.append(flat)
    return tuple(dict.fromkeys(out))
