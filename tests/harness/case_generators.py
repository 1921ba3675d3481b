"""Random programs (as .dl TEXT) and edge streams for the property harness.

One generator serves two drivers through a tiny "chooser" interface:
- `RandomChooser(seed)`: a seeded `random.Random`, for big batches evaluated in one Spark pass;
- `DataChooser(data)`: hypothesis `st.data()`, for runs that must shrink. Every choice shrinks
  towards the simplest option (lower integers, the first option, no extra feature), so a
  failing case shrinks to a small program and a short stream.

Programs cover joins, unions (several rules per head), chains of derived predicates, closures
`p+`/`p*` over input and derived predicates, path atoms `[R]` over both, constants, `_`,
comparisons, time variables and their order (`a(x, y)@t0, t0 < t1 + 2`, `t0+1s>=t1-2`), slides
and per-label windows. Streams use few vertices (so joins and cycles happen), ties, same-slide
buckets, bursts, long gaps, labels no rule reads, and '-' edges of every kind in DELETION_KINDS
(also of absent edges).
"""

from __future__ import annotations

import json
import random
import re

from hypothesis import strategies as st

VERTICES = ("1", "2", "3", "4", "5")
LABELS = ("a", "b", "c", "rdf:t")
VARS = ("x", "y", "z", "w")
NOISE_LABEL = "zz"  # never read by a rule: in snapshots, outside the active domain
STEPS = (0, 1, 0, 2, 1, 3, 5, 9, 17)  # ties, bursts, gaps (a gap of 9+ outlives most windows)


