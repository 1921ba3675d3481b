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
    # directive -> (its first value, the line it is on), and the message of a second one
    first_of: dict[str, tuple[Duration, int]] = {}
    messages = {"window": DUPLICATE_WINDOW, "slide": DUPLICATE_SLIDE}
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
        elif d.name in messages:
            if d.name in first_of:
                seen, line = first_of[d.name]
                errors.append(ctx.error(messages[d.name].format(value=seen.text, line=line), d.loc))
            else:
                first_of[d.name] = (first, _line(d.loc))
    return errors
