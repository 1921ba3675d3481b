"""Text to AST: the lark grammar `dl.lark` (LALR, built once per process) and a Transformer
with one method per grammar rule, named as the rule, building `datalog.ast` nodes.

Syntax errors become `DlErrors` with a position and a message written for people. Semantic
errors (arity, safety, recursion...) are not found here but by `datalog.checks`.
"""

from __future__ import annotations

import functools
from importlib import resources

import lark
from lark import Lark, Token, Transformer, v_args

from . import ast
from .errors import DlError, DlErrors

UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


@functools.cache
def _lark() -> Lark:
    grammar = resources.files(__package__).joinpath("dl.lark").read_text(encoding="utf-8")
    return Lark(grammar, parser="lalr", propagate_positions=True, maybe_placeholders=True)


def _loc_of(item) -> ast.Loc | None:
    meta = getattr(item, "meta", None)
    if meta is not None and not getattr(meta, "empty", True):
        return ast.Loc(meta.line, meta.column, meta.end_line, meta.end_column)
    if isinstance(item, Token) and item.line is not None:
        return ast.Loc(item.line, item.column, item.end_line, item.end_column)
    return None


def _unquote(text: str) -> str:
    body = text[1:-1]
    if "\\" not in body:
        return body
    out, i = [], 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            out.append({"n": "\n", "t": "\t"}.get(nxt, nxt))
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


class _PredName:
    """A predicate name with whether the user quoted it (kept for printing)."""

    __slots__ = ("name", "quoted", "loc")

    def __init__(self, name: str, quoted: bool, loc: ast.Loc | None):
        self.name, self.quoted, self.loc = name, quoted, loc


class BadDuration(Exception):
    def __init__(self, text: str, loc: ast.Loc | None, reason: str):
        super().__init__(reason)
        self.text, self.loc, self.reason = text, loc, reason


def parse_duration(text: str) -> int:
    """`24h` -> 86400, `10` -> 10. Raises ValueError with a reason for anything else."""
    if text.startswith("-"):
        raise ValueError(f"bad duration '{text}': a duration must be a positive integer")
    digits = len(text) - len(text.lstrip("0123456789"))
    number, unit = text[:digits], text[digits:]
    if not number:
        raise ValueError(f"bad duration '{text}': expected an integer with an optional unit")
    if unit and unit not in UNITS:
        raise ValueError(
            f"bad duration '{text}': unknown unit '{unit}' (units: s, m, h, d, w)"
        )
    value = int(number) * UNITS.get(unit, 1)
    if value < 1:
        raise ValueError(f"bad duration '{text}': a duration must be at least 1")
    return value


@v_args(meta=True)
class _ToAst(Transformer):
    """One method per rule of dl.lark, building the class of the same name."""

    def start(self, meta, statements):
        return ast.Program(tuple(statements))

    # -- directives
    def directive(self, meta, children):
        name_tok, values, _for, labels = children
        return ast.Directive(
            name=str(name_tok)[1:],
            values=tuple(values or ()),
            labels=tuple(p.name for p in (labels or ())),
            loc=_loc_of(name_tok),
        )

    def dir_values(self, meta, children):
        return [c.name if isinstance(c, _PredName) else c for c in children]

    def duration(self, meta, children):
        (tok,) = children
        loc = _loc_of(tok)
        try:
            value = parse_duration(str(tok))
        except ValueError as exc:
            raise BadDuration(str(tok), loc, str(exc)) from None
        return ast.Duration(value, str(tok), loc=loc)

    def pred_list(self, meta, children):
        return list(children)

    # -- rules
    def rule(self, meta, children):
        head, body = children
        return ast.Rule(head, tuple(body), loc=_loc_of(head) or ast.Loc(meta.line, meta.column))

    def body(self, meta, children):
        return list(children)

    def atom(self, meta, children):
        pred, args = children
        return ast.Atom(pred.name, args, quoted=pred.quoted, loc=pred.loc)

    def closure(self, meta, children):
        pred, op, args, _as, alias = children
        return ast.Closure(
            pred.name, str(op), args, alias=str(alias) if alias else None,
            quoted=pred.quoted, loc=pred.loc,
        )

    def path_atom(self, meta, children):
        regex, args, _as, alias = children
        return ast.PathAtom(
            regex, args, alias=str(alias) if alias else None,
            loc=ast.Loc(meta.line, meta.column, meta.end_line, meta.end_column),
        )

    def comparison(self, meta, children):
        left, op, right = children
        return ast.Comparison(left, str(op), right, loc=left.loc)

    def args(self, meta, children):
        return tuple(c for c in children if c is not None)

    def variable(self, meta, children):
        (tok,) = children
        if str(tok) == "_":
            return ast.Anon(loc=_loc_of(tok))
        return ast.Var(str(tok), loc=_loc_of(tok))

    def string_const(self, meta, children):
        (tok,) = children
        return ast.Const(_unquote(str(tok)), quoted=True, loc=_loc_of(tok))

    def int_const(self, meta, children):
        (tok,) = children
        return ast.Const(str(int(str(tok))), quoted=False, loc=_loc_of(tok))

    def pred_name(self, meta, children):
        (tok,) = children
        if tok.type == "STRING":
            return _PredName(_unquote(str(tok)), True, _loc_of(tok))
        return _PredName(str(tok), False, _loc_of(tok))

    # -- regular expressions
    def label(self, meta, children):
        (pred,) = children
        return ast.Label(pred.name, loc=pred.loc)

    def concat(self, meta, children):
        return ast.Concat(tuple(children), loc=children[0].loc)

    def alt(self, meta, children):
        return ast.Alt(tuple(children), loc=children[0].loc)

    def star(self, meta, children):
        return ast.Star(children[0], loc=children[0].loc)

    def plus(self, meta, children):
        return ast.Plus(children[0], loc=children[0].loc)

    def optional(self, meta, children):
        return ast.Optional(children[0], loc=children[0].loc)


