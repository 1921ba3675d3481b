"""PATTERN's join planner: the order in which the other inputs are probed from a changed one
(thesis 5.4, Algorithm PATTERN; 6.2.1 join reordering), and its frontier form.

A plan is a list of steps, one per input still to join, each binding the variables of that
input's atom from the shared `EdgeIndex` (operators/pattern.py runs them). Any order gives the
same result; only the cost differs, so the planner picks by what is bound and by the indexes'
fan-out (entries per key).

The frontier form (`frontier_steps`) runs a whole batch breadth-first and projects partial
results after each step on the variables still needed. Where a step binds a variable `v` that
a later atom also constrains from an already bound endpoint (a cycle, as in SGA Q5: `m2` with
`c2a(m2, y)` and `c2q(m2, m1)`), the two are fused into one *meet* step: `v` ranges over the
intersection of the two adjacency sets, taken in C (`dict.keys() & dict.keys()`), instead of
iterating one set in Python and probing the other per element (the one-variable-at-a-time
step of a worst-case-optimal join, Ngo et al.'s Generic Join).
"""

from __future__ import annotations

import math
from operator import itemgetter
from typing import NamedTuple

from ...base.property_values import holds

# step modes: how input j is probed given what is bound
_BOTH, _SRC, _TRG, _NONE, _LOOP_BOUND, _LOOP_FREE = range(6)


class Condition(NamedTuple):
    """A VarCondition on variable slots: `slot[left] == (const if right is None else
    slot[right])` must be `eq`; or, with `eq` None, a PropertyCondition: `const` is `(op,
    offset, numbers)` and `slot[left] op slot[right] + offset` must hold on property values
    (base/property_values.py)."""

    left: int
    eq: bool | None
    right: int | None
    const: str | tuple | None


def conditions_hold(conds, vals) -> bool:
    """Whether the variable slots `vals` satisfy every Condition of `conds`."""
    for left, eq, right, const in conds:
        if eq is None:
            op, offset, numbers = const
            if not holds(op, vals[left], vals[right], offset, numbers):
                return False
        elif (vals[left] == (const if right is None else vals[right])) != eq:
            return False
    return True


def step_candidates(index, mode: int, a_val, b_val):
    """The `(src, trg, entry)` of `index` (an EdgeIndex) that one join step ranges over, given
    the values already bound to its endpoints (None when unbound); expired entries included
    (the caller checks `exp`)."""
    if mode == _BOTH or mode == _LOOP_BOUND:
        b_val = a_val if mode == _LOOP_BOUND else b_val
        entry = index.get(a_val, b_val)
        return ((a_val, b_val, entry),) if entry is not None else ()
    if mode == _SRC:
        row = index.successors(a_val)
        return [(a_val, t, e) for t, e in row.items()] if row else ()
    if mode == _TRG:
        col = index.predecessors(b_val)
        return [(s, b_val, e) for s, e in col.items()] if col else ()
    if mode == _LOOP_FREE:
        return [(s, t, e) for s, t, e in index.entries() if s == t]
    return list(index.entries())


def index_fanout(indexes) -> list:
    """`(entries per src, entries per trg)` of each EdgeIndex, in steps of a factor sqrt(2)
    (so a plan made for them does not flap): the `fanout` `join_plan` breaks ties with."""
    fanout = []
    for index in indexes:
        n = len(index)
        fanout.append(
            tuple(
                round(2 * math.log2(n / keys)) if n > keys > 0 else 0
                for keys in (index.sources(), index.targets())
            )
        )
    return fanout


def join_plan(bindings, conditions, bound: set, todo: list, fanout=None, first_from=None) -> tuple:
    """`(conditions ready with `bound`, steps)`: the inputs `todo` in join order (next the one
    with most variables bound, see `score`), each step `(j, src slot, trg slot, mode, conditions
    now ready)`. `fanout[j] = (entries per src, entries per trg)` of input j's index, when
    known, breaks ties among inputs with one variable bound: the smaller expected fan-out first
    (a join order is a matter of cost only: every order gives the same result). `first_from`,
    a variable of `bound`: among the inputs with one variable bound, those on it go first,
    until one has been joined (the plan that expands from that side first)."""
    bound = set(bound)
    done: set = set()

    def ready() -> tuple:
        now_ready = tuple(
            c
            for c in conditions
            if c not in done and c.left in bound and (c.right is None or c.right in bound)
        )
        done.update(now_ready)
        return now_ready

    first = ready()
    steps = []
    remaining = list(todo)
    depth = dict.fromkeys(bound, 0)  # the step that bound each variable (0: given)
    while remaining:

        def score(j, first_from=first_from):
            # most variables bound first; on a tie the one anchored on the earliest binding,
            # so a plan from both head variables works inwards from both ends of a chain
            # and meets in the middle with both variables bound
            a, b = bindings[j]
            anchors = [depth[v] for v in (a, b) if v in bound]
            cost = 0
            if fanout is not None and len(anchors) == 1:
                cost = fanout[j][0 if a in bound else 1]  # steps of sqrt(2): no flapping
            side = len(anchors) == 1 and first_from in (a, b)
            return (len(anchors), side, -cost, -max(anchors, default=0), -j)

        j = max(remaining, key=score)
        remaining.remove(j)
        a, b = bindings[j]
        if first_from is not None and (a in bound) != (b in bound):
            first_from = None  # the first expansion is chosen
        for v in (a, b):
            depth.setdefault(v, len(steps) + 1)
        if a == b:
            mode = _LOOP_BOUND if a in bound else _LOOP_FREE
        elif a in bound and b in bound:
            mode = _BOTH
        elif a in bound:
            mode = _SRC
        elif b in bound:
            mode = _TRG
        else:
            mode = _NONE
        bound.update((a, b))
        steps.append((j, a, b, mode, ready()))
    return first, tuple(steps)


