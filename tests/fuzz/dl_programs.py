"""Hypothesis strategies over `.dl` programs, shared by the front end's fuzz tests
(test_fuzz_dl_parser.py: parse and check; test_fuzz_programs.py: `sgq check`, `explain` and
`run` end to end).

- `token_soup`, `mutated_program`: text-level noise, and mutations of the shipped programs
  (specs/queries/**/*.dl) that know the grammar: tokens replaced by others of their kind or
  of another kind, dropped, doubled, swapped; statements doubled, dropped, swapped; a
  predicate renamed everywhere; an atom turned into a closure or a path atom; odd text
  (control characters, long names, deep brackets) put in.
- `deep_program`: regular expressions nested up to past the grammar's bound (200 levels),
  brackets thousands deep.
- `chain_program`: chains of derived predicates up to past the planner's bound (a plan 250
  operators deep), each rule a copy, a join, a closure, a path over the one below or a union.
- `long_path_program`: concatenations and alternations of up to 1,200 labels, under a
  closure or not, simple or not.
- `wide_program`: rule bodies up to past the bound of 64 atoms.
- `blowup_program`: regular expressions whose automata grow exponentially with their size.
"""

from __future__ import annotations

import glob
import os
import re

from hypothesis import strategies as st

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROGRAMS = sorted(glob.glob(os.path.join(ROOT, "specs", "queries", "**", "*.dl"), recursive=True))
SOURCES = [open(p, encoding="utf-8").read() for p in PROGRAMS]

#: every label the shipped programs read, and a few more: the edge file of a run holds them
LABELS = ("a", "b", "c", "knows", "likes", "hasCreator", "replyOf", "a2q", "c2a", "c2q")

TOKENS = [
    "A",
    "Answer",
    "RL",
    "a",
    "b",
    "knows",
    '"rdf:type"',
    "x",
    "y",
    "_",
    "42",
    '"alice"',
    "(",
    ")",
    ",",
    ".",
    ":-",
    "+",
    "*",
    "?",
    "/",
    "|",
    "[",
    "]",
    "!=",
    "=",
    "as",
    "P",
    ".window",
    ".slide",
    ".output",
    ".input",
    "for",
    "24h",
    "0s",
    "30d",
    "1",
    "-1",
    "1e9",
    "//c\n",
    "/*",
    "*/",
    "\n",
    " ",
    "\t",
    "é",
    "\x00",
    '"',
    "99999999999999999999999h",
]

# ---- the tokens of a program, by kind ------------------------------------------------------

_LEX = re.compile(
    r"(?P<space>\s+)|(?P<comment>//[^\n]*|/\*.*?\*/)|(?P<string>\"(?:[^\"\\\n]|\\.)*\")"
    r"|(?P<directive>\.[A-Za-z_][A-Za-z0-9_]*)|(?P<number>-?[0-9]+[A-Za-z_]*)"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_]*)|(?P<op>:-|!=|<=|>=|.)",
    re.DOTALL,
)

#: what may stand in for a token of each kind (its own kind first, then anything)
KINDS = {
    "name": [
        "x",
        "y",
        "z",
        "_",
        "a",
        "knows",
        "Answer",
        "A",
        "P",
        "simple",
        "as",
        "for",
        "t1",
        "é",
        "a" * 300,
        "P0",
    ],
    "string": ['"a"', '"rdf:type"', '""', '"\\x00"', '"\x1b[31m"', '"a\\"b"', '"é"'],
    "number": ["0", "1", "-1", "42", "24h", "0s", "1d", "7w", "3x", "-5m", "9" * 30, "1_000"],
    "directive": [".window", ".slide", ".output", ".input", ".windows", ".foo", "."],
    "op": list("()[],.+*?/|=<>@:") + [":-", "!=", "<=", ">=", "-", "\\", "^", "{", "}", "\x00"],
}

#: text dropped in anywhere: control characters, other scripts, long and deep things
ODD = [
    "\x00",
    "\x1b[2J",
    "\x7f",
    "\r",
    "\u200b",
    "\ufeff",
    "é",
    "日本",
    "a" * 500,
    "(" * 50,
    ")" * 50,
    "[" + "(" * 300 + "a" + ")" * 300 + "]",
    "*" * 250,
    "/*",
    "//",
    '"',
    "@t",
    " simple ",
    ".window 1 d\n",
    ".window 1d\n",
    "P(x, y) :- P(x, y).\n",
    "Answer(x, y) :- Answer+(x, y).\n",
]


def tokens(text: str) -> list[tuple[str, str]]:
    """`(kind, text)` of every token of `text`, spaces and comments included (so joining
    the texts gives `text` back)."""
    return [(m.lastgroup or "op", m.group()) for m in _LEX.finditer(text)]


