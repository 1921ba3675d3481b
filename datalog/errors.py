"""Errors a user sees for a `.dl` file: `FILE:LINE:COL: error: MESSAGE`, the line, a caret.

One base class carries the position; `DlErrors` carries every error of one file so that all
are reported at once. Messages are for people: they say what is wrong and, where it helps,
what to write instead. No user mistake ever surfaces as a Python traceback.
"""

from __future__ import annotations

import attrs

from .ast import Loc


@attrs.define(eq=False)
class DlError(Exception):
    """One error at one place in one `.dl` source."""

    message: str
    loc: Loc | None = None
    filename: str = "<string>"
    source: str | None = None

    def __attrs_post_init__(self) -> None:
        Exception.__init__(self, self.message)

    def __str__(self) -> str:
        return self.render()

    def render(self) -> str:
        """`FILE:LINE:COL: error: MESSAGE`, then the source line and a caret under the column."""
        if self.loc is None:
            return f"{self.filename}: error: {self.message}"
        head = f"{self.filename}:{self.loc.line}:{self.loc.column}: error: {self.message}"
        line = source_line(self.source, self.loc.line)
        if line is None:
            return head
        width = 1
        if self.loc.end_line == self.loc.line and self.loc.end_column:
            width = max(1, self.loc.end_column - self.loc.column)
        caret = " " * (self.loc.column - 1) + "^" + "~" * (width - 1)
        return f"{head}\n    {line}\n    {caret}"


class DlErrors(Exception):
    """Every error found in one source, in source order."""

    def __init__(self, errors: list[DlError]):
        self.errors = sorted(
            errors, key=lambda e: (e.loc.line, e.loc.column) if e.loc else (0, 0)
        )
        super().__init__(self.render())

    def render(self) -> str:
        return "\n".join(e.render() for e in self.errors)

    def __str__(self) -> str:
        return self.render()


def source_line(source: str | None, line: int) -> str | None:
    """The text of 1-based `line` of `source`, tabs expanded to keep the caret aligned."""
    if source is None:
        return None
    lines = source.splitlines()
    if 1 <= line <= len(lines):
        return lines[line - 1]
    return None
