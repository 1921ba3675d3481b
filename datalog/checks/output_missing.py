"""A program must say what it outputs: `.output NAME`, else a predicate `Answer`
(specs/semantics.md §3)."""

from __future__ import annotations

from ..errors import NO_OUTPUT, DlError
from .context import CheckContext
from .facts import heads


def check_has_output(ctx: CheckContext) -> list[DlError]:
    program = ctx.program
    if not program.rules or ctx.directives_named("output") or "Answer" in heads(program):
        return []
    return [ctx.error(NO_OUTPUT, None)]
