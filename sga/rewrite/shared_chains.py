"""Materialise the two-atom chains of a PATTERN (thesis 5.4: PATTERN decomposition, the
"loop-caching" plans of its Fig. 12 applied to joins).

A variable `m` that only links two atoms, `a(p, m), b(m, q)` (in either orientation), and that
neither the head nor a condition reads, can be projected out early: the pair of atoms becomes
one input, the PATTERN `[a/b](p, q)` over them. By specs/semantics.md §6 the validity of a result is
a max over combinations of a min over their tuples, and max-min distributes, so the nested plan
has the same snapshots (and, for a chain, the same witness: the edges in path order). What
changes is the work: the inner PATTERN's index holds each `(p, q)` once, with its largest exp,
and the inner operator emits only when that widens. A new tuple of a third atom then probes
the few `(p, q)` instead of every `(p, m, q)`.

It is applied in two shapes only, where it cannot blow up the intermediate result compared with
the flat join:
- **closing**: another atom already binds `{p, q}` (RL in SGA Q6/Q7: `knows+(x, y),
  likes(x, m), hasCreator(m, y)` becomes `knows+(x, y), [likes/hasCreator](x, y)`, a join on
  both endpoints);
- **chain**: the atoms form one path from the head's src to its trg (RPQ Q11,
  `[knows/likes/hasCreator]`): the last two atoms are merged until two remain, a right-deep
  plan `knows ⋈ (likes ⋈ hasCreator)`. On the snb stream the suffix `likes ⋈ hasCreator` is
  functional in `likes` (one creator per message), so its view is no larger than `likes` and a
  new `knows(x, a)` probes the distinct creators `a` liked, not every message.
A cycle without a closing atom (SGA Q5) keeps its flat join: merging two of its atoms would
materialise a product the remaining atoms filter.

`share_chains_plan` applies it to every PATTERN of a plan, keeping shared nodes shared. It is
the pass `shared_chains` of sga/rewrite/pipeline.py: `translate` runs it after the canonical
translation unless it is skipped by name (`PlanOptions(skip_rewrites={"shared_chains"})`,
`sgq run --no-rewrite shared_chains`: benchmark A/B runs, tests).
"""

from __future__ import annotations

import attrs

from ..algebra import Op, Pattern, Plan, map_plan
from .associate_pattern import nest


def _label(op: Op, forward: bool) -> str:
    name = getattr(op, "label", "?")
    return name if forward else f"^{name}"


def merge_pair(p: Pattern, i: int, j: int, m: str) -> Pattern:
    """`p` with atoms i and j (linked by `m`) replaced by their join projected on their other
    endpoints, at position min(i, j): associate_pattern.nest, the inner PATTERN named as the
    path it is (`[a/^b]`: `^` for an atom read against its direction)."""
    i, j = min(i, j), max(i, j)
    nested = nest(p, i, j)
    if nested is None:  # pragma: no cover - a projectable link leaves two ends outside
        raise AssertionError(f"no grouping of atoms {i}, {j} over {m!r}")
    a_fwd = p.bindings[i][1] == m
    b_fwd = p.bindings[j][0] == m
    inner = attrs.evolve(
        nested.inputs[i],
        label=f"[{_label(p.inputs[i], a_fwd)}/{_label(p.inputs[j], b_fwd)}]",
    )
    return attrs.evolve(nested, inputs=nested.inputs[:i] + (inner,) + nested.inputs[i + 1 :])


def projectable_links(p: Pattern) -> dict[str, list[int]]:
    """Variables that may be projected out, each with the two atoms it links."""
    uses: dict[str, list[int]] = {}
    for k, (s, t) in enumerate(p.bindings):
        for v in (s, t):
            uses.setdefault(v, []).append(k)
    blocked = set(p.head)
    for c in p.conditions:
        blocked.add(c.left)
        if not c.right_const:
            blocked.add(c.right)
    out = {}
    for v, atoms in uses.items():
        if v in blocked or len(atoms) != 2 or atoms[0] == atoms[1]:
            continue
        i, j = atoms
        other_i = p.bindings[i][0] if p.bindings[i][1] == v else p.bindings[i][1]
        other_j = p.bindings[j][0] if p.bindings[j][1] == v else p.bindings[j][1]
        if other_i != other_j:
            out[v] = [i, j]
    return out


def _chain_order(p: Pattern) -> list[str] | None:
    """The variables of `p` in path order when its atoms form one simple path from the head's
    src to its trg, else None."""
    src, trg = p.head
    if src == trg:
        return None
    adj: dict[str, list[tuple[str, int]]] = {}
    for k, (s, t) in enumerate(p.bindings):
        if s == t:
            return None
        adj.setdefault(s, []).append((t, k))
        adj.setdefault(t, []).append((s, k))
    order = [src]
    used: set[int] = set()
    while order[-1] != trg:
        step = [(v, k) for v, k in adj.get(order[-1], ()) if k not in used]
        if len(step) != 1:
            return None
        v, k = step[0]
        if v in order:
            return None
        used.add(k)
        order.append(v)
    return order if len(used) == len(p.bindings) else None


def share_chains(p: Pattern) -> Pattern:
    """`p` with its closing and chain links materialised (see the module docstring). A PATTERN
    with time conditions stays flat: each timed atom's own start must stay visible."""
    if p.fixed():
        return p
    while len(p.inputs) >= 3:
        links = projectable_links(p)
        closing = None
        for v, (i, j) in links.items():
            ends = {x for x in p.bindings[i] + p.bindings[j] if x != v}
            if any(set(b) == ends for k, b in enumerate(p.bindings) if k not in (i, j)):
                closing = v
                break
        if closing is not None:
            p = merge_pair(p, *links[closing], closing)
            continue
        order = _chain_order(p)
        if order is None or order[-2] not in links:
            return p
        p = merge_pair(p, *links[order[-2]], order[-2])
    return p


def share_chains_plan(plan: Plan) -> Plan:
    """`plan` with `share_chains` applied to every PATTERN (children first; equal nodes stay
    one node); `plan` itself when no PATTERN has a chain to share."""
    return map_plan(plan, lambda op: share_chains(op) if isinstance(op, Pattern) else op)
