"""The lark grammar `dl.lark` (LALR, built once per process, or loaded from the user's cache:
datalog/parser_cache.py) and a Transformer with one method per grammar rule, named as the rule,
building `datalog.ast` nodes: what `datalog.parser.parse` runs on a program it has not read
before (lark is imported only then).

Syntax errors become `DlErrors` with a position and a message written for people. Semantic
errors (arity, safety, recursion...) are not found here but by `datalog.checks`.
"""

from __future__ import annotations

import functools
import os
import re

import lark
from lark import Lark, Token, v_args
from lark.visitors import Transformer_NonRecursive

from . import ast, errors
from .errors import DlError, DlErrors
from .parser import UNITS, parse_duration
from .parser_cache import cached_parser


def parse_text(text: str, filename: str = "<string>") -> ast.Program:
    """Parse `.dl` text into a Program with lark (syntax only). Raises DlErrors on a syntax
    error."""
    try:
        tree = _lark().parse(text)
    except lark.exceptions.UnexpectedInput as exc:
        raise DlErrors([_syntax_error(exc, filename, text)]) from None
    too_deep = _too_deep(tree)
    if too_deep is not None:
        raise DlErrors(
            [DlError(errors.REGEX_TOO_DEEP.format(limit=MAX_REGEX_DEPTH), too_deep, filename, text)]
        )
    return _ToAst().transform(tree)


@functools.cache
def _lark() -> Lark:
    # (next to this module, as the package data is installed: importlib.resources would
    # import tempfile, shutil and zipfile, a noticeable part of a start)
    with open(os.path.join(os.path.dirname(__file__), "dl.lark"), encoding="utf-8") as f:
        grammar = f.read()
    return cached_parser(
        grammar,
        lambda: Lark(grammar, parser="lalr", propagate_positions=True, maybe_placeholders=True),
    )


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


def _time(tok) -> dict:
    """The `time` and `time_loc` keywords of an atom from its `@NAME` token (or None)."""
    if tok is None:
        return {}
    return {"time": str(tok), "time_loc": _loc_of(tok)}


class _PredName:
    """A predicate name with whether the user quoted it (kept for printing)."""

    __slots__ = ("name", "quoted", "loc")

    def __init__(self, name: str, quoted: bool, loc: ast.Loc | None):
        self.name, self.quoted, self.loc = name, quoted, loc


