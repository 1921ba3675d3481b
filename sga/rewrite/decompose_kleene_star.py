"""Rule 17 of the thesis (6.2.3), decomposition of Kleene star: P_{r*}(S) = P_{d*}(P_r(S)).

The body `r` of a closure (`r+` or `r*`, anywhere in the PATH's expression) is evaluated by its
own PATH, whose output is the single letter `d` the closure runs over. This is what turns the
FA-based plan of SGA Q4 into the α-RA plan of thesis Fig. 6.9 (Q2p/Q3p): with rule 14 on the
inner PATH, its concatenation becomes a PATTERN and the closure runs over that join's output:

    PATH[(likes/hasCreator/knows)+]      ->   PATH["[likes/hasCreator/knows]"+]
      WSCAN[likes] WSCAN[hasCreator]            PATH[likes/hasCreator/knows as [...]]
      WSCAN[knows]                                WSCAN[likes] WSCAN[hasCreator] WSCAN[knows]

Sound by substitution of regular languages (regex_factors.py): at every instant the paths of
`r+` are the d-paths over the pairs joined by an r-path, and PATH's max-min validity (Def 34)
distributes over the segments. Side conditions: an arbitrary-path PATH (a simple path of
`d`-steps need not be a simple path of edges), `r` not a single letter (nothing to gain) and
ε-free (the inner PATH would need the active domain for its ε-pairs). Witness paths change
(one `d` tuple per r-segment), so the optimizer leaves plans alone when they are wanted.
"""

from __future__ import annotations

from ..algebra import Op, Path, regex_nullable
from .regex_factors import positions, substitute

NAME = "decompose_kleene_star"
THESIS_RULE = 17


def decompose_kleene_star(op: Op) -> tuple[Op, ...]:
    """The plans of `op` with one closure body read from its own PATH (one per closure whose
    body qualifies); `()` when `op` is no arbitrary-path PATH or has no such closure."""
    if not isinstance(op, Path) or op.simple:
        return ()
    return tuple(
        substitute(op, at + (1,))
        for at, sub in positions(op.regex)
        if sub[0] in ("star", "plus") and sub[1][0] != "label" and not regex_nullable(sub[1])
    )
