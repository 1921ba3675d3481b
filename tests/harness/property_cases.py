"""Random programs with property predicates (as .dl TEXT) and streams whose edges carry random
properties, for the property harness (specs/semantics.md §1, §4c).

The choosers are those of `case_generators.py` (seeded or hypothesis-driven; every choice
shrinks to the simplest option). Two program subsets, by `general`:
- filters only (`general=False`): every property variable is bound once and compared only with
  constants (`p0 < 2`, `1.5 <= p0 + 1`, `p1 != "a"`), constants and `_` in braces, tests on
  path labels (`[a{w < 2}+]`): what a FILTER pushed into WSCAN answers;
- general (`general=True`): also comparisons between property variables with numbers on
  either side (`p1 + 1 <= p0 - 2`), a property variable bound by two atoms (a join on it)
  or twice in one atom's braces, time variables on atoms with braces (their start is that
  of the tuple as the atom sees it), and simple path atoms over tested labels.

Streams draw values from a small typed domain: integers, floats (dyadic, so that sums and
differences are exact in every implementation, whichever side of a comparison it moves a
number to; `2.0` equals the integer `2`), strings (`"1"` looks like a number and is not one),
and missing values. `-` lines give no property (delete
every tuple of the edge), all of an earlier insert's, some of them, or a value no tuple has.
"""

from __future__ import annotations

from case_generators import (
    NOISE_LABEL,
    VERTICES,
    RandomChooser,
    gen_regex,
    render_name,
    window_lines,
)

#: property names: two plain ones and one that needs quotes in a program
KEYS = ("w", "c", "dep delay")
#: the values each property takes (the first ones shrink best): `w` mostly numbers, `c`
#: mostly strings, as a column of real data mostly holds one type
VALUES = {
    "w": (1, 2, 2.0, 1.5, 0, "1", "a"),
    "c": ("a", "b", "1", "a", 2, 1.5),
    "dep delay": (1, 0, 2.0),
}
#: constants a program compares with, as written in .dl, with their kind
NUMBER_CONSTANTS = ("1", "2", "2.0", "1.5", "0", "3")
STRING_CONSTANTS = ('"a"', '"b"', '"1"')
#: plain numbers added or taken (integers: the parser reads no decimal offset yet)
OFFSETS = ("1", "2", "3")
#: time steps between events: ties and short steps, so that windows hold several edges to
#: join, and now and then a gap that outlives them
STEPS = (0, 1, 0, 2, 1, 0, 3, 13)
ORDERS = ("<", "<=", ">", ">=", "=", "!=")
PROP_LABELS = ("a", "b", "c")

Edge = tuple[str, str, str, int, str, dict]


def key_text(key: str) -> str:
    """A property name as written in braces: quoted unless it is an identifier."""
    return render_name(key)


def gen_props(ch, p_present: float = 0.8) -> dict:
    """A random dict of present properties (each key missing now and then)."""
    keys = KEYS if ch.bool(0.15) else KEYS[:2]
    return {k: ch.choice(VALUES[k]) for k in keys if ch.bool(p_present)}


def _deletion_props(ch, props: dict) -> dict:
    """What a `-` of an earlier insert gives: nothing, all of it, part of it, or a value."""
    kind = ch.int(0, 3)
    if kind == 0 or not props:
        return {}
    if kind == 1:
        return dict(props)
    if kind == 2:
        return {k: v for k, v in props.items() if ch.bool(0.5)}
    key = ch.choice(sorted(props))
    return {key: ch.choice(VALUES[key])}


