"""Time variables (specs/semantics.md §4b): `atom@t` binds `t` in a rule body only; a time
variable is never an atom argument nor bound twice, and it is compared only with time
variables; `<`, `<=`, `>`, `>=` and offsets on either side (`t1 + 1h`, `t2 - 6 >= t1`) order
time variables only."""

from __future__ import annotations

from ..ast import (
    Anon,
    Comparison,
    Const,
    Rule,
    Var,
    has_unit,
    property_variables,
    time_variables,
)
from ..errors import (
    OFFSET_NOT_TIME,
    ORDER_NOT_TIME,
    TIME_ANON,
    TIME_AS_TERM,
    TIME_IN_HEAD,
    TIME_MIXED,
    TIME_REBOUND,
    TIME_UNBOUND,
    DlError,
)
from .context import CheckContext
from .head_safety import atom_variables

#: the comparisons that only time variables may use
ORDERS = frozenset({"<", "<=", ">", ">="})


def _line(literal) -> int | str:
    loc = literal.time_loc or literal.loc
    return loc.line if loc is not None else "?"


def is_time_comparison(literal: Comparison, times, props=()) -> bool:
    """Whether a comparison is about time variables (`times`: the rule's time variables): it
    names one, orders (`<` ...) or carries an offset on either side. Ordinary `x = y` /
    `x != y` are not, nor is one that names a property variable (`props`) and no time
    variable (checks/properties.py)."""
    sides = (literal.left, literal.right)
    if any(isinstance(t, Var) and t.name in props for t in sides):
        return False
    if any(isinstance(t, Var) and t.name in times for t in sides):
        return True
    if literal.op in ORDERS or literal.has_offset:
        return True
    return any(isinstance(t, Var) and t.name in times for t in (literal.left, literal.right))


def _bindings(ctx: CheckContext, rule: Rule, times: dict) -> list[DlError]:
    errors = []
    if rule.head.time is not None:
        errors.append(ctx.error(TIME_IN_HEAD.format(name=rule.head.time), rule.head.time_loc))
    for literal in rule.body:
        if isinstance(literal, Comparison) or literal.time is None:
            continue
        if literal.time == "_":
            errors.append(ctx.error(TIME_ANON, literal.time_loc))
        elif times[literal.time] is not literal:
            first = times[literal.time]
            message = TIME_REBOUND.format(name=literal.time, line=_line(first))
            errors.append(ctx.error(message, literal.time_loc))
    for literal in (rule.head, *rule.body):
        if isinstance(literal, Comparison):
            continue
        for term in literal.args:
            if isinstance(term, Var) and term.name in times:
                line = _line(times[term.name])
                errors.append(ctx.error(TIME_AS_TERM.format(name=term.name, line=line), term.loc))
    return errors


def _describe(term) -> str:
    if isinstance(term, Const):
        return f"the constant {term.value!r}" if term.quoted else f"the constant {term.value}"
    if isinstance(term, Anon):
        return "'_'"
    return f"the ordinary variable '{term.name}'"


def _comparison(ctx, literal: Comparison, times: dict, bound: set) -> list[DlError]:
    sides = (literal.left, literal.right)
    named = [t for t in sides if isinstance(t, Var) and t.name in times]
    if named:
        for term in sides:
            if isinstance(term, Var) and term.name in times or has_unit(term):
                continue  # (a duration where a constant stands: checks/constant_units.py)
            if isinstance(term, Var) and term.name not in bound:
                message = TIME_UNBOUND.format(name=term.name)
            else:
                message = TIME_MIXED.format(name=named[0].name, other=_describe(term))
            return [ctx.error(message, term.loc)]
        return []
    # no time variable: an order or an offset over ordinary (or unbound) names
    if any(has_unit(t) for t in sides):
        return []  # (checks/constant_units.py says what a duration may follow)
    for term in sides:
        if isinstance(term, Var) and term.name not in bound:
            return [ctx.error(TIME_UNBOUND.format(name=term.name), term.loc)]
    first = next((t for t in sides if isinstance(t, Var)), sides[0])
    name = first.name if isinstance(first, Var) else getattr(first, "value", "_")
    if literal.op in ORDERS:
        return [ctx.error(ORDER_NOT_TIME.format(op=literal.op, name=name), literal.loc)]
    return [ctx.error(OFFSET_NOT_TIME.format(name=name), literal.loc)]


def check_time_variables(ctx: CheckContext) -> list[DlError]:
    """`A(x, y) :- a(x, y)@t, b(t, y).` -> 't' is a time variable ..., so it cannot be an
    atom argument"""
    errors = []
    for rule in ctx.program.rules:
        times = time_variables(rule)
        errors += _bindings(ctx, rule, times)
        bound = atom_variables(rule)
        props = property_variables(rule)
        for literal in rule.body:
            if isinstance(literal, Comparison) and is_time_comparison(literal, times, props):
                errors += _comparison(ctx, literal, times, bound)
    return errors
