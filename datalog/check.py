"""Check a parsed program against LANGUAGE.md / SEMANTICS.md §3 and derive its facts.

`check` runs every check (each a small function in `datalog/checks/`), collects all errors of
the file, and raises them together; a clean program becomes a `CheckedProgram`.
"""

from __future__ import annotations

from .ast import Directive, Duration, Program, literal_preds
from .checked import CheckedProgram
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
    """Validate `program`; `window`/`slide` override its `.window`/`.slide` (command line).

    Raises DlErrors listing every problem found.
    """
    errors: list[DlError] = []
    default_window: int | None = None
    label_windows: dict[str, int] = {}
    program_slide: int | None = None
    outputs: list[str] = []
    for d in program.directives:
        if d.name == "window":
            size = d.values[0].value if d.values and isinstance(d.values[0], Duration) else None
            if size is None:
                errors.append(DlError(".window needs a duration", d.loc, filename, source))
            elif d.labels:
                for label in d.labels:
                    label_windows[label] = size
            else:
                default_window = size
        elif d.name == "slide":
            program_slide = d.values[0].value
        elif d.name == "output":
            outputs.extend(v for v in d.values if isinstance(v, str))
    if errors:
        raise DlErrors(errors)
    heads = {r.head.pred for r in program.rules}
    seen = first_appearance(program)
    idb = tuple(p for p in seen if p in heads)
    body_preds = {p for r in program.rules for lit in r.body for p in literal_preds(lit)}
    edb = tuple(p for p in seen if p not in heads and p in body_preds)
    if not outputs and "Answer" in heads:
        outputs = ["Answer"]
    w = window if window is not None else default_window
    s = slide if slide is not None else (program_slide or 1)
    return CheckedProgram(
        program=program,
        window=w,
        slide=s,
        edb=edb,
        idb=idb,
        outputs=tuple(outputs),
        order=topological_order(program),
        label_windows=tuple(sorted(label_windows.items())),
        filename=filename,
    )


def check_text(
    text: str, filename: str = "<string>", *, window: int | None = None, slide: int | None = None
) -> CheckedProgram:
    """Parse and check `.dl` text in one step."""
    return check(parse(text, filename), filename=filename, source=text, window=window, slide=slide)
