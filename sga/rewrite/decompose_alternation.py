"""Rule 15 of the thesis (6.2.3), decomposition of alternation:
P_{r1|r2}(S) = P_{r1}(S) ∪ P_{r2}(S).

A PATH whose expression is an alternation of ε-free options becomes the UNION of one PATH per
option (an option that is one letter is its input stream, rule 16):

    PATH[a|b/c]              ->   UNION[[a|b/c]]
      WSCAN[a] WSCAN[b]             RENAME[src, trg -> a]   PATH[b/c as [b/c]]
      WSCAN[c]                        WSCAN[a]                WSCAN[b] WSCAN[c]

A path spells a word of L(r1|r2) iff it spells one of L(r1) or of L(r2); per pair the
validity is the max over paths, which the UNION's coalescing takes across its inputs. Inside a
closure, `(a|b)+`, rule 17 first gives the body its own PATH and this rule then makes it a
UNION. Side conditions: arbitrary-path semantics and no ε option (its pairs need the active
domain).
"""

from __future__ import annotations

from ..algebra import Op, Path, Union, regex_nullable
from .regex_factors import fresh_letter, path_over, streams_of

NAME = "decompose_alternation"
THESIS_RULE = 15


def decompose_alternation(op: Op) -> tuple[Op, ...]:
    """`(UNION of one PATH per option,)` for an arbitrary-path PATH over an alternation of
    ε-free options; `()` otherwise."""
    if not isinstance(op, Path) or op.simple or op.regex[0] != "alt":
        return ()
    options = op.regex[1:]
    if any(regex_nullable(o) for o in options):
        return ()
    streams = streams_of(op)
    parts: list[Op] = []
    for option in options:
        name = option[1] if option[0] == "label" else fresh_letter(option, set(streams))
        node = path_over(option, streams, name)
        if node not in parts:
            parts.append(node)
    return (Union(tuple(parts), op.label),)
