"""The re-evaluation baseline's join order for one rule body, chosen as a person would
choose it: from the relations' sizes and fan-outs, path atoms last.

The plain atoms go in the left-deep order of least estimated work (System R's dynamic
programming over subsets of the body, Selinger et al. 1979; greedy above `EXHAUSTIVE`
atoms): an atom costs the rows it is probed with plus the candidates it looks at, per row
the fan-out of the bound column, the sum of its squared degrees over the size (a skewed
column's values are met in proportion to their degree; both columns bound: a membership
test, selectivity `size / (sources · targets)`; none: its size), plus its size when it is
probed by target alone (its reverse index is built first). It yields those
candidates, or, once the head's variables are bound, at most one row per row (the rest of
the body is an existence test). On SGA Q5
(`knows(x, y), hasCreator(m1, x), hasCreator(m2, y), replyOf(m2, m1)`) this starts from
`replyOf` and follows each message's one creator, where the body's order would cross every
message of `x` with every message of `y`.

Path atoms (`[R]`, `p+`, `p*`) come after every plain atom, those with the most bound
arguments first: each is then searched only from the sources (or to the targets) the rest
of the body joins with, the sideways information passing of magic sets (Bancilhon et al.
1986). A path atom alone in its body is evaluated from every source.
"""

from __future__ import annotations

from collections.abc import Callable

from sgq.datalog.ast import Anon, Atom, Comparison, Const, Literal, Var

#: plain atoms in a body up to which every subset is searched (2^n states), greedy above
EXHAUSTIVE = 10

#: (size, distinct sources, distinct targets, fan-out by source, fan-out by target) of a
#: relation; a fan-out is the targets of a source met by following an edge (the sum of the
#: squared degrees over the size), which a skewed column makes larger than its mean degree
Statistics = tuple[float, float, float, float, float]


def _names(literal: Literal) -> tuple[str | None, str | None]:
    """The variables of a body atom's two arguments (None: a constant or `_`)."""
    return tuple(a.name if isinstance(a, Var) else None for a in literal.args)  # type: ignore[return-value]


def _step(literal: Atom, stats: Statistics, bound: frozenset) -> float:
    """Rows an atom yields per row it is probed with, given the bound variables."""
    size, sources, targets, by_source, by_target = stats
    if size <= 0:
        return 0.0
    src, trg = literal.args
    known_src = isinstance(src, Const) or (isinstance(src, Var) and src.name in bound)
    known_trg = isinstance(trg, Const) or (isinstance(trg, Var) and trg.name in bound)
    if isinstance(src, Var) and isinstance(trg, Var) and src.name == trg.name and not known_src:
        return size / max(sources, targets, 1.0)
    if known_src and known_trg:
        return min(1.0, size / max(sources * targets, 1.0))
    # (a `_` argument is only tested for existence: at most one row per row)
    if known_src:
        return min(1.0, by_source) if isinstance(trg, Anon) else by_source
    if known_trg:
        return min(1.0, by_target) if isinstance(src, Anon) else by_target
    if isinstance(src, Anon) and isinstance(trg, Anon):
        return 1.0
    if isinstance(trg, Anon):
        return sources
    if isinstance(src, Anon):
        return targets
    return size


def _known(literal: Literal, bound: frozenset) -> int:
    """How many of a literal's arguments are constants or bound variables."""
    return sum(
        1
        for a in literal.args  # type: ignore[union-attr]
        if isinstance(a, Const) or (isinstance(a, Var) and a.name in bound)
    )


def _binds(literal: Literal) -> frozenset:
    return frozenset(n for n in _names(literal) if n is not None)


def order_plain(
    atoms: list[Atom], stats: Callable[[str], Statistics], head: frozenset = frozenset()
) -> list[int]:
    """The indexes of `atoms` in the order of least estimated work. Once the `head`
    variables are bound, an atom only tests the rows (at most one each)."""
    n = len(atoms)
    if n == 0:
        return []
    figures = [stats(a.pred) for a in atoms]
    binds = [_binds(a) for a in atoms]
    if n > EXHAUSTIVE:
        return _greedy(atoms, figures, binds, head)
    # best[mask]: (work, rows, order, bound variables) of the cheapest order of that subset
    best: dict[int, tuple[float, float, tuple[int, ...], frozenset]] = {
        0: (0.0, 1.0, (), frozenset())
    }
    for mask in range(1 << n):
        entry = best.get(mask)
        if entry is None:
            continue
        work, rows, order, bound = entry
        for i in range(n):
            if mask & (1 << i):
                continue
            # (the rows it is probed with and the candidates it looks at, a test's too)
            seen = rows * _step(atoms[i], figures[i], bound) + _reverse_cost(
                atoms[i], figures[i], bound
            )
            out = rows * _yield(atoms[i], figures[i], bound, head)
            candidate = (work + rows + seen, out, order + (i,), bound | binds[i])
            key = mask | (1 << i)
            if key not in best or candidate[0] < best[key][0]:
                best[key] = candidate
    return list(best[(1 << n) - 1][2])


def _reverse_cost(literal: Atom, stats: Statistics, bound: frozenset) -> float:
    """An atom probed by its target alone needs its reverse index, built from all of it."""
    src, trg = literal.args
    known_src = isinstance(src, Const) or (isinstance(src, Var) and src.name in bound)
    known_trg = isinstance(trg, Const) or (isinstance(trg, Var) and trg.name in bound)
    return stats[0] if known_trg and not known_src else 0.0


def _yield(literal: Atom, stats: Statistics, bound: frozenset, head: frozenset) -> float:
    fan = _step(literal, stats, bound)
    return min(1.0, fan) if head and head <= bound else fan


def _greedy(atoms, figures, binds, head) -> list[int]:
    order: list[int] = []
    bound: frozenset = frozenset()
    rows = 1.0
    left = set(range(len(atoms)))
    while left:
        i = min(left, key=lambda k, b=bound: (rows * _step(atoms[k], figures[k], b), k))
        rows *= _yield(atoms[i], figures[i], bound, head)
        bound |= binds[i]
        order.append(i)
        left.remove(i)
    return order


def order_body(
    body: tuple[Literal, ...], stats: Callable[[str], Statistics], head: frozenset = frozenset()
) -> list[int]:
    """The indexes of the body's atoms (comparisons left out) in evaluation order: the plain
    atoms by `order_plain`, then the path atoms, most bound arguments first."""
    plain = [i for i, lit in enumerate(body) if isinstance(lit, Atom)]
    paths = [i for i, lit in enumerate(body) if not isinstance(lit, (Atom, Comparison))]
    order = [plain[k] for k in order_plain([body[i] for i in plain], stats, head)]  # type: ignore[misc]
    bound = frozenset().union(*(_binds(body[i]) for i in order))
    while paths:
        pick = max(paths, key=lambda i, bound=bound: (_known(body[i], bound), -i))
        paths.remove(pick)
        order.append(pick)
        bound |= _binds(body[pick])
    return order
