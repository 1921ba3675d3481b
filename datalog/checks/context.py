"""What every check receives: the program, where it came from, and the directive facts.

`directive_facts` reads `.window`, `.slide` and `.input` leniently (the first well-formed value
wins), so each check can rely on them while the directive checks report what is malformed.
"""

from __future__ import annotations

import attrs

from ..ast import Directive, Duration, Loc, Program
from ..errors import DlError


@attrs.frozen
class DirectiveFacts:
    """The window, slide and input declarations of a program, with where they were written."""

    window: Duration | None = None  # the first default `.window`
    label_windows: dict[str, tuple[Duration, Loc | None]] = attrs.field(factory=dict)
    slide: Duration | None = None  # the first `.slide`
    inputs: dict[str, Loc | None] = attrs.field(factory=dict)  # `.input` names -> first loc
    input_lines: dict[str, int] = attrs.field(factory=dict)  # `.input` names -> directive line


def directive_facts(program: Program) -> DirectiveFacts:
    """The first well-formed value of each window, slide and input declaration."""
    facts = DirectiveFacts()
    window, slide = None, None
    for d in program.directives:
        first = d.values[0] if d.values else None
        if d.name == "window" and isinstance(first, Duration):
            if d.labels:
                locs = d.label_locs or (None,) * len(d.labels)
                for label, loc in zip(d.labels, locs):
                    facts.label_windows.setdefault(label, (first, loc))
            elif window is None:
                window = first
        elif d.name == "slide" and isinstance(first, Duration) and slide is None:
            slide = first
        elif d.name == "input":
            locs = d.value_locs or (None,) * len(d.values)
            for value, loc in zip(d.values, locs):
                if isinstance(value, str):
                    facts.inputs.setdefault(value, loc)
                    if d.loc is not None:
                        facts.input_lines.setdefault(value, d.loc.line)
    return attrs.evolve(facts, window=window, slide=slide)


@attrs.define
class CheckContext:
    """A program under check, its source (for carets) and the command-line overrides."""

    program: Program
    filename: str = "<string>"
    source: str | None = None
    window: int | None = None  # --window: replaces the default `.window`
    slide: int | None = None  # --slide: replaces `.slide`
    facts: DirectiveFacts = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        self.facts = directive_facts(self.program)

    def error(self, message: str, loc: Loc | None) -> DlError:
        return DlError(message, loc, self.filename, self.source)

    def directives_named(self, name: str) -> list[Directive]:
        return [d for d in self.program.directives if d.name == name]
