"""The abstract syntax of a `.dl` program: frozen attrs classes, one per grammar rule.

Class names match the rule names of `dl.lark` (`path_atom` -> `PathAtom`). Every node carries
a `loc` (line, column) for error messages; `loc` takes no part in equality or hashing, so a
program printed and parsed again compares equal to the original (see `printer.py`).

Analyses (dependency graph, topological order, safety) are pure functions over these nodes in
their own modules; nothing is cached on the nodes (STYLE.md, Soufflé's analyses).
"""

from __future__ import annotations

import re

import attrs


@attrs.frozen
class Loc:
    """A 1-based source position: where a node starts."""

    line: int
    column: int
    end_line: int | None = None
    end_column: int | None = None


def _loc() -> Loc | None:
    return attrs.field(default=None, eq=False, hash=False, repr=False, kw_only=True)


# ---- terms -------------------------------------------------------------------------------


@attrs.frozen
class Var:
    """A variable: an identifier other than `_`."""

    name: str
    loc: Loc | None = _loc()


@attrs.frozen
class Const:
    """A constant vertex id: a quoted string or an integer, kept as its text.

    `42`, `"42"` and the vertex id `42` are equal (specs/semantics.md §3); `quoted` only tells the
    printer how the user wrote it.
    """

    value: str
    quoted: bool = attrs.field(default=True, eq=False, hash=False)
    loc: Loc | None = _loc()


@attrs.frozen
class Anon:
    """The anonymous variable `_`: every occurrence is a fresh variable."""

    loc: Loc | None = _loc()


Term = Var | Const | Anon


def has_unit(term: Term) -> bool:
    """Whether `term` is a number written with a unit where a vertex constant stands (`5m`):
    the parser keeps it, unquoted, so that the checker can say what to write instead."""
    return (
        isinstance(term, Const)
        and not term.quoted
        and not _INTEGER.fullmatch(term.value)
        and not _FLOAT.fullmatch(term.value)
    )


_INTEGER = re.compile(r"-?[0-9]+")
_FLOAT = re.compile(r"-?[0-9]+\.[0-9]+(?:[eE][-+]?[0-9]+)?")


def is_float_text(text: str) -> bool:
    """Whether an unquoted constant is a decimal number (`1.5`): a property value, never a
    vertex id."""
    return _FLOAT.fullmatch(text) is not None


PropValue = int | float | str


def property_value(const: Const) -> PropValue:
    """The typed value a constant stands for where a property is compared (specs/semantics.md
    §4c): a quoted constant is a string, `15` an integer, `1.5` a float."""
    if const.quoted:
        return const.value
    if _INTEGER.fullmatch(const.value):
        return int(const.value)
    return float(const.value)


# ---- properties --------------------------------------------------------------------------


@attrs.frozen
class PropArg:
    """`key: value` in an input atom's braces (specs/semantics.md §4c): a variable binds the
    edge's property `key` (the atom matches only edges that have it), a constant tests it for
    equality (`property_value` gives the typed value), `_` tests that it is present."""

    key: str
    value: Term
    key_quoted: bool = attrs.field(default=False, eq=False, hash=False)
    loc: Loc | None = _loc()
    #: the typed value of a constant (`15` and `"15"` differ here, unlike vertex constants)
    typed: PropValue | None = attrs.field(
        default=attrs.Factory(lambda self: _typed(self.value), takes_self=True), repr=False
    )


@attrs.frozen
class PropTest:
    """`key op constant` in a path label's braces, `flight{delay < 15}`: the label stands for
    its edges that pass every test."""

    key: str
    op: str  # "=", "!=", "<", "<=", ">", ">="
    value: Const
    key_quoted: bool = attrs.field(default=False, eq=False, hash=False)
    loc: Loc | None = _loc()
    typed: PropValue | None = attrs.field(
        default=attrs.Factory(lambda self: _typed(self.value), takes_self=True), repr=False
    )


def _typed(value: Term) -> PropValue | None:
    """The typed value of a property constant (None for a variable or `_`); a constant with a
    unit, which the checker refuses, as its text."""
    if not isinstance(value, Const):
        return None
    if not value.quoted and has_unit(value):
        return value.value
    return property_value(value)


# ---- regular expressions of path atoms ---------------------------------------------------


@attrs.frozen
class Label:
    """A predicate name inside a regular expression; `props`, tests on an input label's
    edges (`flight{delay < 15}`), the label's edges that pass them all."""

    name: str
    loc: Loc | None = _loc()
    props: tuple[PropTest, ...] = attrs.field(default=(), kw_only=True)


