"""`simple` asks for paths that visit no vertex twice (specs/semantics.md §4a): it qualifies
a closure (`simple knows+(x, y)`) or a path atom (`simple [a/b*](x, y)`), never a plain atom.
The grammar takes it on a body atom only so that the mistake gets this message at its place."""

from __future__ import annotations

from ..ast import Atom
from ..errors import SIMPLE_ATOM, DlError
from .context import CheckContext


def check_simple_targets(ctx: CheckContext) -> list[DlError]:
    return [
        ctx.error(SIMPLE_ATOM.format(name=literal.pred), literal.loc)
        for rule in ctx.program.rules
        for literal in rule.body
        if isinstance(literal, Atom) and literal.simple
    ]
