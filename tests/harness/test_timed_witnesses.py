"""Witness paths through a timed PATTERN (incremental/operators/timed_pattern.py, `--paths`)
judged by the brute-force reference's snapshots and run starts (tests/snapshot_reference.py):
every result row with a witness names one input edge per body atom, in body order, that binds
the rule's variables to the row's head, and at some instant of the row's interval all those
edges are in the input snapshot and their starts satisfy the rule's comparisons. Programs are
the timing workloads' shapes (paths, cycles, atoms that meet, a label read twice) with total,
partial and random orders, on streams with renewals and deletions."""

from __future__ import annotations

import random

import snapshot_reference as ref
from harness_support import THOROUGH
from hypothesis import given, settings
from hypothesis import strategies as st
from sgq.datalog.ast import Comparison, Var
from sgq.datalog.check import check_text

import sgq

#: examples per property: 150 by default, 3000 in the thorough profile (HYPOTHESIS_PROFILE)
EXAMPLES = 3000 if THOROUGH else 150

SHAPES = [
    ["a(x, y)", "b(y, z)", "c(z, w)"],
    ["a(x, y)", "b(y, z)", "c(z, x)"],
    ["a(x, y)", "b(m, x)", "c(y, m)"],
    ["a(x, y)", "b(y, z)", "c(z, w)", "a(w, v)"],
    ["a(x, y)", "b(x, z)", "a(z, w)", "c(w, y)"],
    ["a(x, y)", "b(y, z)"],
]
ORDERS = ("<", "<=", ">", ">=", "=", "!=")


def case(rng: random.Random) -> tuple[str, list]:
    """A random timed rule and stream (seeded: streams dense enough for matches)."""
    body = list(rng.choice(SHAPES))
    # at least two atoms bind a time and one comparison reads them: a timed PATTERN (a rule
    # without comparisons is an ordinary PATTERN, which rewrites may reorder)
    times = sorted(rng.sample(range(len(body)), rng.randint(2, len(body))))
    for i in times:
        body[i] += f"@t{i}"
    order = rng.sample(times, len(times))
    if rng.random() < 0.5:  # a total order, as the timing workloads have
        comparisons = [f"t{u} {rng.choice(('<', '<='))} t{v}" for u, v in zip(order, order[1:])]
    else:
        comparisons = []
        for _ in range(rng.randint(1, 3)):
            u, v = rng.sample(times, 2)
            shift = rng.choice(["", "", " + 2", " - 1", "-1s"])
            left_shift = rng.choice(["", "", "", " + 1", " - 2", "+3"])  # `t1 + 1 < t2`
            comparisons.append(f"t{u}{left_shift} {rng.choice(ORDERS)} t{v}{shift}")
    if rng.random() < 0.3:
        comparisons.append("x != y")
    names = sorted({arg for atom in body for arg in _args(atom)})
    head = rng.sample(names, 2)
    text = (
        f".window {rng.randint(4, 12)}\n"
        f"Answer({head[0]}, {head[1]}) :- {', '.join(body + comparisons)}.\n"
    )
    vertices = [str(v) for v in range(rng.randint(2, 3))]
    edges, inserted, t = [], [], 0
    for _ in range(rng.randint(8, 40)):
        t += rng.choice([0, 0, 1])
        roll = rng.random()
        if inserted and roll < 0.15:
            edges.append((*rng.choice(inserted), t, "-"))
            continue
        if inserted and roll < 0.35:  # a renewal: the same edge again, maybe while valid
            s, d, label = rng.choice(inserted)
        else:
            s, d, label = rng.choice(vertices), rng.choice(vertices), rng.choice("abc")
        edges.append((s, d, label, t, "+"))
        inserted.append((s, d, label))
    return text, edges


def _args(atom: str) -> list[str]:
    return [a.strip() for a in atom.split("(")[1].split(")")[0].split(",")]