@attrs.frozen
class Concat:
    """`r1 / r2 / ...` (two or more parts)."""

    parts: tuple[Regex, ...]
    loc: Loc | None = _loc()


@attrs.frozen
class Alt:
    """`r1 | r2 | ...` (two or more options)."""

    options: tuple[Regex, ...]
    loc: Loc | None = _loc()


@attrs.frozen
class Star:
    """`r*`: zero or more."""

    inner: Regex
    loc: Loc | None = _loc()


@attrs.frozen
class Plus:
    """`r+`: one or more."""

    inner: Regex
    loc: Loc | None = _loc()


@attrs.frozen
class Optional:
    """`r?`: zero or one."""

    inner: Regex
    loc: Loc | None = _loc()


Regex = Label | Concat | Alt | Star | Plus | Optional


def regex_label_nodes(regex: Regex) -> list[Label]:
    """Every label occurrence of `regex`, left to right."""
    out: list[Label] = []

    def walk(node: Regex) -> None:
        if isinstance(node, Label):
            out.append(node)
        elif isinstance(node, Concat):
            for part in node.parts:
                walk(part)
        elif isinstance(node, Alt):
            for option in node.options:
                walk(option)
        else:
            walk(node.inner)

    walk(regex)
    return out


def regex_labels(regex: Regex) -> tuple[str, ...]:
    """The predicate names of `regex`, in first-occurrence order, without repeats."""
    return tuple(dict.fromkeys(label.name for label in regex_label_nodes(regex)))


def regex_nullable(regex: Regex) -> bool:
    """Whether the empty word is in L(regex) (then `[R]` holds `(v, v)` on the active domain)."""
    if isinstance(regex, Label):
        return False
    if isinstance(regex, Concat):
        return all(regex_nullable(p) for p in regex.parts)
    if isinstance(regex, Alt):
        return any(regex_nullable(o) for o in regex.options)
    if isinstance(regex, Plus):
        return regex_nullable(regex.inner)
    return True  # Star, Optional


# ---- body literals -----------------------------------------------------------------------


@attrs.frozen
class Atom:
    """`p(t1, ..., tn)`: a predicate applied to terms (binary once checked); `@t` after it
    names `time`, the start of the matched tuple's validity interval (specs/semantics.md §4b);
    `{k: v, ...}` after the arguments, `props`, binds or tests the edge's properties (§4c).
    `simple` is only ever set to be reported: it applies to closures and path atoms
    (checks/simple_paths.py)."""

    pred: str
    args: tuple[Term, ...]
    quoted: bool = attrs.field(default=False, eq=False, hash=False)
    simple: bool = False
    loc: Loc | None = _loc()
    time: str | None = attrs.field(default=None, kw_only=True)
    time_loc: Loc | None = _loc()
    props: tuple[PropArg, ...] = attrs.field(default=(), kw_only=True)


@attrs.frozen
class Closure:
    """`p+(x, y)` or `p*(x, y)`, optionally `as NAME` (the name of its PATH result stream);
    `simple p+(x, y)` asks for simple paths (specs/semantics.md §4a)."""

    pred: str
    op: str  # "+" or "*"
    args: tuple[Term, ...]
    alias: str | None = None
    quoted: bool = attrs.field(default=False, eq=False, hash=False)
    simple: bool = False
    loc: Loc | None = _loc()
    alias_loc: Loc | None = _loc()
    time: str | None = attrs.field(default=None, kw_only=True)
    time_loc: Loc | None = _loc()


@attrs.frozen
class PathAtom:
    """`[R](x, y)`: pairs joined by a path whose label word is in L(R), optionally `as NAME`;
    `simple [R](x, y)` only by paths that visit no vertex twice (specs/semantics.md §4a)."""

    regex: Regex
    args: tuple[Term, ...]
    alias: str | None = None
    simple: bool = False
    loc: Loc | None = _loc()
    alias_loc: Loc | None = _loc()
    time: str | None = attrs.field(default=None, kw_only=True)
    time_loc: Loc | None = _loc()