@v_args(meta=True)
class _ToAst(Transformer_NonRecursive):
    """One method per rule of dl.lark, building the class of the same name.

    Non-recursive, so a deep tree (thousands of stacked postfix operators) cannot overflow
    Python's stack here."""

    def start(self, meta, statements):
        return ast.Program(tuple(statements))

    # -- directives
    def directive(self, meta, children):
        name_tok, values, for_tok, labels = children
        values = values or []
        labels = labels or []
        return ast.Directive(
            name=str(name_tok)[1:],
            values=tuple(v for v, _ in values),
            labels=tuple(p.name for p in labels),
            loc=_loc_of(name_tok),
            value_locs=tuple(loc for _, loc in values),
            label_locs=tuple(p.loc for p in labels),
            for_loc=_loc_of(for_tok) if for_tok is not None else None,
        )

    def dir_values(self, meta, children):
        return [(c.name, c.loc) if isinstance(c, _PredName) else (c, c.loc) for c in children]

    def duration(self, meta, children):
        """Kept even when invalid (value 0): `checks/durations.py` reports it with the rest."""
        (tok,) = children
        try:
            value = parse_duration(str(tok))
        except ValueError:
            value = 0
        return ast.Duration(value, str(tok), loc=_loc_of(tok))

    def pred_list(self, meta, children):
        return list(children)

    # -- rules
    def rule(self, meta, children):
        head, body = children
        return ast.Rule(head, tuple(body), loc=_loc_of(head) or ast.Loc(meta.line, meta.column))

    def body(self, meta, children):
        return list(children)

    def atom(self, meta, children):
        pred, args, props, time = children
        return ast.Atom(
            pred.name, args, quoted=pred.quoted, loc=pred.loc, props=props or (), **_time(time)
        )

    def props(self, meta, children):
        return tuple(children)

    def prop_arg(self, meta, children):
        key, value = children
        return ast.PropArg(key.name, value, key_quoted=key.quoted, loc=key.loc)

    def prop_key(self, meta, children):
        return self.pred_name(meta, children)

    def prop_tests(self, meta, children):
        return tuple(children)

    def prop_test(self, meta, children):
        key, op, value = children
        return ast.PropTest(key.name, str(op), value, key_quoted=key.quoted, loc=key.loc)

    def float_const(self, meta, children):
        """`1.5`: a property value (specs/semantics.md §4c), kept in its shortest form."""
        (tok,) = children
        return ast.Const(repr(float(str(tok))), quoted=False, loc=_loc_of(tok))

    def simple_atom(self, meta, children):
        simple, pred, args = children
        return ast.Atom(pred.name, args, quoted=pred.quoted, simple=True, loc=_loc_of(simple))

    def closure(self, meta, children):
        simple, name, op, args, time, _as, alias = children
        pred = self.pred_name(meta, [name])
        return ast.Closure(
            pred.name,
            str(op),
            args,
            alias=str(alias) if alias else None,
            quoted=pred.quoted,
            simple=simple is not None,
            loc=pred.loc,
            alias_loc=_loc_of(alias) if alias else None,
            **_time(time),
        )

    def path_atom(self, meta, children):
        simple, regex, args, time, _as, alias = children
        return ast.PathAtom(
            regex,
            args,
            alias=str(alias) if alias else None,
            simple=simple is not None,
            loc=ast.Loc(meta.line, meta.column, meta.end_line, meta.end_column),
            alias_loc=_loc_of(alias) if alias else None,
            **_time(time),
        )

    def time(self, meta, children):
        (tok,) = children
        return tok

    def comparison(self, meta, children):
        (left, left_op, left_offset), op, (right, right_op, right_offset) = children
        extra = {}
        if left_offset is not None:
            extra.update(left_offset=left_offset, left_offset_op=str(left_op))
        if right_offset is not None:
            extra.update(offset=right_offset, offset_op=str(right_op))
        return ast.Comparison(
            left,
            str(op),
            right,
            loc=ast.Loc(meta.line, meta.column, meta.end_line, meta.end_column),
            **extra,
        )

    def side(self, meta, children):
        """A comparison's side: its term, then the offset's sign and duration (or None)."""
        tok, offset_op, offset = children
        term = {
            "NAME": self.variable,
            "STRING": self.string_const,
            "SIGNED_INT": self.int_const,
            "UNIT_INT": self.unit_const,
            "FLOAT": self.float_const,
        }[tok.type](meta, [tok])
        return term, offset_op, offset

    def offset(self, meta, children):
        (tok,) = children
        if tok.type == "FLOAT":  # a property comparison's (checks/properties.py)
            return ast.Duration(float(str(tok)), str(tok), loc=_loc_of(tok))
        return self.duration(meta, children)

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

    def unit_const(self, meta, children):
        """`5m` where a vertex constant stands: kept as written, unquoted, for
        checks/constant_units.py to report."""
        (tok,) = children
        return ast.Const(str(tok), quoted=False, loc=_loc_of(tok))

    def pred_name(self, meta, children):
        (tok,) = children
        if tok.type == "STRING":
            return _PredName(_unquote(str(tok)), True, _loc_of(tok))
        return _PredName(str(tok), False, _loc_of(tok))

    # -- regular expressions
    label_name = pred_name

    def label(self, meta, children):
        pred, tests = children
        return ast.Label(pred.name, loc=pred.loc, props=tests or ())

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
    "NAME": "a name",
    "STRING": "a quoted string",
    "INT": "an integer",
    "SIGNED_INT": "an integer",
    "DURATION": "a duration",
    "SIGNED_DURATION": "a duration",
    "DIRECTIVE": "a directive",
    "LPAR": "'('",
    "RPAR": "')'",
    "COMMA": "','",
    "DOT": "'.'",
    "LSQB": "'['",
    "RSQB": "']'",
    "SLASH": "'/'",
    "VBAR": "'|'",
    "STAR": "'*'",
    "PLUS": "'+'",
    "QMARK": "'?'",
    "MINUS": "'-'",
    "UNIT_INT": "an integer",
    "FLOAT": "a number",
    "COLON": "':'",
    "LBRACE": "'{'",
    "RBRACE": "'}'",
    "COMPARE_OP": "a comparison ('=', '!=', '<', '<=', '>', '>=')",
    "AT": "'@'",
    "__ANON_0": "':-'",
    "FOR": "'for'",
    "AS": "'as'",
    "SIMPLE": "'simple'",
    "$END": "the end of the file",
}

