"""Atoms are binary, in heads and bodies (specs/semantics.md §3: binary predicates only)."""

from __future__ import annotations

from ..ast import Atom, Closure, Comparison
from ..errors import ARITY, DlError
from ..printer import name_text, regex_text
from .context import CheckContext


def _shape(literal) -> tuple[str, str]:
    """(name in the message, a binary example of the same atom)."""
    if isinstance(literal, Atom):
        return literal.pred, f"{name_text(literal.pred)}(x, y)"
    if isinstance(literal, Closure):
        return literal.pred + literal.op, f"{name_text(literal.pred)}{literal.op}(x, y)"
    text = f"[{regex_text(literal.regex)}]"
    return text, f"{text}(x, y)"


def _count(n: int) -> str:
    return "no arguments" if n == 0 else "1 argument" if n == 1 else f"{n} arguments"


def check_binary_atoms(ctx: CheckContext) -> list[DlError]:
    """`a(x, y, z)` -> atom 'a' has 3 arguments; atoms are binary: a(x, y)"""
    errors = []
    for rule in ctx.program.rules:
        for literal in (rule.head, *rule.body):
            if isinstance(literal, Comparison) or len(literal.args) == 2:
                continue
            name, example = _shape(literal)
            errors.append(
                ctx.error(
                    ARITY.format(name=name, count=_count(len(literal.args)), example=example),
                    literal.loc,
                )
            )
    return errors
