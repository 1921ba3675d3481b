"""AST to canonical `.dl` text: `print_program(parse(text))` parses back to an equal Program.

Canonical means: one statement per line, directives then a blank line before the first rule
that follows a directive, `, ` between arguments, regexes with only the parentheses their
precedence needs (`|` binds loosest, then `/`, then the postfix `*`, `+`, `?`), names quoted
only when they are not identifiers (or are the keywords `for` / `as`), constants as written
(an integer bare, anything else quoted). specs/language.md has the syntax.
"""

from __future__ import annotations

import re

from . import ast

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_INT = re.compile(r"-?(0|[1-9][0-9]*)")
_UNIT_INT = re.compile(r"-?[0-9]+[A-Za-z_][A-Za-z0-9_]*")
_KEYWORDS = frozenset({"for", "as"})


def quote(text: str) -> str:
    """`"text"` with `\\`, `"`, newlines and tabs escaped the way the parser reads them."""
    body = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    return f'"{body}"'


def name_text(name: str) -> str:
    """A predicate name as written: bare if it is an identifier, else quoted."""
    if _IDENT.fullmatch(name) and name not in _KEYWORDS:
        return name
    return quote(name)


def term_text(term: ast.Term) -> str:
    if isinstance(term, ast.Var):
        return term.name
    if isinstance(term, ast.Anon):
        return "_"
    if not term.quoted and _INT.fullmatch(term.value) and term.value != "-0":
        return term.value
    if not term.quoted and ast.is_float_text(term.value):
        return term.value
    if not term.quoted and _UNIT_INT.fullmatch(term.value):
        return term.value  # `5m` where a vertex constant stands: reported by the checker
    return quote(term.value)


def args_text(args: tuple[ast.Term, ...]) -> str:
    return "(" + ", ".join(term_text(t) for t in args) + ")"


# precedence: 0 = alternation, 1 = concatenation, 2 = postfix / label
def _regex(node: ast.Regex, context: int) -> str:
    if isinstance(node, ast.Label):
        return name_text(node.name) + prop_tests_text(node.props)
    if isinstance(node, ast.Alt):
        text = " | ".join(_regex(o, 1) for o in node.options)
        return f"({text})" if context >= 1 else text
    if isinstance(node, ast.Concat):
        text = "/".join(_regex(p, 2) for p in node.parts)
        return f"({text})" if context >= 2 else text
    op = "*" if isinstance(node, ast.Star) else "+" if isinstance(node, ast.Plus) else "?"
    return _regex(node.inner, 3) + op


def regex_text(regex: ast.Regex) -> str:
    """`a/(b | c)*`: the regex with minimal parentheses.

    Inside an alternation an option that is itself an alternation keeps its parentheses (and
    likewise a concatenation inside a concatenation), so the parsed tree has the same shape.
    """
    return _regex(regex, 0)


def _alias(literal) -> str:
    """` as NAME`: an alias is always an identifier (the grammar's NAME), never quoted."""
    return f" as {literal.alias}" if literal.alias is not None else ""


def _simple(literal) -> str:
    """`simple `: the prefix of a simple-path atom (specs/semantics.md §4a)."""
    return "simple " if literal.simple else ""


def prop_tests_text(tests: tuple[ast.PropTest, ...]) -> str:
    """`{delay < 15, carrier = "AA"}` after a path label (nothing without tests)."""
    if not tests:
        return ""
    return "{" + ", ".join(f"{name_text(t.key)} {t.op} {term_text(t.value)}" for t in tests) + "}"


def _props(literal: ast.Atom) -> str:
    """`{delay: d, carrier: "AA"}` after an input atom's arguments (nothing without)."""
    if not literal.props:
        return ""
    return "{" + ", ".join(f"{name_text(a.key)}: {term_text(a.value)}" for a in literal.props) + "}"


def _time(literal) -> str:
    """`@t` after an atom's arguments, when it binds a time variable."""
    return f"@{literal.time}" if literal.time is not None else ""


def literal_text(literal: ast.Literal) -> str:
    if isinstance(literal, ast.Atom):
        args = args_text(literal.args) + _props(literal) + _time(literal)
        return _simple(literal) + name_text(literal.pred) + args
    if isinstance(literal, ast.Closure):
        args = args_text(literal.args) + _time(literal)
        return _simple(literal) + name_text(literal.pred) + literal.op + args + _alias(literal)
    if isinstance(literal, ast.PathAtom):
        args = args_text(literal.args) + _time(literal)
        return _simple(literal) + f"[{regex_text(literal.regex)}]" + args + _alias(literal)
    left = _side(literal.left, literal.left_offset, literal.left_offset_op)
    return f"{left} {literal.op} {_side(literal.right, literal.offset, literal.offset_op)}"


def _side(term: ast.Term, offset: ast.Duration | None, op: str) -> str:
    """A comparison's side as written: `t1`, `t1 + 1h`, `t2 - 6`."""
    return term_text(term) if offset is None else f"{term_text(term)} {op} {offset.text}"


def rule_text(rule: ast.Rule) -> str:
    body = ", ".join(literal_text(lit) for lit in rule.body)
    return f"{literal_text(rule.head)} :- {body}."


def directive_text(directive: ast.Directive) -> str:
    parts = [f".{directive.name}"]
    if directive.values:
        parts.append(
            ", ".join(
                v.text if isinstance(v, ast.Duration) else name_text(v) for v in directive.values
            )
        )
    if directive.labels:
        parts.append("for " + ", ".join(name_text(label) for label in directive.labels))
    return " ".join(parts)


def print_program(program: ast.Program) -> str:
    """The canonical text of `program`, ending in a newline.

    >>> from sgq.datalog.parser import parse
    >>> print(print_program(parse('.window 24h\\nA(x,y):-[a/(b|"c:d")*](x,y) as P, x!=y.')), end="")
    .window 24h
    <BLANKLINE>
    A(x, y) :- [a/(b | "c:d")*](x, y) as P, x != y.
    """
    lines: list[str] = []
    previous: ast.Statement | None = None
    for statement in program.statements:
        if isinstance(statement, ast.Rule):
            if isinstance(previous, ast.Directive):
                lines.append("")
            lines.append(rule_text(statement))
        else:
            if isinstance(previous, ast.Rule):
                lines.append("")
            lines.append(directive_text(statement))
        previous = statement
    return "\n".join(lines) + "\n" if lines else ""
