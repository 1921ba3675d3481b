"""Small facts about rules that several checks share: heads, body predicates and where each
first occurs. Pure functions over the AST (STYLE.md: analyses are not stored on nodes)."""

from __future__ import annotations

from ..ast import Alt, Atom, Closure, Concat, Label, Loc, PathAtom, Program, Regex


def heads(program: Program) -> dict[str, Loc | None]:
    """Each rule head -> the loc of its first rule's head atom."""
    out: dict[str, Loc | None] = {}
    for rule in program.rules:
        out.setdefault(rule.head.pred, rule.head.loc)
    return out


def _regex_label_locs(regex: Regex, out: dict[str, Loc | None]) -> None:
    if isinstance(regex, Label):
        out.setdefault(regex.name, regex.loc)
    elif isinstance(regex, Concat):
        for part in regex.parts:
            _regex_label_locs(part, out)
    elif isinstance(regex, Alt):
        for option in regex.options:
            _regex_label_locs(option, out)
    else:
        _regex_label_locs(regex.inner, out)


def literal_pred_locs(literal) -> dict[str, Loc | None]:
    """The predicates a body literal reads -> where each is written in it."""
    out: dict[str, Loc | None] = {}
    if isinstance(literal, (Atom, Closure)):
        out[literal.pred] = literal.loc
    elif isinstance(literal, PathAtom):
        _regex_label_locs(literal.regex, out)
    return out


def body_occurrences(program: Program) -> dict[str, Loc | None]:
    """Each predicate read by a body -> the loc of its first occurrence, in source order."""
    out: dict[str, Loc | None] = {}
    for rule in program.rules:
        for literal in rule.body:
            for name, loc in literal_pred_locs(literal).items():
                out.setdefault(name, loc)
    return out
