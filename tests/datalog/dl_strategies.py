"""Hypothesis strategies for `.dl` programs (tests/datalog): free-form ASTs for the printer,
valid programs for print -> parse and the checker, and acyclic or cyclic rule graphs."""

from __future__ import annotations

import functools

import attrs
from hypothesis import strategies as st
from sgq.datalog import ast
from sgq.datalog.parser import UNITS, parse_duration

VARS = ("x", "y", "z", "u", "v", "w", "_t", "x1", "for", "as")
IDENTS = ("a", "b", "knows", "likes", "Answer", "P", "Q2", "_p", "for_", "as1")
ODD_NAMES = ("rdf:type", "a2q", "c-2", "42", "for", "as", "x y", 'q"uote', "back\\slash", "")


@functools.cache
def names() -> st.SearchStrategy[str]:
    """Predicate names: identifiers, names that need quotes, and arbitrary text."""
    return st.one_of(
        st.sampled_from(IDENTS),
        st.sampled_from(ODD_NAMES),
        st.text(st.characters(blacklist_categories=("Cs",)), max_size=6),
    )


@functools.cache
def terms() -> st.SearchStrategy[ast.Term]:
    return st.one_of(
        st.sampled_from(VARS).map(ast.Var),
        st.just(ast.Anon()),
        st.integers(-(10**12), 10**12).map(lambda n: ast.Const(str(n), quoted=False)),
        st.text(st.characters(blacklist_categories=("Cs",)), max_size=5).map(ast.Const),
    )


def regexes(labels: st.SearchStrategy[str] | None = None) -> st.SearchStrategy[ast.Regex]:
    leaf = (names() if labels is None else labels).map(ast.Label)
    return st.recursive(
        leaf,
        lambda inner: st.one_of(
            st.lists(inner, min_size=2, max_size=3).map(lambda xs: ast.Concat(tuple(xs))),
            st.lists(inner, min_size=2, max_size=3).map(lambda xs: ast.Alt(tuple(xs))),
            inner.map(ast.Star),
            inner.map(ast.Plus),
            inner.map(ast.Optional),
        ),
        max_leaves=6,
    )


def args(n_min=0, n_max=3):
    return st.lists(terms(), min_size=n_min, max_size=n_max).map(tuple)


aliases = st.one_of(st.none(), st.sampled_from(("FP", "Path", "R1", "for", "as", "_")))


times = st.one_of(st.none(), st.sampled_from(("t", "t1", "for", "as", "_")))
COMPARE_OPS = ("=", "!=", "<", "<=", ">", ">=")


def offsets(prefix: str = "") -> st.SearchStrategy[dict]:
    """No offset, or a duration added or taken on one side of a comparison: the keywords
    `offset`/`offset_op` (the right side) or, with `prefix="left_"`, the left side's."""
    return st.one_of(
        st.just({}),
        st.builds(
            lambda d, o: {f"{prefix}offset": d, f"{prefix}offset_op": o},
            durations(),
            st.sampled_from("+-"),
        ),
    )


def comparisons() -> st.SearchStrategy[ast.Comparison]:
    """`x op y`, sometimes with an offset on either side (`t2 <= t1 + 1h`, `t1 + 2 < t2`)."""
    return st.builds(
        lambda left, op, right, extra, left_extra: ast.Comparison(
            left, op, right, **extra, **left_extra
        ),
        terms(),
        st.sampled_from(COMPARE_OPS),
        terms(),
        offsets(),
        offsets("left_"),
    )


def literals() -> st.SearchStrategy[ast.Literal]:
    return st.one_of(
        st.builds(ast.Atom, names(), args(), time=times),
        st.builds(ast.Closure, names(), st.sampled_from("+*"), args(), aliases, time=times),
        st.builds(ast.PathAtom, regexes(), args(), aliases, time=times),
        comparisons(),
    )


def rules() -> st.SearchStrategy[ast.Rule]:
    return st.builds(
        ast.Rule,
        st.builds(ast.Atom, names(), args()),
        st.lists(literals(), min_size=1, max_size=4).map(tuple),
    )


def duration_texts() -> st.SearchStrategy[str]:
    return st.builds(
        lambda n, u: f"{n}{u}", st.integers(1, 999), st.sampled_from(("",) + tuple(UNITS))
    )


def durations() -> st.SearchStrategy[ast.Duration]:
    return duration_texts().map(lambda t: ast.Duration(parse_duration(t), t))


def directives(with_values: bool) -> st.SearchStrategy[ast.Directive]:
    values = st.lists(
        st.one_of(durations(), names()), min_size=1 if with_values else 0, max_size=3
    ).map(tuple)
    labels = st.lists(names(), max_size=2).map(tuple)
    return st.builds(
        ast.Directive,
        st.sampled_from(("window", "slide", "output", "input", "foo")),
        values,
        labels,
    )


@st.composite
def programs(draw) -> ast.Program:
    """Free-form programs (not necessarily valid). A directive with neither values nor labels
    cannot be followed by a rule (the grammar would read the rule's head as its value), so
    such directives only come last or before another directive."""
    statements: list[ast.Statement] = []
    for _ in range(draw(st.integers(0, 5))):
        statements.append(draw(st.one_of(rules(), directives(with_values=True))))
    if draw(st.booleans()):
        statements.append(draw(directives(with_values=False)))
    return ast.Program(tuple(statements))


# ---- valid programs ---------------------------------------------------------------------

EDB_POOL = ("a", "b", "knows", "rdf:type", "a2q", "c-2")
IDB_POOL = ("P", "Q", "R", "Friends", "Reach")


