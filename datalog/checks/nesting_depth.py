"""A program's plan nests at most `MAX_DEPTH` operators deep (specs/language.md, "Limits").

`P1(x, y) :- P0(x, y).` ... `P300(x, y) :- P299(x, y).` plans as a RENAME on a RENAME on ... 301
deep. The planner and the engine walk plans without recursion, but a plan node's first hash
(and equality, and pickling) recurses through its inputs, and Python's stack holds about a
thousand calls; so how deep a program may nest is bounded here, before anything is planned,
and `sgq check`, `sgq explain` and `sgq run` refuse the same programs with the same message.

The depth is an upper bound of the plan's, from the rules alone, counted in operators:
- an input label is 1 (its WSCAN);
- a derived predicate is its deepest rule, plus 1 when several rules define it (their UNION);
- a rule is its deepest body atom plus the number of its body atoms (its PATTERN or RENAME,
  and the nested joins of its chains, sga/rewrite/shared_chains.py);
- a body atom is what it reads plus 1 when it has a constant or a repeated variable (a
  FILTER); a closure adds 1 (its PATH), a path atom 1 plus its expression's nesting (the
  optimizer may factor each level of `[(a/b)+]` into a PATH of its own).
A chain of one-atom rules counts 1 per rule. One error, on the first rule (in the order the
predicates are planned) that goes past the bound, naming the chain that makes it deep.
"""

from __future__ import annotations

from ..ast import Alt, Closure, Comparison, Concat, Const, Label, PathAtom, Regex, Var
from ..dependency_graph import topological_order
from ..errors import NESTING_TOO_DEEP, DlError, clipped_chain
from .context import CheckContext
from .recursion import cycles

#: the deepest plan a program may have, in operators (specs/language.md, "Limits")
MAX_DEPTH = 250


def regex_nesting(regex: Regex) -> int:
    """The levels of operators in `regex` (`a` 0, `a/b` 1, `(a/b)+` 2); iterative."""
    deepest, todo = 0, [(regex, 0)]
    while todo:
        node, depth = todo.pop()
        if isinstance(node, Label):
            deepest = max(deepest, depth)
        elif isinstance(node, Concat):
            todo.extend((part, depth + 1) for part in node.parts)
        elif isinstance(node, Alt):
            todo.extend((option, depth + 1) for option in node.options)
        else:
            todo.append((node.inner, depth + 1))
    return deepest


def _filtered(literal) -> int:
    """1 when the atom's arguments make a FILTER (a constant, a repeated variable)."""
    args = literal.args
    if any(isinstance(t, Const) for t in args):
        return 1
    same = len(args) == 2 and isinstance(args[0], Var) and args[0] == args[1]
    return 1 if same else 0


def _literal_depth(literal, depth: dict[str, int]) -> tuple[int, str | None]:
    """The literal's depth and the predicate it is deepest through (None: an input)."""
    if isinstance(literal, PathAtom):
        labels = [label for label in _labels(literal.regex)]
        below, through = max(((depth.get(n, 1), n) for n in labels), default=(1, None))
        return below + 1 + regex_nesting(literal.regex) + _filtered(literal), through
    below = depth.get(literal.pred, 1)
    extra = 1 if isinstance(literal, Closure) else 0
    return below + extra + _filtered(literal), literal.pred


def _labels(regex: Regex) -> list[str]:
    out, todo = [], [regex]
    while todo:
        node = todo.pop()
        if isinstance(node, Label):
            out.append(node.name)
        elif isinstance(node, Concat):
            todo.extend(node.parts)
        elif isinstance(node, Alt):
            todo.extend(node.options)
        else:
            todo.append(node.inner)
    return out


def check_nesting_depth(ctx: CheckContext) -> list[DlError]:
    """`P1 :- P0.` ... `P300 :- P299.` -> the plan of 'P250' nests deeper than 250 operators
    (P250 <- P249 <- ... <- a)"""
    program = ctx.program
    if cycles(program):  # (checks/recursion.py reports them; a cycle has no depth)
        return []
    rules_of: dict[str, list] = {}
    for rule in program.rules:
        rules_of.setdefault(rule.head.pred, []).append(rule)
    depth: dict[str, int] = {}
    via: dict[str, str | None] = {}  # predicate -> the one its depth comes through
    for pred in topological_order(program):
        rules = rules_of.get(pred)
        if not rules:
            continue  # an input label: 1
        best, best_rule, best_via = 0, rules[0], None
        for rule in rules:
            atoms = [lit for lit in rule.body if not isinstance(lit, Comparison)]
            deepest, through = max(
                (_literal_depth(lit, depth) for lit in atoms),
                key=lambda pair: pair[0],
                default=(1, None),
            )
            here = deepest + len(atoms)
            if here > best:
                best, best_rule, best_via = here, rule, through
        depth[pred] = best + (1 if len(rules) > 1 else 0)
        via[pred] = best_via
        if depth[pred] > MAX_DEPTH:
            chain = [pred]
            while via.get(chain[-1]) is not None and len(chain) <= len(depth):
                chain.append(via[chain[-1]])
            message = NESTING_TOO_DEEP.format(
                name=pred, limit=MAX_DEPTH, depth=depth[pred], chain=clipped_chain(chain, " <- ")
            )
            return [ctx.error(message, best_rule.head.loc)]
    return []