def _statements(text: str) -> list[str]:
    """`text` cut after each `.` that ends a rule or a directive line (roughly: enough to
    double, drop and swap whole statements)."""
    parts = re.split(r"(?<=\.)\n|\n(?=\.)", text)
    return [p if p.endswith("\n") else p + "\n" for p in parts]


# ---- strategies --------------------------------------------------------------------------


@st.composite
def token_soup(draw, max_size: int = 40) -> str:
    return " ".join(draw(st.lists(st.sampled_from(TOKENS), max_size=max_size)))


@st.composite
def mutated_program(draw, max_mutations: int = 5) -> str:
    """A shipped program with 1 to `max_mutations` grammar-aware mutations; about half the
    time only mutations that mostly keep it valid (so that `check` accepts a fair share, and
    `run` has programs to run)."""
    text = draw(st.sampled_from(SOURCES))
    gentle = draw(st.booleans())
    for _ in range(draw(st.integers(1, max_mutations))):
        text = draw(_mutation(text, gentle))
    return text


#: the mutations that mostly keep a program valid: a name for a name, a predicate renamed
#: everywhere, an atom made a closure or a path atom, a statement doubled or two swapped
_GENTLE = (1, 8, 8, 9, 9, 10, 12)


@st.composite
def _mutation(draw, text: str, gentle: bool = False) -> str:
    toks = tokens(text)
    solid = [i for i, (kind, _) in enumerate(toks) if kind not in ("space", "comment")]
    if gentle:
        solid = [i for i in solid if toks[i][0] == "name"] or solid
    action = draw(st.sampled_from(_GENTLE) if gentle else st.integers(0, 15))
    if not solid or action == 0:  # odd text anywhere
        pos = draw(st.integers(0, len(text)))
        return text[:pos] + draw(st.sampled_from(ODD + TOKENS)) + text[pos:]
    if action == 14:  # characters cut anywhere, blind to the tokens
        pos = draw(st.integers(0, len(text)))
        return text[:pos] + text[pos + draw(st.integers(1, 12)) :]
    if action == 15:  # any text anywhere
        pos = draw(st.integers(0, len(text)))
        return text[:pos] + draw(st.text(max_size=3)) + text[pos:]
    i = draw(st.sampled_from(solid))
    kind, tok = toks[i]
    words = [t for _, t in toks]
    if action in (1, 2, 3):  # a token of its own kind (most mutations stay near the grammar)
        pool = KINDS.get(kind, KINDS["op"])
        if gentle and kind == "name":
            pool = [t for _, t in toks if _ == "name"] + ["x", "y", "z", "Answer"]
        words[i] = draw(st.sampled_from(pool))
    elif action == 4:  # a token of any kind
        words[i] = draw(st.sampled_from([t for ts in KINDS.values() for t in ts]))
    elif action == 5:
        words[i] = ""
    elif action == 6:
        words[i] = tok + " " + tok
    elif action == 7:  # swap with the next solid token
        later = [j for j in solid if j > i]
        if later:
            j = later[0]
            words[i], words[j] = words[j], words[i]
    elif action == 8 and kind == "name":  # rename a predicate or variable everywhere
        pool = ["Answer", "B", "RL", "knows", "likes", "v", "w"]
        new = draw(st.sampled_from(pool if gentle else KINDS["name"] + pool))
        words = [new if t == tok else t for t in words]
    elif action == 9 and kind == "name":  # a body atom becomes a closure or a path atom
        nxt = words[i + 1] if i + 1 < len(words) else ""
        before = [t for k, t in toks[:i] if k not in ("space", "comment")][-1:]
        if nxt == "(" and before in ([":-"], [","]):
            words[i] = draw(st.sampled_from([tok + "+", tok + "*", f"[{tok}/{tok}]", f"[{tok}?]"]))
        elif not gentle:
            words[i] = f"({tok})" + draw(st.sampled_from(["*", "+", "?", ""]))
    elif action in (10, 11, 12):  # whole statements: double, drop, swap
        parts = _statements(text)
        k = draw(st.integers(0, len(parts) - 1))
        if action == 10:
            parts.insert(k, parts[k])
        elif action == 11 and len(parts) > 1:
            del parts[k]
        elif len(parts) > 1:
            m = draw(st.integers(0, len(parts) - 1))
            parts[k], parts[m] = parts[m], parts[k]
        return "".join(parts)
    else:  # part of another shipped program
        other = draw(st.sampled_from(SOURCES))
        cut = draw(st.integers(0, len(other)))
        words[i] = tok + other[cut : cut + draw(st.integers(1, 60))]
    return "".join(words)