@st.composite
def valid_programs(draw) -> ast.Program:
    """Programs that pass every check: binary, safe, acyclic, windows and slide consistent,
    with quoted labels, constants, `_`, comparisons, closures, path atoms and aliases."""
    edb = draw(st.lists(st.sampled_from(EDB_POOL), min_size=1, max_size=3, unique=True))
    idb = draw(st.lists(st.sampled_from(IDB_POOL), max_size=3, unique=True)) + ["Answer"]
    alias_count = [0]
    rules: list[ast.Rule] = []
    for i, head in enumerate(idb):
        readable = edb + idb[:i]
        for _ in range(draw(st.integers(1, 2))):
            rules.append(draw(_valid_rule(head, readable, alias_count)))
    statements: list[ast.Statement] = list(rules)
    window = draw(durations())
    slide_value = draw(st.integers(1, window.value))
    directives = [ast.Directive("window", (window,))]
    if draw(st.booleans()):
        directives.append(ast.Directive("slide", (ast.Duration(slide_value, str(slide_value)),)))
    if draw(st.booleans()):
        big = ast.Duration(window.value * 2, str(window.value * 2))
        directives.append(ast.Directive("window", (big,), (draw(st.sampled_from(edb)),)))
    if draw(st.booleans()):
        directives.append(ast.Directive("input", tuple(edb)))
    if draw(st.booleans()):
        directives.append(ast.Directive("output", ("Answer",)))
    for d in directives:
        statements.insert(draw(st.integers(0, len(statements))), d)
    return ast.Program(tuple(statements))


@st.composite
def _valid_rule(draw, head: str, readable: list[str], alias_count: list[int]) -> ast.Rule:
    n = draw(st.integers(1, 3))
    chain = [ast.Var(f"v{i}") for i in range(n + 1)]
    body: list[ast.Literal] = []
    for i in range(n):
        body.append(draw(_body_atom(readable, (chain[i], chain[i + 1]), alias_count)))
    for _ in range(draw(st.integers(0, 2))):  # filters: an extra atom with a constant or `_`
        other = draw(
            st.one_of(
                st.integers(-99, 99).map(lambda k: ast.Const(str(k), quoted=False)),
                st.sampled_from(("alice", "42", "x y", 'q"')).map(ast.Const),
                st.just(ast.Anon()),
            )
        )
        pair = (draw(st.sampled_from(chain)), other)
        if draw(st.booleans()):
            pair = pair[::-1]
        body.append(draw(_body_atom(readable, pair, alias_count)))
    for _ in range(draw(st.integers(0, 2))):
        left = draw(st.sampled_from(chain))
        right = draw(
            st.one_of(
                st.sampled_from(chain),
                st.just(ast.Const("alice")),
                st.just(ast.Const("-3", quoted=False)),
            )
        )
        body.append(ast.Comparison(left, draw(st.sampled_from(("=", "!="))), right))
    if draw(st.booleans()):  # time variables on some atoms, compared (specs/semantics.md §4b)
        times = []
        for k, literal in enumerate(body):
            if not isinstance(literal, ast.Comparison) and draw(st.booleans()):
                body[k] = attrs.evolve(literal, time=f"t{k}")
                times.append(ast.Var(f"t{k}"))
        for _ in range(draw(st.integers(0, 2)) if times else 0):
            extra = {**draw(offsets()), **draw(offsets("left_"))}
            left, right = draw(st.sampled_from(times)), draw(st.sampled_from(times))
            body.append(ast.Comparison(left, draw(st.sampled_from(COMPARE_OPS)), right, **extra))
    body = draw(st.permutations(body))
    head_args = (chain[0], chain[-1]) if draw(st.booleans()) else (chain[-1], chain[0])
    return ast.Rule(ast.Atom(head, head_args), tuple(body))


@st.composite
def _body_atom(draw, readable: list[str], pair, alias_count: list[int]) -> ast.BodyAtom:
    kind = draw(st.sampled_from(("atom", "closure", "path")))
    alias = None
    if kind != "atom" and draw(st.booleans()):
        alias_count[0] += 1
        alias = f"Alias{alias_count[0]}"
    if kind == "atom":
        return ast.Atom(draw(st.sampled_from(readable)), tuple(pair))
    if kind == "closure":
        return ast.Closure(
            draw(st.sampled_from(readable)), draw(st.sampled_from("+*")), tuple(pair), alias
        )
    return ast.PathAtom(draw(_regexes_over(tuple(readable))), tuple(pair), alias)


@functools.cache
def _regexes_over(readable: tuple[str, ...]) -> st.SearchStrategy[ast.Regex]:
    return regexes(st.sampled_from(readable))


# ---- rule graphs ------------------------------------------------------------------------


def program_from_edges(preds: list[str], edges: list[tuple[str, str]]) -> str:
    """`.dl` text with one rule per (head, read) edge plus an input rule per predicate, so the
    dependency graph is exactly `edges` over `preds` (and `in` read by everyone)."""
    lines = [".window 10"]
    for p in preds:
        lines.append(f"{p}(x, y) :- in(x, y).")
    for head, read in edges:
        lines.append(f"{head}(x, y) :- {read}(x, z), in(z, y).")
    lines.append(f"Answer(x, y) :- {preds[-1]}(x, y).")
    return "\n".join(lines) + "\n"


@st.composite
def acyclic_edges(draw, max_preds: int = 7):
    """Predicate names and (reader, read) edges of a random DAG (readers read earlier ranks
    in a hidden random order, so the file order is not the topological order)."""
    n = draw(st.integers(1, max_preds))
    preds = [f"P{i}" for i in range(n)]
    hidden = draw(st.permutations(preds))  # a random topological order
    possible = [(hidden[j], hidden[i]) for i in range(n) for j in range(i + 1, n)]
    edges = draw(st.lists(st.sampled_from(possible), unique=True, max_size=12)) if possible else []
    return preds, edges, hidden
