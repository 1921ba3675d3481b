"""Rule 16 of the thesis (6.2.3), substitution of transition: P_a(S) = S_a for a letter a.

A PATH over a one-letter expression is its input stream, relabelled:

    PATH[a as d]       ->   RENAME[src, trg -> d]
      WSCAN[a]                WSCAN[a]

Every path of the word `a` is one tuple of S_a, with that tuple's validity. The PATH rules 14,
15 and 17 apply it to the parts they create (regex_factors.path_over); this file is the rule
on its own, for plans that hold such a PATH. Arbitrary-path semantics only: a simple path of
one edge excludes the self-loops.
"""

from __future__ import annotations

from ..algebra import Op, Path, Rename

NAME = "substitute_transition"
THESIS_RULE = 16


def substitute_transition(op: Op) -> tuple[Op, ...]:
    """`(RENAME of the input,)` for an arbitrary-path PATH over one letter; `()` otherwise."""
    if not isinstance(op, Path) or op.simple or op.regex[0] != "label":
        return ()
    return (Rename(op.inputs[0], op.label),)