# A small lexer for the error path only: it finds the tokens before an error position, so a
# message can say what the parser had just read (lark's exception only knows the bad token).
_SCAN = re.compile(
    r"(?P<ws>\s+)|(?P<comment>//[^\n]*|/\*(?:.|\n)*?\*/)|(?P<string>\"(?:[^\"\\\n]|\\.)*\")"
    r"|(?P<directive>\.[A-Za-z_][A-Za-z0-9_]*)|(?P<word>-?[0-9A-Za-z_]+)|(?P<other>:-|!=|.)",
    re.DOTALL,
)


def _tokens_before(text: str, pos: int) -> list[tuple[str, str, int]]:
    """(kind, text, start) of every token that ends at or before `pos`, comments skipped."""
    out = []
    for m in _SCAN.finditer(text, 0, pos):
        kind = m.lastgroup
        if kind not in ("ws", "comment") and m.end() <= pos:
            out.append((kind, m.group(), m.start()))
    return out


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _describe(expected) -> str:
    names = sorted({_TOKEN_NAMES.get(e, repr(e)) for e in expected if e in _TOKEN_NAMES})
    if not names:
        return ""
    if len(names) == 1:
        return f"; expected {names[0]}"
    return "; expected " + ", ".join(names[:-1]) + " or " + names[-1]


def _acceptable(exc) -> set[str]:
    """The tokens the parser really accepts here (the LALR state's list can hold more)."""
    parser = getattr(exc, "interactive_parser", None)
    if parser is not None:
        try:
            return set(parser.accepts())
        except Exception:  # pragma: no cover - fall back to lark's own list
            pass
    return set(getattr(exc, "expected", None) or getattr(exc, "allowed", None) or ())


def _pos_loc(text: str, pos: int, width: int = 1) -> ast.Loc:
    line = _line_of(text, pos)
    col = pos - (text.rfind("\n", 0, pos) + 1) + 1
    return ast.Loc(line, col, line, col + width)


def _end_loc(text: str, before: list[tuple[str, str, int]]) -> ast.Loc:
    """Just after the last token: where the missing text belongs."""
    if not before:
        return _pos_loc(text, 0)
    _, tok, start = before[-1]
    return _pos_loc(text, start + len(tok))


def _swallowed_by_directive(before: list[tuple[str, str, int]]) -> tuple[str, str, int] | None:
    """When a name was taken as a directive's value: (name, directive, directive line)."""
    if not before or before[-1][0] not in ("word", "string"):
        return None
    for kind, tok, start in reversed(before[:-1]):
        if kind == "directive":
            return before[-1][1], tok[1:], start
        if not (kind in ("word", "string") or tok == ","):
            return None
    return None


def _after_directive(
    text: str, before: list[tuple[str, str, int]]
) -> tuple[str, str, str, int] | None:
    """When the token just read is a word that follows a directive's values on the
    directive's own line (`.window 1 d`, `.output A B`), and the parser fails right after
    it: (that word, the directive, its last value, the word's offset). The parser took the
    word for the head of a rule, so lark's own complaint is about whatever comes next."""
    if not before or before[-1][0] not in ("word", "string"):
        return None
    for d in range(len(before) - 2, -1, -1):
        if before[d][0] == "directive":
            break
    else:
        return None
    directive_line = _line_of(text, before[d][2])
    tokens = before[d + 1 :]
    i, value = 0, None
    while i < len(tokens) and tokens[i][0] in ("word", "string"):  # value (, value)* [for ...]
        value = tokens[i][1]
        if i + 1 < len(tokens) and (tokens[i + 1][1] == "," or tokens[i + 1][1] == "for"):
            i += 2
        else:
            i += 1
            break
    if value is None or i != len(tokens) - 1 or tokens[i][1] == "for":
        return None
    _, word, start = tokens[i]
    if _line_of(text, start) != directive_line:
        return None
    last = tokens[i - 1]
    values = text[tokens[0][2] : last[2] + len(last[1])]
    return word, before[d][1][1:], values, start


def stray_word_error(stray: tuple[str, str, str, int], filename: str, text: str) -> DlError:
    """The message for `_after_directive`'s word, at the word."""
    word, directive, value, start = stray
    number = value.rsplit(None, 1)[-1]
    if number.isdigit() and word in UNITS:
        hint = f"write the unit right after the number, '.{directive} {value}{word}'"
    else:
        hint = "separate the values of a directive with ','"
    return DlError(
        errors.SYNTAX_AFTER_DIRECTIVE.format(
            word=word, directive=directive, value=value, hint=hint
        ),
        _pos_loc(text, start, len(word)),
        filename,
        text,
    )


