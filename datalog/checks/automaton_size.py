"""A path atom's automaton has at most `MAX_STATES` states, or four per node of its
expression if that is more (specs/language.md, "Limits").

PATH runs a deterministic automaton of its expression (base/dfa.py), which the planner, the
optimizer's cost model and the engine each build. Most expressions need about one state per
label, but some need exponentially many: `[(a|b)*/a/(a|b)/(a|b)/.../(a|b)]` with k copies of
`(a|b)` needs 2^(k+1), and at k = 14 its construction alone takes seconds, at 20 minutes. So
the checker builds each path atom's automaton itself, with a bound on its states, and
refuses the first expression that passes the bound, at its place; a program it accepts
never makes the planner or the engine build a larger one. A thousand-label `[a/b/.../z]` (a
thousand states) is accepted. A simple path atom's automaton is bounded by its moves too
(`MAX_SIMPLE_MOVES`).
"""

from __future__ import annotations

from ...base.dfa import AutomatonTooLarge, compile_regex, regex_size
from ..ast import Alt, Concat, Label, PathAtom, Plus, Regex, Star
from ..errors import AUTOMATON_TOO_LARGE, SIMPLE_AUTOMATON_TOO_LARGE, DlError
from .context import CheckContext

#: states a path atom's automaton may have (or 4 per node of its expression, if more)
MAX_STATES = 4096
#: moves a simple path atom's automaton may have (or 2 per node of its expression, if more):
#: the simple-path machinery tests containments per move (base/suffix_languages.py), each
#: a search over pairs of states, so `simple [l0*/l1*/.../ln*]` (n²/2 moves) costs n⁴
MAX_SIMPLE_MOVES = 2048


def regex_tuple(regex: Regex) -> tuple:
    """`regex` in base/dfa.py's tuple form (sga/algebra.py's `Regex`)."""
    if isinstance(regex, Label):
        return ("label", regex.name)
    if isinstance(regex, Concat):
        return ("concat", *(regex_tuple(p) for p in regex.parts))
    if isinstance(regex, Alt):
        return ("alt", *(regex_tuple(o) for o in regex.options))
    kind = "star" if isinstance(regex, Star) else "plus" if isinstance(regex, Plus) else "opt"
    return (kind, regex_tuple(regex.inner))


def check_automaton_size(ctx: CheckContext) -> list[DlError]:
    """`[(a|b)*/a/(a|b)/.../(a|b)]` (12 copies) -> the automaton of this regular expression
    has more than 4096 states"""
    seen: set[tuple] = set()
    for rule in ctx.program.rules:
        for literal in rule.body:
            if not isinstance(literal, PathAtom):
                continue
            regex = regex_tuple(literal.regex)
            if (regex, literal.simple) in seen:
                continue
            seen.add((regex, literal.simple))
            limit = max(MAX_STATES, 4 * regex_size(regex))
            try:
                dfa = compile_regex(regex, limit)
            except AutomatonTooLarge:  # (the first only: each costs `limit` states to find)
                return [ctx.error(AUTOMATON_TOO_LARGE.format(limit=limit), literal.loc)]
            moves = max(MAX_SIMPLE_MOVES, 2 * regex_size(regex))
            if literal.simple and sum(len(row) for row in dfa.delta) > moves:
                return [ctx.error(SIMPLE_AUTOMATON_TOO_LARGE.format(limit=moves), literal.loc)]
    return []
