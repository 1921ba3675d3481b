"""The timing order's implied bounds (specs/semantics.md §4b): from the comparisons of a
PATTERN's time variables, the tightest `t_a - t_b <= c` that every match must satisfy, for
each ordered pair of time variables the comparisons relate, directly or through others.

`t1 < t2, t2 < t3` also says `t1 <= t3 - 2`: checked as soon as t1 and t3 are bound, before
t2 is, it prunes a walk that binds them first (the timing-order paper's §3 prunes on the
order's transitive closure, its "timing order" being a partial order). Each comparison but
`!=` is one or two difference constraints (`l < r + d` is `l - r <= d - 1`); their closure is
the shortest paths of the constraint graph (Floyd–Warshall over the few variables of a rule).
Every bound it gives is implied by the comparisons, so checking them all, the comparisons'
own included, accepts exactly the matches the comparisons accept; only `!=` needs its own
check.
"""

from __future__ import annotations

#: `l op r + d` as difference constraints `(x, y, c)`: `x - y <= c` ('x' is l or r)
_AS_DIFFERENCES = {
    "<": lambda d: (("l", "r", d - 1),),
    "<=": lambda d: (("l", "r", d),),
    ">": lambda d: (("r", "l", -d - 1),),
    ">=": lambda d: (("r", "l", -d),),
    "=": lambda d: (("l", "r", d), ("r", "l", -d)),
    "!=": lambda d: (),
}


def difference_bounds(conditions) -> dict[tuple[int, int], int]:
    """`{(a, b): c}`: the tightest `t_a - t_b <= c` implied by `conditions`, each `(left,
    op, right, offset)` meaning `t_left op t_right + offset` (only pairs with some bound;
    `(a, a)` only with `c < 0`: then no match can exist, and every bound is still implied,
    just not the tightest)."""
    bounds: dict[tuple[int, int], int] = {}
    names = set()
    for left, op, right, offset in conditions:
        side = {"l": left, "r": right}
        for x, y, c in _AS_DIFFERENCES[op](offset):
            key = (side[x], side[y])
            if key not in bounds or c < bounds[key]:
                bounds[key] = c
            names.update(key)
    for k in names:
        for i in names:
            ik = bounds.get((i, k))
            if ik is None or i == k:
                continue
            for j in names:
                kj = bounds.get((k, j))
                if kj is None or j == k:
                    continue
                c = ik + kj
                if c < bounds.get((i, j), c + 1):
                    bounds[(i, j)] = c
    return {(a, b): c for (a, b), c in bounds.items() if a != b or c < 0}
