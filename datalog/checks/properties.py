"""Property predicates (specs/semantics.md §4c): braces only on input atoms of a body, a
property variable only in braces and comparisons, compared only with property variables and
constants (strings by `=` and `!=` only), and only plain numbers added to it."""

from __future__ import annotations

from ..ast import (
    Anon,
    Atom,
    Comparison,
    Const,
    PathAtom,
    Rule,
    Var,
    has_unit,
    property_variables,
    regex_prop_labels,
    time_variables,
)
from ..errors import (
    PROP_IN_HEAD,
    PROP_MIXED,
    PROP_OFFSET,
    PROP_ON_DERIVED,
    PROP_STRING_OFFSET,
    PROP_STRING_ORDER,
    PROP_TIME_CLASH,
    PROP_VAR_AS_TERM,
    UNBOUND_COMPARED,
    DlError,
)
from .context import CheckContext
from .facts import heads
from .head_safety import atom_variables

#: the comparisons that order values (never strings)
ORDERS = frozenset({"<", "<=", ">", ">="})


def is_property_comparison(literal: Comparison, props) -> bool:
    """Whether a comparison names a property variable of its rule (`props`)."""
    return any(isinstance(t, Var) and t.name in props for t in (literal.left, literal.right))


def _line(atom: Atom) -> int | str:
    return atom.loc.line if atom.loc is not None else "?"


def _describe(term, times: dict) -> str:
    """What a side compared with a property variable is, when it may not be."""
    if isinstance(term, Anon):
        return "'_'"
    if term.name in times:
        return f"the time variable '{term.name}'"
    return f"the vertex variable '{term.name}'"


def _bindings(ctx: CheckContext, rule: Rule, props: dict, derived) -> list[DlError]:
    errors = []
    if rule.head.props:
        errors.append(ctx.error(PROP_IN_HEAD, rule.head.props[0].loc))
    times = time_variables(rule)
    for literal in rule.body:
        if isinstance(literal, Atom) and literal.props and literal.pred in derived:
            errors.append(
                ctx.error(PROP_ON_DERIVED.format(name=literal.pred), literal.props[0].loc)
            )
        if isinstance(literal, PathAtom):
            for label in regex_prop_labels(literal.regex):
                if label.name in derived:
                    message = PROP_ON_DERIVED.format(name=label.name)
                    errors.append(ctx.error(message, label.props[0].loc))
                errors += _tests(ctx, label.props)
        if isinstance(literal, Atom):
            for arg in literal.props:
                if has_unit(arg.value):
                    errors.append(
                        ctx.error(PROP_OFFSET.format(text=arg.value.value), arg.value.loc)
                    )
                elif isinstance(arg.value, Var) and arg.value.name in times:
                    message = PROP_TIME_CLASH.format(name=arg.value.name)
                    errors.append(ctx.error(message, arg.value.loc))
    for literal in (rule.head, *rule.body):
        if isinstance(literal, Comparison):
            continue
        for term in literal.args:
            if isinstance(term, Var) and term.name in props:
                first = props[term.name]
                key = next(a.key for a in first.props if a.value == Var(term.name))
                message = PROP_VAR_AS_TERM.format(name=term.name, key=key, line=_line(first))
                errors.append(ctx.error(message, term.loc))
    return errors


def _tests(ctx: CheckContext, tests) -> list[DlError]:
    errors = []
    for test in tests:
        if has_unit(test.value):
            errors.append(ctx.error(PROP_OFFSET.format(text=test.value.value), test.value.loc))
        elif test.op in ORDERS and test.value.quoted:
            errors.append(ctx.error(PROP_STRING_ORDER.format(op=test.op), test.loc))
    return errors


def _comparison(ctx, literal: Comparison, props: dict, times: dict, bound: set) -> list:
    errors = []
    sides = ((literal.left, literal.left_offset), (literal.right, literal.offset))
    named = next(t.name for t, _o in sides if isinstance(t, Var) and t.name in props)
    for term, offset in sides:
        if isinstance(term, Const):
            if has_unit(term):
                errors.append(ctx.error(PROP_OFFSET.format(text=term.value), term.loc))
            elif term.quoted and literal.op in ORDERS:
                errors.append(ctx.error(PROP_STRING_ORDER.format(op=literal.op), literal.loc))
        elif isinstance(term, Var) and term.name not in props and term.name not in bound:
            if term.name not in times:
                errors.append(ctx.error(UNBOUND_COMPARED.format(name=term.name), term.loc))
            else:
                other = _describe(term, times)
                errors.append(ctx.error(PROP_MIXED.format(name=named, other=other), term.loc))
        elif not (isinstance(term, Var) and term.name in props):
            other = _describe(term, times)
            errors.append(ctx.error(PROP_MIXED.format(name=named, other=other), term.loc))
        if offset is None:
            continue
        if any(isinstance(t, Const) and t.quoted for t, _o in sides):
            errors.append(ctx.error(PROP_STRING_OFFSET.format(text=offset.text), offset.loc))
        elif isinstance(offset.value, int) and offset.text != str(offset.value):
            errors.append(ctx.error(PROP_OFFSET.format(text=offset.text), offset.loc))
    return errors


def check_properties(ctx: CheckContext) -> list[DlError]:
    """`A(x, d) :- flight(x, y){delay: d}.` -> 'd' is a property variable ..., so it cannot
    be a vertex argument"""
    errors = []
    derived = set(heads(ctx.program))
    for rule in ctx.program.rules:
        props = property_variables(rule)
        errors += _bindings(ctx, rule, props, derived)
        times = time_variables(rule)
        bound = atom_variables(rule)
        for literal in rule.body:
            if isinstance(literal, Comparison) and is_property_comparison(literal, props):
                errors += _comparison(ctx, literal, props, times, bound)
    return errors
