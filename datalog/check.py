"""Check a parsed program against specs/language.md / specs/semantics.md §3 and derive its facts.

`check` runs every check of `datalog/checks/` (one small function per error kind), collects
all errors of the file and raises them together as `DlErrors`; a clean program becomes a
`CheckedProgram`.
"""

from __future__ import annotations

from .ast import Program, literal_preds
from .checked import CheckedProgram
from .checks import ALL_CHECKS, CheckContext
from .dependency_graph import first_appearance, topological_order
from .errors import DlError, DlErrors
from .parser import parse


def check(
    program: Program,
    *,
    filename: str = "<string>",
    source: str | None = None,
    window: int | None = None,
    slide: int | None = None,
) -> CheckedProgram:
    """Validate `program`; `window`/`slide` override its default `.window` / its `.slide`
    (command line; per-label windows `.window ... for` stay).

    Raises DlErrors listing every problem found, in source order.
    """
    ctx = CheckContext(program, filename, source, window, slide)
    errors: list[DlError] = []
    for run in ALL_CHECKS:
        errors.extend(run(ctx))
    if errors:
        raise DlErrors(errors)
    return _checked(ctx)


def _checked(ctx: CheckContext) -> CheckedProgram:
    program, facts = ctx.program, ctx.facts
    heads = {r.head.pred for r in program.rules}
    seen = first_appearance(program)
    body_preds = {p for r in program.rules for lit in r.body for p in literal_preds(lit)}
    outputs: dict[str, None] = {}
    for d in ctx.directives_named("output"):
        outputs.update((v, None) for v in d.values if isinstance(v, str))
    if not outputs:
        outputs["Answer"] = None
    if ctx.window is not None:
        window = ctx.window
    else:
        window = facts.window.value if facts.window is not None else None
    if ctx.slide is not None:
        slide = ctx.slide
    else:
        slide = facts.slide.value if facts.slide is not None else 1
    return CheckedProgram(
        program=program,
        window=window,  # None only when `.window ... for` covers every input label
        slide=slide,
        edb=tuple(p for p in seen if p not in heads and p in body_preds),
        idb=tuple(p for p in seen if p in heads),
        outputs=tuple(outputs),
        order=topological_order(program),
        label_windows=tuple(sorted((k, d.value) for k, (d, _) in facts.label_windows.items())),
        filename=ctx.filename,
    )


def check_text(
    text: str, filename: str = "<string>", *, window: int | None = None, slide: int | None = None
) -> CheckedProgram:
    """Parse and check `.dl` text in one step.

    >>> check_text(".window 30d\\nAnswer(x, y) :- a+(x, y).").edb
    ('a',)
    """
    return check(parse(text, filename), filename=filename, source=text, window=window, slide=slide)