class RandomChooser:
    """Choices from a seeded `random.Random`."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def int(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)

    def choice(self, options):
        return options[self.rng.randrange(len(options))]

    def bool(self, p: float) -> bool:
        return self.rng.random() < p


class DataChooser:
    """Choices drawn from hypothesis `st.data()`; every choice shrinks to the simplest."""

    def __init__(self, data) -> None:
        self.data = data

    def int(self, lo: int, hi: int) -> int:
        return self.data.draw(st.integers(lo, hi))

    def choice(self, options):
        return options[self.data.draw(st.integers(0, len(options) - 1))]

    def bool(self, p: float) -> bool:
        # 0 (the shrink target) means "no"
        return self.data.draw(st.integers(0, 99)) >= 100 - round(p * 100)


_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def render_name(name: str) -> str:
    """A predicate name as written in .dl: quoted unless it is an identifier."""
    return name if _IDENT.match(name) else json.dumps(name)


def gen_regex(ch, preds: list[str], depth: int = 0, label=None) -> str:
    """A regular expression over `preds` as text, fully parenthesised where it matters;
    `label(ch, name)`, when given, writes each label (with property tests, say)."""
    kind = ch.int(0, 5) if depth < 2 else 0
    if kind == 0:
        name = ch.choice(preds)
        return render_name(name) if label is None else label(ch, name)
    if kind == 1:
        parts = [gen_regex(ch, preds, depth + 1, label) for _ in range(ch.int(2, 3))]
        return "/".join(f"({p})" if "|" in p else p for p in parts)
    if kind == 2:
        options = [gen_regex(ch, preds, depth + 1, label) for _ in range(ch.int(2, 3))]
        return "(" + "|".join(options) + ")"
    inner = gen_regex(ch, preds, depth + 1, label)
    if not _IDENT.match(inner) and not inner.startswith('"'):
        inner = f"({inner})"
    return inner + "*+?"[kind - 3]


def _term(ch, bound: list[str]) -> str:
    if ch.bool(0.1):
        return ch.choice(VERTICES[:3])  # an integer constant
    if ch.bool(0.08):
        return "_"
    # reuse bound variables often, so atoms join
    name = ch.choice(VARS[: min(len(bound) + 2, len(VARS))])
    if name not in bound:
        bound.append(name)
    return name


def gen_path_rule(ch, available: list[str]) -> str:
    """`Answer` as one path atom, maybe reversed: the output is a PATH itself, which in delta
    mode reports its entries and exits natively (operators/path_closure.py)."""
    head = "Answer(x, y)" if ch.bool(0.7) else "Answer(y, x)"
    if ch.bool(0.6):
        atom = f"[{gen_regex(ch, available)}]"
    else:
        atom = render_name(ch.choice(available)) + "+*"[ch.int(0, 1)]
    return f"{head} :- {_simple(ch)}{atom}(x, y)."


def _simple(ch) -> str:
    """`simple ` before a closure or path atom, now and then (specs/semantics.md §4a)."""
    return "simple " if ch.bool(0.25) else ""


def gen_rule(ch, head: str, available: list[str]) -> str:
    """One rule for `head` over the predicates in `available`."""
    body: list[str] = []
    bound: list[str] = []
    for i in range(ch.int(1, 3)):
        x, y = _term(ch, bound), _term(ch, bound)
        if i == 0 and not bound:
            x = "x"
            bound.append("x")
        kind = ch.int(0, 2) if ch.bool(0.5) else 0
        if kind == 0:
            body.append(f"{render_name(ch.choice(available))}({x}, {y})")
        elif kind == 1:
            op = "+" if ch.int(0, 1) == 0 else "*"
            body.append(f"{_simple(ch)}{render_name(ch.choice(available))}{op}({x}, {y})")
        else:
            body.append(f"{_simple(ch)}[{gen_regex(ch, available)}]({x}, {y})")
    timing = _time_order(ch, body) if ch.bool(0.3) else []
    if ch.bool(0.25):
        left = ch.choice(bound)
        right = ch.choice(bound) if len(bound) > 1 and ch.bool(0.7) else ch.choice(VERTICES[:3])
        if left != right:
            body.append(f"{left} {ch.choice(('!=', '='))} {right}")
    body += timing
    head_args = (ch.choice(bound), ch.choice(bound))
    return f"{head}({head_args[0]}, {head_args[1]}) :- {', '.join(body)}."


TIME_OPS = ("<", "<=", ">", ">=", "=", "!=")


def _time_order(ch, body: list[str]) -> list[str]:
    """Time variables on some atoms of `body` (changed in place, `atom@t0`) and one or two
    comparisons of them, sometimes with an offset (specs/semantics.md §4b)."""
    times = []
    for i, literal in enumerate(body):
        if ch.bool(0.7):
            body[i] = f"{literal}@t{i}"
            times.append(f"t{i}")
    comparisons = []
    for _ in range(ch.int(1, 2) if times else 0):
        gap = "" if ch.bool(0.2) else " "  # spaces are optional: `t0+2<t1`, `t2-6>=t0`
        left = _time_side(ch, ch.choice(times), gap, 0.15)
        right = _time_side(ch, ch.choice(times), gap, 0.3)
        comparisons.append(f"{left}{gap}{ch.choice(TIME_OPS)}{gap}{right}")
    return comparisons


def _time_side(ch, name: str, gap: str, p: float) -> str:
    """A side of a time comparison: `name`, or (with probability `p`) `name` with a duration
    added or taken, a bare integer in time units or one with a unit (`1s` is one unit, `1m`
    more than any window here)."""
    if not ch.bool(p):
        return name
    unit = ch.choice(("", "", "s", "m"))
    return f"{name}{gap}{ch.choice('+-')}{gap}{ch.int(1, 5)}{unit}"


def window_lines(ch, window: int, p_slide: float) -> tuple[list[str], int]:
    """`.window` and, with probability `p_slide`, `.slide` lines; and the slide."""
    lines = [f".window {window}"]
    slide = ch.int(1, window) if ch.bool(p_slide) else 1
    if slide != 1:
        lines.append(f".slide {slide}")
    return lines, slide


def gen_program(ch) -> str:
    """A random valid program as .dl text (windows, slide, rules; output Answer)."""
    lines, slide = window_lines(ch, ch.int(1, 12), 0.35)
    labels = list(LABELS[: ch.int(1, 3)])
    if ch.bool(0.1):
        labels.append(LABELS[3])
    if ch.bool(0.25):
        lines.append(f".window {ch.int(slide, 12)} for {render_name(ch.choice(labels))}")
    names = [f"D{i}" for i in range(1, ch.int(1, 3))] + ["Answer"]
    available = list(labels)
    for name in names:
        if name == "Answer" and ch.bool(0.2):
            lines.append(gen_path_rule(ch, available))
            continue
        for _ in range(ch.int(1, 2)):
            lines.append(gen_rule(ch, name, available))
        available.append(name)
    if len(names) > 1 and ch.bool(0.2):
        lines.append(".output Answer, D1")
    return "\n".join(lines) + "\n"


#: the kinds of deletion a stream mixes in (each case below names its test in
#: tests/incremental/test_incremental_deletions.py)
DELETION_KINDS = (
    "any",  # a random earlier insert (possibly expired, re-inserted or deleted already)
    "newest",  # the latest insert: in PATH the edge expiring last, so usually a tree edge
    "oldest",  # the earliest insert: usually a non-tree edge, or expired (unmatched)
    "reinsert",  # `-` then `+` of one edge at one instant: it stays without a break
    "detour",  # first an alternative path s -> m -> d over the same label, then `-` of s -> d
)


def gen_stream(
    ch, labels, max_len: int = 14, deletions: bool = True
) -> list[tuple[str, str, str, int, str]]:
    """A random stream `(src, trg, label, t, op)` in non-decreasing time; `deletions=False`
    makes it append-only. Deletions are of the DELETION_KINDS, plus now and then a `-` of an
    edge that is not there (reported, never a crash)."""
    labels = list(labels) or ["a"]
    vertices = VERTICES[: ch.int(1, 4)]
    t = ch.int(0, 3)
    edges: list[tuple[str, str, str, int, str]] = []
    inserted: list[tuple[str, str, str]] = []
    for _ in range(ch.int(0, max_len)):
        t += ch.choice(STEPS)
        if deletions and inserted and ch.bool(0.2):
            kind = DELETION_KINDS[ch.int(0, len(DELETION_KINDS) - 1)]
            key = {"newest": inserted[-1], "oldest": inserted[0]}.get(kind) or ch.choice(inserted)
            s, d, lbl = key
            if kind == "detour":
                m = ch.choice(vertices)
                edges += [(s, m, lbl, t, "+"), (m, d, lbl, t, "+")]
                inserted += [(s, m, lbl), (m, d, lbl)]
            edges.append((s, d, lbl, t, "-"))
            if kind == "reinsert":
                edges.append((s, d, lbl, t, "+"))
            continue
        s, d = ch.choice(vertices), ch.choice(vertices)
        lbl = NOISE_LABEL if ch.bool(0.05) else ch.choice(labels)
        if deletions and ch.bool(
            0.03
        ):  # a '-' of an edge that is not there: reported, never a crash
            edges.append((s, d, lbl, t, "-"))
            continue
        edges.append((s, d, lbl, t, "+"))
        inserted.append((s, d, lbl))
    return edges


def gen_case(ch, max_len: int = 14, deletions: bool = True):
    """`(program text, stream)`; the stream uses the labels the program reads."""
    from sgq.datalog.check import check_text

    text = gen_program(ch)
    checked = check_text(text, "generated.dl")
    return text, checked, gen_stream(ch, checked.edb, max_len, deletions)


def program_strategy():
    """Hypothesis strategy: program text."""
    return st.data().map(lambda data: gen_program(DataChooser(data)))


#: closures a bound PATH takes (ε-free, the automaton never back at its start), and one
#: it does not (nullable: the rule leaves it), for sga/rewrite/bind_path_sources.py
BOUND_CLOSURES = ("a+", "[(a|b)+]", "[a/b+]", "[(a/b)+]", "a*")
#: bodies joining the closure `P(x, y)` on x with a seed of one or two atoms (snb/so Q6)
BOUND_BODIES = (
    ("x", "y", "P(x, y), c(x, m), b(m, y)"),
    ("x", "y", "P(x, y), c(x, m)"),
    ("x", "m", "P(x, y), c(x, m)"),
    ("y", "m", "P(x, y), c(x, m), a(m, y)"),
    ("x", "y", "P(x, y), c(x, m), b(m, y), x != y"),
)


def gen_bound_path_program(ch) -> str:
    """A Q6-shaped program: a closure over a, b joined on its source with atoms over c (and
    a, b), so that sga/rewrite/bind_path_sources.py binds the closure to their sources."""
    window = ch.int(1, 12)
    slide = ch.int(1, window) if ch.bool(0.35) else 1
    closure = ch.choice(BOUND_CLOSURES)
    src, trg, body = ch.choice(BOUND_BODIES)
    body = body.replace("P(x, y)", f"{closure}(x, y)")
    return f".window {window}\n.slide {slide}\nAnswer({src}, {trg}) :- {body}.\n"