def witness_problems(text: str, edges: list) -> tuple[int, list]:
    """`(rows with a witness, the rows whose witness the reference refutes)`."""
    checked = check_text(text, "timed.dl")
    (rule,) = checked.program.rules
    atoms = [lit for lit in rule.body if not isinstance(lit, Comparison)]
    comparisons = [lit for lit in rule.body if isinstance(lit, Comparison)]
    engine = sgq.compile(text).engine(paths=True)
    engine.push_batch(edges)
    engine.close()
    rows = [r for r in engine.drain() if r.path]
    # the input snapshot and each timed atom's starts at every change point, in order
    points = ref.change_points(checked, edges)
    runs = ref.Runs()
    seen = {}
    for tau in points:
        runs.at(tau)
        snapshot = ref.input_snapshot(checked, edges, tau)
        starts = [
            runs.starts(lit, {(s, t) for s, t, label in snapshot if label == lit.pred})
            if lit.time is not None
            else None
            for lit in atoms
        ]
        seen[tau] = (snapshot, starts)
    bad = []
    for row in rows:
        binding = _binding(atoms, row.path)
        head = tuple(binding.get(arg.name) for arg in rule.head.args) if binding else None
        taus = [p for p in points if row.ts <= p < row.exp] + [p for p in points if p <= row.ts][
            -1:
        ]
        if head != (row.src, row.trg) or not any(
            _holds(atoms, comparisons, row.path, binding, *seen[tau]) for tau in taus
        ):
            bad.append(row)
    return len(rows), bad


def _binding(atoms, path) -> dict | None:
    """The variables bound by matching each atom to its witness edge, or None when the
    witness does not fit the body (count, labels, a variable bound twice differently)."""
    if len(path) != len(atoms):
        return None
    binding: dict = {}
    for lit, (s, t, label) in zip(atoms, path):
        if label != lit.pred:
            return None
        for arg, value in zip(lit.args, (s, t)):
            if binding.setdefault(arg.name, value) != value:
                return None
    return binding


def _holds(atoms, comparisons, path, binding, snapshot, starts) -> bool:
    """Whether every witness edge is in `snapshot` and the comparisons hold on `binding` and
    the edges' `starts` at that instant."""
    if not all(edge in snapshot for edge in path):
        return False
    time = {
        lit.time: starts[k][(s, t)]
        for k, (lit, (s, t, _label)) in enumerate(zip(atoms, path))
        if lit.time is not None
    }
    for c in comparisons:
        if c.left.name in time:
            if not ref.TIME_OPS[c.op](time[c.left.name], time[c.right.name] + c.shift):
                return False
        else:
            right = binding[c.right.name] if isinstance(c.right, Var) else c.right.value
            if (binding[c.left.name] == right) != (c.op == "="):
                return False
    return True


@settings(max_examples=EXAMPLES, deadline=None)
@given(st.integers(0, 2**32))
def test_witnesses_of_a_timed_pattern_are_matches_the_reference_admits(seed):
    text, edges = case(random.Random(seed))
    _rows, bad = witness_problems(text, edges)
    assert not bad, (text, edges, bad)


def test_a_witness_names_the_edges_in_arrival_order():
    """By hand: two `a`-`b`-`c` paths from 1 to 4, one in arrival order; the witness is that
    one, edge by edge in body order."""
    text = ".window 10\nAnswer(x, w) :- a(x, y)@t1, b(y, z)@t2, c(z, w)@t3, t1 < t2, t2 < t3."
    edges = [
        ("2", "5", "b", 0, "+"),
        ("1", "2", "a", 1, "+"),
        ("2", "3", "b", 2, "+"),
        ("5", "4", "c", 3, "+"),
        ("3", "4", "c", 3, "+"),
    ]
    engine = sgq.compile(text).engine(paths=True)
    engine.push_batch(edges)
    engine.close()
    (row,) = engine.drain()
    assert (row.src, row.trg, row.ts, row.exp) == ("1", "4", 3, 11)
    assert row.path == (("1", "2", "a"), ("2", "3", "b"), ("3", "4", "c"))
    assert witness_problems(text, edges) == (1, [])