def gen_prop_stream(ch, labels, max_len: int = 16, deletions: bool = True) -> list[Edge]:
    """A random stream `(src, trg, label, t, op, props)` in non-decreasing time; one edge is
    often inserted again with other values (so tuples of one edge differ by their properties)
    or the same ones (so they coalesce), and `-` lines (with `deletions`) delete by some,
    all or none of the properties, also at the instant of an insert (ties)."""
    labels = list(labels) or ["a"]
    vertices = VERTICES[: ch.int(1, 3)]
    t = ch.int(0, 3)
    edges: list[Edge] = []
    inserted: list[Edge] = []
    for _ in range(ch.int(0, max_len) if ch.bool(0.3) else ch.int(max_len // 2, max_len)):
        t += ch.choice(STEPS)
        if deletions and inserted and ch.bool(0.2):
            s, d, lbl, _t, _op, props = ch.choice(inserted)
            edges.append((s, d, lbl, t, "-", _deletion_props(ch, props)))
            if ch.bool(0.2):  # `-` then `+` at one instant: it stays
                edges.append((s, d, lbl, t, "+", gen_props(ch)))
            continue
        if inserted and ch.bool(0.3):  # the same edge again, with other or equal values
            s, d, lbl, _t, _op, props = ch.choice(inserted)
            props = gen_props(ch) if ch.bool(0.6) else dict(props)
        else:
            s, d = ch.choice(vertices), ch.choice(vertices)
            lbl = NOISE_LABEL if ch.bool(0.05) else ch.choice(labels)
            props = gen_props(ch)
        edge = (s, d, lbl, t, "+", props)
        edges.append(edge)
        inserted.append(edge)
    return edges


class _Rule:
    """The pieces of one rule body being generated: literals, vertex variables, property
    variables (name -> the atom index binding it first), time variables, comparisons."""

    def __init__(self) -> None:
        self.body: list[str] = []
        self.vertex_vars: list[str] = []
        self.prop_vars: list[str] = []
        self.prop_keys: dict[str, str] = {}  # property variable -> the key it binds first
        self.times: list[str] = []
        self.comparisons: list[str] = []

    def fresh_prop(self, key: str) -> str:
        name = f"p{len(self.prop_vars)}"
        self.prop_vars.append(name)
        self.prop_keys[name] = key
        return name


def _vertex(ch, rule: _Rule) -> str:
    if ch.bool(0.08):
        return ch.choice(VERTICES[:3])
    if ch.bool(0.06):
        return "_"
    name = ch.choice(("x", "y", "z")[: min(len(rule.vertex_vars) + 2, 3)])
    if name not in rule.vertex_vars:
        rule.vertex_vars.append(name)
    return name


def _constant(ch, key: str) -> str:
    """A constant to compare property `key` with: mostly of the type its values mostly have."""
    if ch.bool(0.8 if key != "c" else 0.2):
        return ch.choice(NUMBER_CONSTANTS)
    return ch.choice(STRING_CONSTANTS)


def _side(ch, term: str, p: float) -> str:
    """`term`, or with probability `p` `term` with a plain number added or taken."""
    if not ch.bool(p):
        return term
    return f"{term} {ch.choice('+-')} {ch.choice(OFFSETS)}"


def _constant_comparison(ch, var: str, key: str) -> str:
    """`var op constant` (either way round, a number on either side for numbers)."""
    const = _constant(ch, key)
    if const.startswith('"'):
        op = ch.choice(("=", "!="))
        return f"{var} {op} {const}" if ch.bool(0.7) else f"{const} {op} {var}"
    op = ch.choice(ORDERS)
    left, right = _side(ch, var, 0.3), _side(ch, const, 0.15)
    return f"{left} {op} {right}" if ch.bool(0.7) else f"{right} {op} {left}"


def _braces(ch, rule: _Rule, general: bool) -> str:
    """`{key: value, ...}`: a fresh or (general) an already bound property variable, a
    constant or `_` per key, and comparisons of the fresh variables."""
    args = []
    keys = ch.choice((("w", "c"), ("c", "w"))) if ch.bool(0.95) else (KEYS[2], "w")
    for key in keys[: 2 if ch.bool(0.7 if general else 0.4) else 1]:
        kind = ch.int(0, 4)
        if kind <= 2:
            if general and rule.prop_vars and ch.bool(0.3):
                value = ch.choice(rule.prop_vars)  # a join on it (or an equality in here)
            else:
                value = rule.fresh_prop(key)
                if ch.bool(0.4 if general else 0.7):
                    rule.comparisons.append(_constant_comparison(ch, value, key))
        elif kind == 3:
            value = _constant(ch, key)
        else:
            value = "_"
        args.append(f"{key_text(key)}: {value}")
    return "{" + ", ".join(args) + "}"


def _label_tests(ch, name: str, inputs: list[str]) -> str:
    """A path label, with tests on its edges now and then when it is an input label."""
    if name not in inputs or not ch.bool(0.5):
        return render_name(name)
    tests = []
    for _ in range(2 if ch.bool(0.2) else 1):
        key = ch.choice(KEYS[:2]) if ch.bool(0.95) else KEYS[2]
        const = _constant(ch, key)
        op = ch.choice(("=", "!=")) if const.startswith('"') else ch.choice(ORDERS)
        tests.append(f"{key_text(key)} {op} {const}")
    return render_name(name) + "{" + ", ".join(tests) + "}"


def gen_prop_rule(ch, head: str, available: list[str], inputs: list[str], general: bool) -> str:
    """One rule for `head`: atoms over `available`, input atoms often with braces, path atoms
    with tested labels, and comparisons of the property variables."""
    rule = _Rule()
    rule.vertex_vars.append("x")
    for i in range(ch.int(1, 3) if ch.bool(0.5) else ch.int(1, 2)):
        x = "x" if i == 0 else _vertex(ch, rule)
        y = _vertex(ch, rule)
        if y == x and ch.bool(0.8):  # a loop now and then only
            y = next(v for v in ("y", "z", "x") if v != x)
            rule.vertex_vars += [] if y in rule.vertex_vars else [y]
        kind = ch.int(1, 2) if ch.bool(0.25) else 0
        name = ch.choice(available)
        if kind == 0:
            braces = _braces(ch, rule, general) if name in inputs and ch.bool(0.8) else ""
            timed = general and braces and ch.bool(0.3)
            literal = f"{render_name(name)}({x}, {y}){braces}"
            if timed:
                rule.times.append(f"t{i}")
                literal += f"@t{i}"
            rule.body.append(literal)
        elif kind == 1:
            rule.body.append(f"{render_name(name)}{ch.choice('+*')}({x}, {y})")
        else:
            regex = gen_regex(ch, available, label=lambda c, n: _label_tests(c, n, inputs))
            simple = "simple " if general and ch.bool(0.15) else ""  # specs §4a over tests
            rule.body.append(f"{simple}[{regex}]({x}, {y})")
    if general and len(rule.prop_vars) > 1 and ch.bool(0.8):
        left = ch.choice(rule.prop_vars)
        same = [
            v for v in rule.prop_vars if v != left and rule.prop_keys[v] == rule.prop_keys[left]
        ]
        right = ch.choice(same) if same and ch.bool(0.6) else ch.choice(rule.prop_vars)
        if left != right:
            op = ch.choice(ORDERS)
            rule.comparisons.append(f"{_side(ch, left, 0.3)} {op} {_side(ch, right, 0.3)}")
    if len(rule.times) > 1:
        rule.comparisons.append(f"{rule.times[0]} {ch.choice(ORDERS)} {rule.times[1]}")
    if ch.bool(0.15) and len(rule.vertex_vars) > 1:
        rule.comparisons.append(f"{rule.vertex_vars[0]} != {rule.vertex_vars[1]}")
    head_args = (ch.choice(rule.vertex_vars), ch.choice(rule.vertex_vars))
    body = ", ".join(rule.body + rule.comparisons)
    return f"{head}({head_args[0]}, {head_args[1]}) :- {body}."


def gen_prop_program(ch, general: bool = True) -> str:
    """A random valid program with property predicates as .dl text (output Answer); with
    `general=False` only the filters subset (module docstring)."""
    lines, slide = window_lines(ch, ch.int(1, 12) if ch.bool(0.2) else ch.int(4, 12), 0.3)
    inputs = list(PROP_LABELS[: ch.int(1, 3)])
    if ch.bool(0.2):
        lines.append(f".window {ch.int(slide, 12)} for {ch.choice(inputs)}")
    names = [f"D{i}" for i in range(1, ch.int(1, 2))] + ["Answer"]
    available = list(inputs)
    for name in names:
        for _ in range(ch.int(1, 2)):
            lines.append(gen_prop_rule(ch, name, available, inputs, general))
        available.append(name)
    return "\n".join(lines) + "\n"


def gen_prop_case(ch, general: bool = True, max_len: int = 16, deletions: bool = True):
    """`(program text, checked program, stream)`; the stream uses the labels it reads."""
    from sgq.datalog.check import check_text

    text = gen_prop_program(ch, general)
    checked = check_text(text, "generated.dl")
    return text, checked, gen_prop_stream(ch, checked.edb, max_len, deletions)


def batch_prop_cases(programs: int, streams: int, seed: int, general: bool, deletions: bool):
    """`[(text, checked, edges)]`: `programs` seeded random property programs (of the subset
    `general` says) with `streams` streams each."""
    from sgq.datalog.check import check_text

    cases = []
    for p in range(programs):
        ch = RandomChooser(seed * 1_000_003 + p)
        text = gen_prop_program(ch, general)
        checked = check_text(text, f"props{p}.dl")
        for _ in range(streams):
            cases.append((text, checked, gen_prop_stream(ch, checked.edb, deletions=deletions)))
    return cases
