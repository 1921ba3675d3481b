"""A program needs at least one rule (specs/semantics.md §3: a finite, non-empty set of rules)."""

from __future__ import annotations

from ..errors import NO_RULES, DlError
from .context import CheckContext


def check_has_rules(ctx: CheckContext) -> list[DlError]:
    return [] if ctx.program.rules else [ctx.error(NO_RULES, None)]