def _syntax_error(exc: lark.exceptions.UnexpectedInput, filename: str, text: str) -> DlError:
    pos = getattr(exc, "pos_in_stream", None)
    if isinstance(exc, lark.exceptions.UnexpectedToken) and exc.token.type == "$END":
        pos = len(text)
    if pos is None:
        pos = len(text)
    # an unterminated block comment shows up as a stray '/' (or '*')
    comment = text.rfind("/*", 0, pos + 2)
    if (
        comment != -1
        and text.startswith("/*", comment)
        and comment >= pos - 1
        and "*/" not in text[comment + 2 :]
    ):
        line = _line_of(text, comment)
        col = comment - (text.rfind("\n", 0, comment) + 1) + 1
        return DlError(errors.SYNTAX_COMMENT, ast.Loc(line, col, line, col + 2), filename, text)
    accepts = _acceptable(exc)
    before = _tokens_before(text, pos)
    if isinstance(exc, lark.exceptions.UnexpectedCharacters):
        line, col = exc.line, exc.column
        loc = ast.Loc(line, col, line, col + 1)
        ch = text[pos] if pos < len(text) else ""
        if ch == '"':
            return DlError(errors.SYNTAX_STRING, loc, filename, text)
        if ch == ":" or text.startswith("<-", pos):
            if "__ANON_0" in accepts or not accepts:
                return DlError(
                    errors.SYNTAX_IF,
                    ast.Loc(line, col, line, col + (2 if ch == "<" else 1)),
                    filename,
                    text,
                )
        return DlError(
            errors.SYNTAX_CHAR.format(char=ch, expected=_describe(accepts)), loc, filename, text
        )
    tok = exc.token
    stray = _after_directive(text, before)
    if stray is not None:
        return stray_word_error(stray, filename, text)
    if tok.type == "$END":
        loc = _end_loc(text, before)
        if "DOT" in accepts:
            return DlError(errors.SYNTAX_EOF_DOT, loc, filename, text)
        return DlError(errors.SYNTAX_EOF.format(expected=_describe(accepts)), loc, filename, text)
    loc = ast.Loc(tok.line, tok.column, tok.end_line, tok.end_column)
    if (text.startswith("<-", pos) or str(tok) == ":") and "__ANON_0" in accepts:
        # `<` lexes as a comparison since time variables (`t1 < t2`) exist, `:` as the
        # separator of a property's name and value (`{delay: d}`)
        return DlError(
            errors.SYNTAX_IF,
            ast.Loc(tok.line, tok.column, tok.line, tok.column + len(str(tok)) + (str(tok) == "<")),
            filename,
            text,
        )
    if str(tok) == "(" and "LPAR" not in accepts:
        swallowed = _swallowed_by_directive(before)
        if swallowed is not None:
            name, directive, start = swallowed
            where = _pos_loc(text, before[-1][2], len(name))
            return DlError(
                errors.SYNTAX_DIRECTIVE_VALUE.format(
                    name=name, directive=directive, line=_line_of(text, start)
                ),
                where,
                filename,
                text,
            )
    if tok.type in ("PLUS", "STAR") and accepts == {"LPAR"} and before:
        return DlError(errors.SYNTAX_HEAD.format(name=before[-1][1]), loc, filename, text)
    if {"INT", "DURATION"} <= accepts and before and before[-1][1] in ("+", "-"):
        # a comparison's side: `t1 + x`, `t2 - -5`
        return DlError(
            errors.SYNTAX_OFFSET.format(op=before[-1][1], token=f"'{tok}'"), loc, filename, text
        )
    if "DOT" in accepts and before and _line_of(text, before[-1][2]) < tok.line:
        # the statement ended on an earlier line without its '.'
        first = before[-1]
        return DlError(
            errors.SYNTAX_MISSING_DOT.format(token=f"'{tok}'", line=_line_of(text, first[2])),
            loc,
            filename,
            text,
        )
    return DlError(
        errors.SYNTAX_TOKEN.format(token=f"'{tok}'", expected=_describe(accepts)),
        loc,
        filename,
        text,
    )


MAX_REGEX_DEPTH = 200  # the checks and the planner walk regexes recursively


def _too_deep(tree: lark.Tree) -> ast.Loc | None:
    """Where the first regular expression nested deeper than MAX_REGEX_DEPTH starts, if any
    (an iterative walk: the tree itself may be far deeper than Python's stack)."""
    stack = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_REGEX_DEPTH:
            return _loc_of(node)
        regex = node.data in _REGEX_RULES
        for child in node.children:
            if isinstance(child, lark.Tree):
                stack.append((child, depth + 1 if regex else depth))
    return None


_REGEX_RULES = frozenset({"star", "plus", "optional", "concat", "alt"})
