"""A program that passed every check, with the facts every later stage needs.

Built by `datalog.check.check`; consumed by `sga/translate.py` and the Spark oracle. Windows
here already include command-line overrides (specs/semantics.md §2).
"""

from __future__ import annotations

import attrs

from .ast import Program


@attrs.frozen
class CheckedProgram:
    """A valid program and its derived facts.

    - `window`: the default window ω; `label_windows`: per-label overrides `(label, ω)`.
    - `slide`: the one slide β shared by every window.
    - `edb`: input labels read by some rule body, in first-appearance order.
    - `idb`: derived predicates (rule heads), in first-appearance order.
    - `outputs`: the output predicates (`.output`, else `Answer`).
    - `order`: every predicate in the planner's topological order.
    """

    program: Program
    window: int
    slide: int
    edb: tuple[str, ...]
    idb: tuple[str, ...]
    outputs: tuple[str, ...]
    order: tuple[str, ...]
    label_windows: tuple[tuple[str, int], ...] = ()
    filename: str = "<string>"

    def window_of(self, label: str) -> int:
        """The window ω of input label `label`."""
        for name, size in self.label_windows:
            if name == label:
                return size
        return self.window

    def expiry(self, label: str, t: int) -> int:
        """`⌊t/β⌋·β + ω`: when an edge of `label` inserted at `t` leaves the window."""
        return (t // self.slide) * self.slide + self.window_of(label)
