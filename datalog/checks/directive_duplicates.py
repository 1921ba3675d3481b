"""A window or slide set twice: a second default `.window`, a second window for one label, a
second `.slide`. (`.output` and `.input` lines add up instead.)"""

from __future__ import annotations

from ..ast import Duration, Loc
from ..errors import DUPLICATE_LABEL_WINDOW, DUPLICATE_SLIDE, DUPLICATE_WINDOW, DlError
from .context import CheckContext


def _line(loc: Loc | None) -> int:
    return loc.line if loc is not None else 0


def check_duplicates(ctx: CheckContext) -> list[DlError]:
    errors = []
    window: Duration | None = None
    window_line = 0
    slide: Duration | None = None
    slide_line = 0
    labels: dict[str, tuple[Duration, int]] = {}
    for d in ctx.program.directives:
        first = d.values[0] if d.values else None
        if not isinstance(first, Duration):
            continue
        if d.name == "window" and d.labels:
            locs = d.label_locs or (d.loc,) * len(d.labels)
            for label, loc in zip(d.labels, locs):
                if label in labels:
                    seen, line = labels[label]
                    errors.append(
                        ctx.error(
                            DUPLICATE_LABEL_WINDOW.format(label=label, value=seen.text, line=line),
                            loc,
                        )
                    )
                else:
                    labels[label] = (first, _line(d.loc))
        elif d.name == "window":
            if window is not None:
                errors.append(
                    ctx.error(DUPLICATE_WINDOW.format(value=window.text, line=window_line), d.loc)
                )
            else:
                window, window_line = first, _line(d.loc)
        elif d.name == "slide":
            if slide is not None:
                errors.append(
                    ctx.error(DUPLICATE_SLIDE.format(value=slide.text, line=slide_line), d.loc)
                )
            else:
                slide, slide_line = first, _line(d.loc)
    return errors
