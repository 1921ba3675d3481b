"""`as NAME` names the result stream of a closure or path atom (shown by `explain`), so it must
not be a predicate name, nor name two different closures / path atoms (`simple a+` and `a+` are different)."""

from __future__ import annotations

from ..ast import Closure, Label, Loc, PathAtom, Plus, Star
from ..errors import ALIAS_IS_PREDICATE, ALIAS_REUSED, DlError
from .context import CheckContext
from .facts import body_occurrences, heads


def check_aliases(ctx: CheckContext) -> list[DlError]:
    program = ctx.program
    predicates = set(heads(program)) | set(body_occurrences(program))
    predicates |= set(ctx.facts.inputs) | set(ctx.facts.label_windows)
    seen: dict[str, tuple[object, Loc | None]] = {}
    errors = []
    for rule in program.rules:
        for literal in rule.body:
            if not isinstance(literal, (Closure, PathAtom)) or literal.alias is None:
                continue
            alias, loc = literal.alias, literal.alias_loc or literal.loc
            if isinstance(literal, Closure):  # p+ is [p+]: the same stream
                key = (Plus if literal.op == "+" else Star)(Label(literal.pred))
            else:
                key = literal.regex
            key = (key, literal.simple)  # simple paths are another stream
            if alias in predicates:
                errors.append(ctx.error(ALIAS_IS_PREDICATE.format(name=alias), loc))
            elif alias in seen and seen[alias][0] != key:
                first = seen[alias][1]
                errors.append(
                    ctx.error(ALIAS_REUSED.format(name=alias, line=first.line if first else 0), loc)
                )
            else:
                seen.setdefault(alias, (key, loc))
    return errors
