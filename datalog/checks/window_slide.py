"""The slide must not exceed any window: `1 ≤ β ≤ ω` (specs/semantics.md §2; per-label windows
share the one slide)."""

from __future__ import annotations

from ..ast import Duration
from ..errors import SLIDE_TOO_LARGE, DlError
from ..parser import format_duration
from .context import CheckContext


def check_slide_within_windows(ctx: CheckContext) -> list[DlError]:
    """`.window 1h` + `.slide 2h` -> slide 2h is larger than the window 1h; ..."""
    facts = ctx.facts
    if ctx.slide is not None:
        slide_value, slide_text, loc = ctx.slide, format_duration(ctx.slide), None
    elif facts.slide is not None and facts.slide.value >= 1:
        slide_value, slide_text, loc = facts.slide.value, facts.slide.text, facts.slide.loc
    else:
        return []
    windows: list[tuple[int, str, str, object]] = []
    if ctx.window is not None:
        windows.append((ctx.window, format_duration(ctx.window), "", None))
    elif facts.window is not None and facts.window.value >= 1:
        windows.append((facts.window.value, facts.window.text, "", facts.window.loc))
    by_directive: dict[int, tuple[Duration, list[str]]] = {}
    for label, (duration, _) in facts.label_windows.items():
        if duration.value >= 1:
            by_directive.setdefault(id(duration), (duration, []))[1].append(f"'{label}'")
    for duration, labels in by_directive.values():
        windows.append((duration.value, duration.text, " of " + ", ".join(labels), duration.loc))
    errors = []
    for value, text, of_label, window_loc in windows:
        if slide_value > value:
            errors.append(
                ctx.error(
                    SLIDE_TOO_LARGE.format(slide=slide_text, window=text, of_label=of_label),
                    loc if loc is not None else window_loc,
                )
            )
    return errors
