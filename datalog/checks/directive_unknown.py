"""Unknown directives: only `.window`, `.slide`, `.output` and `.input` exist (specs/language.md)."""

from __future__ import annotations

from ..errors import UNKNOWN_DIRECTIVE, DlError
from .context import CheckContext

KNOWN = ("window", "slide", "output", "input")


def check_unknown_directives(ctx: CheckContext) -> list[DlError]:
    """`.windows 10` -> unknown directive '.windows'; ... (did you mean '.window'?)"""
    errors = []
    for d in ctx.program.directives:
        if d.name in KNOWN:
            continue
        import difflib  # (only for a program with an unknown directive: a start skips it)

        close = difflib.get_close_matches(d.name, KNOWN, n=1, cutoff=0.75)
        hint = f" (did you mean '.{close[0]}'?)" if close else ""
        errors.append(ctx.error(UNKNOWN_DIRECTIVE.format(name=d.name, hint=hint), d.loc))
    return errors