@attrs.frozen
class Comparison:
    """`x = y` or `x != y` in a rule body: a FILTER, never a generator of bindings.

    Between time variables also `<`, `<=`, `>`, `>=`, and on either side a duration added
    (`+`) or taken (`-`): `t2 <= t1 + 1h`, `t1 + 2 < t2`, `t2 - 1m >= t1 + 5` (specs/semantics.md
    §4b). The node keeps the comparison as written (`offset` / `offset_op` on the right,
    `left_offset` / `left_offset_op` on the left); `shift` gives its one normal form,
    `left op right + shift`, which is all the planner reads."""

    left: Term
    op: str  # "=", "!=", "<", "<=", ">", ">="
    right: Term
    loc: Loc | None = _loc()
    offset: Duration | None = attrs.field(default=None, kw_only=True)
    offset_op: str = attrs.field(default="+", kw_only=True)  # "+" or "-"
    left_offset: Duration | None = attrs.field(default=None, kw_only=True)
    left_offset_op: str = attrs.field(default="+", kw_only=True)  # "+" or "-"

    @property
    def shift(self) -> int:
        """The signed difference of the two sides' offsets in time units, so that the
        comparison reads `left op right + shift`: `t2 <= t1 + 1h` -> 3600, `t1 + 2 < t2` -> -2,
        `t2 - 1m >= t1 + 5` -> 65, none -> 0."""
        return _signed(self.offset, self.offset_op) - _signed(self.left_offset, self.left_offset_op)

    @property
    def has_offset(self) -> bool:
        """Whether either side adds or takes a duration."""
        return self.offset is not None or self.left_offset is not None


def _signed(offset: Duration | None, op: str) -> int:
    if offset is None:
        return 0
    return offset.value if op == "+" else -offset.value


Literal = Atom | Closure | PathAtom | Comparison
BodyAtom = Atom | Closure | PathAtom


def time_variables(rule: Rule) -> dict[str, BodyAtom]:
    """The time variables a rule's body binds (`atom@t`, `@_` excluded), each with its first
    binding atom."""
    out: dict[str, BodyAtom] = {}
    for literal in rule.body:
        if not isinstance(literal, Comparison) and literal.time not in (None, "_"):
            out.setdefault(literal.time, literal)
    return out


def property_variables(rule: Rule) -> dict[str, Atom]:
    """The property variables a rule's body binds (`p(x, y){k: v}`), each with its first
    binding atom."""
    out: dict[str, Atom] = {}
    for literal in rule.body:
        if isinstance(literal, Atom):
            for arg in literal.props:
                if isinstance(arg.value, Var):
                    out.setdefault(arg.value.name, literal)
    return out


def regex_prop_labels(regex: Regex) -> tuple[Label, ...]:
    """The labels of `regex` that carry property tests, in order."""
    return tuple(label for label in regex_label_nodes(regex) if label.props)


def literal_preds(literal: Literal) -> tuple[str, ...]:
    """The predicate names a body literal reads."""
    if isinstance(literal, (Atom, Closure)):
        return (literal.pred,)
    if isinstance(literal, PathAtom):
        return regex_labels(literal.regex)
    return ()


# ---- rules and directives ----------------------------------------------------------------


@attrs.frozen
class Rule:
    """`head :- body.`"""

    head: Atom
    body: tuple[Literal, ...]
    loc: Loc | None = _loc()


@attrs.frozen
class Duration:
    """A duration in time units, with the text the user wrote (`24h` -> 86400, "24h"); where
    a property variable is compared, a plain number (`d2 >= d1 + 2.5`)."""

    value: int | float
    text: str = attrs.field(eq=False, hash=False)
    loc: Loc | None = _loc()


@attrs.frozen
class Directive:
    """A `.name ...` line, as written. The checker validates it by name (`.window`, `.slide`,
    `.output`, `.input`); `values` are durations or names, `labels` the names after `for`.
    `value_locs`, `label_locs` and `for_loc` only place carets (no part in equality)."""

    name: str
    values: tuple[Duration | str, ...] = ()
    labels: tuple[str, ...] = ()
    loc: Loc | None = _loc()
    value_locs: tuple[Loc | None, ...] = attrs.field(
        default=(), eq=False, hash=False, repr=False, kw_only=True
    )
    label_locs: tuple[Loc | None, ...] = attrs.field(
        default=(), eq=False, hash=False, repr=False, kw_only=True
    )
    for_loc: Loc | None = _loc()


Statement = Rule | Directive


@attrs.frozen
class Program:
    """A whole `.dl` file: its statements in source order."""

    statements: tuple[Statement, ...]

    @property
    def rules(self) -> tuple[Rule, ...]:
        return tuple(s for s in self.statements if isinstance(s, Rule))

    @property
    def directives(self) -> tuple[Directive, ...]:
        return tuple(s for s in self.statements if isinstance(s, Directive))