_TOKEN_NAMES = {
    "NAME": "a name", "STRING": "a quoted string", "INT": "an integer",
    "SIGNED_INT": "an integer", "DURATION": "a duration", "SIGNED_DURATION": "a duration",
    "DIRECTIVE": "a directive", "LPAR": "'('", "RPAR": "')'", "COMMA": "','", "DOT": "'.'",
    "LSQB": "'['", "RSQB": "']'", "SLASH": "'/'", "VBAR": "'|'", "STAR": "'*'",
    "PLUS": "'+'", "QMARK": "'?'", "CLOSURE_OP": "'+' or '*'", "COMPARE_OP": "'=' or '!='",
    "IF": "':-'", "FOR": "'for'", "AS": "'as'", "$END": "the end of the file",
}


def _describe_expected(expected) -> str:
    names = sorted({_TOKEN_NAMES.get(e, repr(e)) for e in expected if not e.startswith("__")})
    if not names:
        return ""
    if len(names) == 1:
        return f"; expected {names[0]}"
    return "; expected " + ", ".join(names[:-1]) + " or " + names[-1]


def _syntax_error(exc: lark.exceptions.UnexpectedInput, filename: str, text: str) -> DlError:
    loc = ast.Loc(exc.line, exc.column) if getattr(exc, "line", -1) not in (None, -1) else None
    if isinstance(exc, lark.exceptions.UnexpectedCharacters):
        ch = text[exc.pos_in_stream] if exc.pos_in_stream < len(text) else ""
        if ch == '"':
            msg = "unterminated string (a string ends with '\"' on the same line)"
        elif text.startswith("/*", exc.pos_in_stream):
            msg = "unterminated comment (a block comment ends with '*/')"
        else:
            msg = f"unexpected character '{ch}'"
        return DlError(msg, loc, filename, text)
    if isinstance(exc, lark.exceptions.UnexpectedEOF):
        lines = text.splitlines() or [""]
        loc = ast.Loc(len(lines), len(lines[-1]) + 1)
        return DlError(
            "unexpected end of file" + _describe_expected(exc.expected)
            + " (is a rule missing its final '.'?)", loc, filename, text,
        )
    tok = exc.token
    if tok.type == "$END":
        lines = text.splitlines() or [""]
        loc = ast.Loc(len(lines), len(lines[-1]) + 1)
        return DlError(
            "unexpected end of file" + _describe_expected(exc.expected)
            + " (is a rule missing its final '.'?)", loc, filename, text,
        )
    loc = ast.Loc(tok.line, tok.column, tok.end_line, tok.end_column)
    return DlError(
        f"unexpected '{tok}'" + _describe_expected(exc.expected), loc, filename, text
    )


def parse(text: str, filename: str = "<string>") -> ast.Program:
    """Parse `.dl` text into a Program (syntax only). Raises DlErrors on a syntax error.

    >>> parse("A(x, y) :- a(x, y).").rules[0].head.pred
    'A'
    """
    try:
        tree = _lark().parse(text)
    except lark.exceptions.UnexpectedInput as exc:
        raise DlErrors([_syntax_error(exc, filename, text)]) from None
    try:
        return _ToAst().transform(tree)
    except lark.exceptions.VisitError as exc:
        if isinstance(exc.orig_exc, BadDuration):
            bad = exc.orig_exc
            raise DlErrors([DlError(bad.reason, bad.loc, filename, text)]) from None
        raise
