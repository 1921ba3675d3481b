"""The memo of a Volcano/Cascades-style search (thesis 6.4, as Calcite does it): groups of
equivalent plan nodes, explored by the rules of sga/rewrite/equivalences.py.

A group holds expressions that produce the same streaming graph (Def 35); an expression is a
plan node whose children are the first expressions of their own groups (a group stands for
all its members). Exploring an expression applies every rule to it; each result joins the
expression's group, its new sub-nodes get groups of their own (or join the equal one already
there), and those are explored in turn. Exploration stops when no rule has anything new or
when the budget of expressions or time is spent, so a large program is still planned in
bounded time: what is left unexplored simply keeps its plan. An expression wider than
`MAX_WIDTH` (a PATTERN or UNION of more inputs, a PATH whose expression has more nodes) is
never explored: its groupings and factorings grow exponentially with its width (a join of n
inputs nests in Catalan(n) ways), and each rule application costs a power of it, so a
thousand-letter `[a/a/.../a]` would spend the whole budget on one node. It keeps its plan,
and `skipped` counts such expressions (`sgq explain --optimize` says so).

PATTERN variables that rules make up are renamed in first-use order, so that a regrouping and
its inverse (associate_pattern.py) meet the expression they started from.
"""

from __future__ import annotations

import time
from collections import deque

import attrs

from ...base.dfa import regex_size
from ..algebra import (
    Attribute,
    Filter,
    Op,
    Path,
    Pattern,
    Rename,
    VarCondition,
    children,
    postorder,
)
from ..rewrite.associate_pattern import timed
from ..rewrite.equivalences import RULES, Rule

#: expressions the memo may hold, and seconds exploration may take
MAX_EXPRESSIONS = 2000
TIME_BUDGET = 2.0
#: the widest expression the rules are applied to (inputs of a PATTERN or UNION, nodes of a
#: PATH's regular expression); the spec programs' widest has 7
MAX_WIDTH = 16


def width(op: Op) -> int:
    """How wide `op` is for exploration: a PATH's regex nodes, else its inputs."""
    if isinstance(op, Path):
        return regex_size(op.regex)
    return len(op.inputs)


def with_children(op: Op, kids: list[Op]) -> Op:
    """`op` reading `kids` (in `children` order) instead of its own children; `op` itself
    when they are its children (so that equal plans share their nodes, and comparing two of
    them stops at the first shared node instead of recursing to the leaves)."""
    if all(kid is child for kid, child in zip(kids, children(op))):
        return op
    if isinstance(op, (Filter, Rename, Attribute)):
        return attrs.evolve(op, input=kids[0])
    if isinstance(op, Path):
        n = len(op.inputs)
        return attrs.evolve(
            op, inputs=tuple(kids[:n]), domain=kids[n] if op.domain is not None else None
        )
    if not kids:
        return op
    return attrs.evolve(op, inputs=tuple(kids))


def canonical_variables(p: Pattern) -> Pattern:
    """`p` with its variables renamed `_c0, _c1, ...` in first-use order (same join); a PATTERN
    with time conditions as it is (the rules never make one)."""
    if timed(p):
        return p
    names: dict[str, str] = {}
    for v in [v for b in p.bindings for v in b] + list(p.head):
        names.setdefault(v, f"_c{len(names)}")
    for c in p.conditions:
        names.setdefault(c.left, f"_c{len(names)}")
        if not c.right_const:
            names.setdefault(c.right, f"_c{len(names)}")
    return Pattern(
        p.inputs,
        tuple((names[s], names[t]) for s, t in p.bindings),
        (names[p.head[0]], names[p.head[1]]),
        p.label,
        tuple(
            VarCondition(
                names[c.left], c.op, c.right if c.right_const else names[c.right], c.right_const
            )
            for c in p.conditions
        ),
    )


class Memo:
    """Groups of equivalent expressions; `insert` a plan's roots, then `explore`."""

    def __init__(
        self,
        rules: dict[str, Rule] | None = None,
        max_expressions: int = MAX_EXPRESSIONS,
        time_budget: float = TIME_BUDGET,
    ) -> None:
        self.rules = rules if rules is not None else {n: r for n, (_, r) in RULES.items()}
        self.groups: list[list[Op]] = []
        self.group_of: dict[Op, int] = {}
        self.max_expressions = max_expressions
        self.time_budget = time_budget
        self.expressions = 0
        self.exhausted = False  # the budget ran out before exploration ended
        self.skipped = 0  # expressions wider than MAX_WIDTH, kept unexplored
        self._pending: deque[tuple[int, Op]] = deque()

    def representative(self, group: int) -> Op:
        return self.groups[group][0]

    def _normalise(self, op: Op, fresh: bool) -> Op:
        """`op` reading its children's representatives (its children inserted first)."""
        for node in postorder(children(op), self.group_of):  # (iterative: any depth)
            if node not in self.group_of:
                self._enter(node, fresh)
        node = with_children(op, [self.representative(self.group_of[c]) for c in children(op)])
        if fresh and isinstance(node, Pattern):
            node = canonical_variables(node)
        return node

    def _enter(self, op: Op, fresh: bool) -> int:
        """The group of `op`, whose children have groups: an equal expression's, or a new
        one (pending exploration)."""
        node = with_children(op, [self.representative(self.group_of[c]) for c in children(op)])
        if fresh and isinstance(node, Pattern):
            node = canonical_variables(node)
        group = self.group_of.get(node)
        if group is None:
            group = len(self.groups)
            self.groups.append([node])
            self.group_of[node] = group
            self.expressions += 1
            self._pending.append((group, node))
        self.group_of[op] = group
        return group

    def insert(self, op: Op, fresh: bool = False) -> int:
        """The group of `op` (a whole sub-plan), made with its sub-nodes' groups if new.
        `fresh`: `op` comes from a rule (its PATTERN variables are renamed canonically)."""
        got = self.group_of.get(op)
        if got is not None:
            return got
        for node in postorder((op,), self.group_of):  # children first, iteratively
            if node not in self.group_of:
                self._enter(node, fresh)
        return self.group_of[op]

    def _add(self, group: int, op: Op) -> None:
        node = self._normalise(op, True)
        if node in self.group_of:  # known, here or (not merged) in another group
            return
        self.groups[group].append(node)
        self.group_of[node] = group
        self.expressions += 1
        self._pending.append((group, node))

    def any_alternative(self) -> bool:
        """Whether some rule makes an expression the memo does not hold from one it holds
        (then exploring would find plans to choose among); explores nothing."""
        while self._pending:
            group, node = self._pending.popleft()
            if width(node) > MAX_WIDTH:
                self.skipped += 1
                continue
            for rule in self.rules.values():
                for alternative in rule(node):
                    if self._normalise(alternative, True) not in self.group_of:
                        return True
        return False

    def explore(self) -> None:
        """Apply every rule to every expression until nothing is new or the budget is spent."""
        deadline = time.monotonic() + self.time_budget
        while self._pending:
            if self.expressions >= self.max_expressions or time.monotonic() > deadline:
                self.exhausted = True
                return
            group, node = self._pending.popleft()
            if width(node) > MAX_WIDTH:
                self.skipped += 1
                continue
            for rule in self.rules.values():
                for alternative in rule(node):
                    if alternative.label != node.label:  # pragma: no cover - a rule's bug
                        raise AssertionError(f"a rule relabelled {node.label!r}")
                    self._add(group, alternative)