_POSTFIX = ("*", "+", "?")


@st.composite
def deep_regex(draw, depth: int) -> str:
    """A regular expression nested `depth` operators deep: postfix operators, `/` and `|`
    with a fresh label beside, and brackets around some levels."""
    text = draw(st.sampled_from(LABELS[:3]))
    ops = draw(st.lists(st.integers(0, 4), min_size=depth, max_size=depth))
    for op in ops:
        if op < 2:
            text += _POSTFIX[op]
        elif op == 2:
            text = f"(b/{text})"
        elif op == 3:
            text = f"(c|{text})"
        else:
            text = f"({text})?"
    return text


@st.composite
def deep_program(draw) -> str:
    """A path atom over a regular expression nested around the bounds, or one in thousands
    of brackets."""
    if draw(st.booleans()):
        depth = draw(st.one_of(st.integers(0, 40), st.integers(180, 230)))
        regex = draw(deep_regex(depth))
    else:
        n = draw(st.integers(1, 3000))
        regex = "(" * n + "a" + ")" * n + draw(st.sampled_from(["", "*", "/b"]))
    return f".window 10\nAnswer(x, y) :- [{regex}](x, y).\n"


_SHAPES = ("copy", "join", "closure", "path", "union", "reverse")


@st.composite
def chain_program(draw) -> str:
    """`P0 :- a.` then `n` rules, each over the one below: a copy, a join with an input, a
    closure, a path atom, a second rule (a union), a reversal; `n` up to past the planner's
    bound."""
    n = draw(st.one_of(st.integers(1, 30), st.integers(230, 280)))
    shapes = draw(st.lists(st.sampled_from(_SHAPES), min_size=n, max_size=n))
    lines = [".window 10", "P0(x, y) :- a(x, y)."]
    for i, shape in enumerate(shapes, start=1):
        below = f"P{i - 1}"
        if shape == "copy":
            lines.append(f"P{i}(x, y) :- {below}(x, y).")
        elif shape == "join":
            lines.append(f"P{i}(x, y) :- {below}(x, z), b(z, y).")
        elif shape == "closure":
            lines.append(f"P{i}(x, y) :- {below}+(x, y).")
        elif shape == "path":
            lines.append(f"P{i}(x, y) :- [{below}/c?](x, y).")
        elif shape == "union":
            lines.append(f"P{i}(x, y) :- {below}(x, y).")
            lines.append(f"P{i}(x, y) :- {below}(y, x).")
        else:
            lines.append(f"P{i}(x, y) :- {below}(y, x), x != y.")
    lines.append(f".output P{n}")
    return "\n".join(lines) + "\n"


@st.composite
def long_path_program(draw) -> str:
    """A path atom over a concatenation or an alternation of up to 1,200 labels (the same or
    distinct ones), sometimes under a closure."""
    n = draw(st.one_of(st.integers(1, 40), st.integers(900, 1200)))
    kind = draw(st.integers(0, 2))  # one label, two in turn, all distinct
    names = [("a2q", ("a2q", "c2a")[i % 2], f"l{i}")[kind] for i in range(n)]
    body = draw(st.sampled_from(["/", "|"])).join(names)
    regex = draw(st.sampled_from([body, f"({body})+", f"({body})*", f"a/({body})"]))
    simple = draw(st.sampled_from(["", "", "simple "]))
    return f".window 10\nAnswer(x, y) :- {simple}[{regex}](x, y).\n"


@st.composite
def blowup_program(draw) -> str:
    """`[(a|b)*/a/(a|b)/.../(a|b)]`: k letters after a repeated alternation need an automaton
    of 2^(k+1) states (past the checker's bound from k = 12)."""
    k = draw(st.integers(0, 16))
    simple = draw(st.sampled_from(["", "simple "]))
    return f".window 10\nAnswer(x, y) :- {simple}[(a|b)*/a{'/(a|b)' * k}](x, y).\n"


@st.composite
def wide_program(draw) -> str:
    """One rule joining `n` atoms in a chain or a star, `n` up to past the bound of 64."""
    n = draw(st.one_of(st.integers(1, 12), st.integers(60, 70)))
    if draw(st.booleans()):
        atoms = [f"a(x{i}, x{i + 1})" for i in range(n)]
        head = f"Answer(x0, x{n})"
    else:
        atoms = ["a(x, y)"] + [f"b(x, z{i})" for i in range(n - 1)]
        head = "Answer(x, y)"
    return f".window 10\n{head} :- {', '.join(atoms)}.\n"