def fuse_meets(steps, bound) -> list:
    """The steps with every later `_BOTH` check that constrains a step's new variable from an
    endpoint bound before that step folded into it: `(j, a, b, mode, conds, also)`, `also` (a
    meet when not empty; the mode stays `_SRC` or `_TRG`: how input j is probed) the folded atoms as `(j2, v is j2's src, j2's other endpoint)`; their conditions join the
    step's (all their variables are bound by then)."""
    bound = set(bound)
    rest = [list(step) + [()] for step in steps]
    out = []
    while rest:
        j, a, b, mode, conds, also = rest.pop(0)
        if mode in (_SRC, _TRG):
            v = b if mode == _SRC else a
            before = bound | {a if mode == _SRC else b}
            keep = []
            for later in rest:
                j2, a2, b2, mode2, conds2, _also2 = later
                if (
                    mode2 == _BOTH
                    and v in (a2, b2)
                    and a2 != b2
                    and (b2 if a2 == v else a2) in before
                ):
                    also += ((j2, a2 == v, b2 if a2 == v else a2),)
                    conds += conds2
                else:
                    keep.append(later)
            rest = keep
        bound.update((a, b))
        out.append((j, a, b, mode, conds, also))
    return out


def frontier_steps(steps, head: tuple, layout: tuple) -> tuple:
    """The join plan `steps` for a frontier of partial results projected, after each step, on
    the variables still needed (the head and those later steps or conditions read), with meets
    fused (`fuse_meets`). Each step becomes `(j, mode, pos of a, pos of b, conditions on the
    extended row, projection, also, recipe)`: the extended row is the projected row followed
    by the matched entry's `(src, trg)`; `also` lists a meet's other inputs as `(j2, v is
    j2's src, position of j2's bound endpoint in the row)`; `recipe` (`_key_recipe`) says
    where a step with one endpoint bound finds its projection without the extended row, and
    for a meet whether the projection drops the variable it binds (each row then gives one
    key, whatever the variable's value)."""
    steps = fuse_meets(steps, layout)
    out = []
    for k, (j, a, b, mode, conds, also) in enumerate(steps):
        need = set(head)
        for _j, a2, b2, _m, conds2, also2 in steps[k + 1 :]:
            need.update((a2, b2))
            need.update(w for _j2, _s, w in also2)
            for left, _eq, right, _c in conds2:
                need.add(left)
                if right is not None:
                    need.add(right)
        ext = layout + (a, b)

        def pos(slot, ext=ext, n=len(layout)):
            # a slot bound before this step is read from the row, else from the entry
            return ext.index(slot) if slot in ext[:n] else ext.index(slot, n)

        new = tuple(head) if k == len(steps) - 1 else tuple(sorted(need & set(ext)))
        if not new:  # nothing bound so far is needed later: carry one variable along
            new = (b,)
        picks = tuple(pos(v) for v in new)
        if len(picks) == 1:
            picks = picks * 2
            new = new * 2
        step_conds = tuple(
            (pos(left), eq, None if right is None else pos(right), c)
            for left, eq, right, c in conds
        )
        pa = layout.index(a) if a in layout else None
        pb = layout.index(b) if b in layout else None
        meets = tuple((j2, v_is_src, layout.index(w)) for j2, v_is_src, w in also)
        if also:  # a meet: whether its projection drops the variable it binds
            recipe = (len(layout) + 1 if mode == _SRC else len(layout)) not in picks
        else:
            recipe = _key_recipe(picks, len(layout), mode, pa, pb)
        out.append((j, mode, pa, pb, step_conds, itemgetter(*picks), meets, recipe))
        layout = new
    return tuple(out)


def _key_recipe(picks: tuple, n: int, mode: int, pa, pb) -> tuple | None:
    """For a step with one endpoint bound (`_SRC`, `_TRG`) and a projection on two
    variables: each projected variable's position in the row, or -1 for the entry's other
    endpoint (the variable the step binds); None for any other step. The extended row is
    `row + (src, trg)` of the entry, and its bound endpoint is the row's `pa` (`_SRC`) or
    `pb` (`_TRG`)."""
    if mode not in (_SRC, _TRG) or len(picks) != 2:
        return None
    bound, other = (n, n + 1) if mode == _SRC else (n + 1, n)
    fixed = pa if mode == _SRC else pb
    out = []
    for p in picks:
        if p < n:
            out.append(p)
        elif p == bound:
            out.append(fixed)
        else:
            assert p == other
            out.append(-1)
    return tuple(out)
