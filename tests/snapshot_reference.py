"""A brute-force, obviously-correct reference for the meaning of a program (specs/semantics.md §1-4).

Nothing clever: the input snapshot at `tau` is rebuilt from the whole stream, rules are
evaluated by nested loops over variable bindings, closures by iterating to a fixpoint, and
path atoms `[R]` by a breadth-first search over the product of the snapshot graph with an NFA
built here (Thompson construction) straight from the datalog regex AST.

Independence rule: this module starts from the checked program (`sgq.datalog`) only; it never
looks at the SGA plan, the engine's operators or any DFA code of the engine, so a translation
or engine bug cannot hide on both sides of a comparison.

Edges are `(src, trg, label, t, op)` or `(src, trg, label, t, op, props)` with `op` "+" or
"-" and `props` a dict of the present properties (specs/semantics.md §1); vertex ids are
compared as strings. Properties (§4c) are Python values compared with Python's operators after
a type check (numbers with numbers, strings with strings by `=` and `!=` only), never through
any code of the engine's.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable

from sgq.datalog.ast import (
    Alt,
    Anon,
    Atom,
    Closure,
    Comparison,
    Concat,
    Const,
    Label,
    Optional,
    PathAtom,
    Plus,
    PropArg,
    PropTest,
    Regex,
    Star,
    Var,
    property_value,
    property_variables,
    regex_prop_labels,
)
from sgq.datalog.checked import CheckedProgram
from sgq.datalog.printer import regex_text

#: the comparisons of time variables (specs/semantics.md §4b), on integer starts
TIME_OPS = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "=": operator.eq,
    "!=": operator.ne,
}

Edge = tuple  # (src, trg, label, t, op) or (src, trg, label, t, op, props)
Pair = tuple[str, str]
Snapshot = set[tuple[str, str, str]]
#: a tuple's properties, `((key, value), ...)` sorted by key: equal values (`15`, `15.0`)
#: give equal, equally hashed keys, so such tuples coalesce (specs/semantics.md §1)
Props = tuple[tuple[str, object], ...]
Tuple = tuple[str, str, str, Props]


# ---- input: windows and snapshots (specs/semantics.md §1-2) --------------------------------------


def edge_props(edge) -> dict:
    """The present properties of an edge (none for a five-field edge; `None` is missing)."""
    props = edge[5] if len(edge) > 5 and edge[5] else {}
    return {str(k): v for k, v in props.items() if v is not None}


def validity_intervals(
    checked: CheckedProgram, edges: Iterable[Edge]
) -> dict[Tuple, list[list[int]]]:
    """Every tuple `(src, trg, label, props)` -> its validity intervals `[ts, exp)` after the
    whole stream.

    '+' at t adds `[t, ⌊t/β⌋·β + ω(label))` to its tuple; '-' at t cuts every interval valid at
    t of the tuples of its `(src, trg, label)` whose properties equal every property the '-'
    gives (all of them when it gives none) to end at t. Events apply in input order, so ties
    behave as §1 says.
    """
    intervals: dict[Tuple, list[list[int]]] = {}
    keys: dict[tuple, list[Tuple]] = {}  # (src, trg, label) -> its tuples, first seen first
    for edge in edges:
        src, trg, label, t, op = edge[:5]
        props = edge_props(edge)
        edge_key = (str(src), str(trg), str(label))
        t = int(t)
        if op == "+":
            key = (*edge_key, tuple(sorted(props.items())))
            if key not in intervals:
                keys.setdefault(edge_key, []).append(key)
            intervals.setdefault(key, []).append([t, checked.expiry(edge_key[2], t)])
        elif op == "-":
            for key in keys.get(edge_key, ()):
                held = dict(key[3])
                if any(k not in held or not _equal(held[k], v) for k, v in props.items()):
                    continue
                for iv in intervals[key]:
                    if iv[0] <= t < iv[1]:
                        iv[1] = t
        else:
            raise ValueError(f"unknown op {op!r}")
    return intervals


def input_tuples(checked: CheckedProgram, edges: Iterable[Edge], tau: int) -> set[Tuple]:
    """The tuples `(src, trg, label, props)` with some validity interval holding `tau`."""
    prefix = [e for e in edges if int(e[3]) <= tau]
    return {
        key
        for key, ivs in validity_intervals(checked, prefix).items()
        if any(ts <= tau < exp for ts, exp in ivs)
    }


def input_snapshot(checked: CheckedProgram, edges: Iterable[Edge], tau: int) -> Snapshot:
    """The set of `(src, trg, label)` with some validity interval holding `tau`."""
    return {key[:3] for key in input_tuples(checked, edges, tau)}


def change_points(checked: CheckedProgram, edges: Iterable[Edge]) -> list[int]:
    """Sorted input times and expiry instants: the only times a snapshot can change (§4)."""
    points: set[int] = set()
    for _src, _trg, label, t, op, *_props in edges:
        points.add(int(t))
        if op == "+":
            points.add(checked.expiry(str(label), int(t)))
    return sorted(points)


def active_domain(checked: CheckedProgram, snapshot: Snapshot) -> set[str]:
    """V_τ: endpoints of snapshot edges whose label is an input label read by a rule body."""
    edb = set(checked.edb)
    out: set[str] = set()
    for s, t, label in snapshot:
        if label in edb:
            out.add(s)
            out.add(t)
    return out


# ---- property values (specs/semantics.md §4c) ----------------------------------------------


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _equal(a, b) -> bool:
    """Typed equality: numbers by value (`15` equals `15.0`), strings by text, nothing else."""
    if _is_number(a) and _is_number(b):
        return a == b
    return isinstance(a, str) and isinstance(b, str) and a == b


_MISSING = object()  # a side with no value: a string with a number added


def _prop_side(value, offset, op: str):
    """A comparison side as written: the value, with a plain number added (`+`) or taken
    (`-`); a number added to a string is no value."""
    if offset is None:
        return value
    if not _is_number(value):
        return _MISSING
    return value + offset.value if op == "+" else value - offset.value


def prop_holds(left, op: str, right) -> bool:
    """`left op right` on two property values: numbers with numbers in numeric order, strings
    with strings by `=` and `!=` only; anything else (a missing side included) does not hold."""
    if _is_number(left) and _is_number(right):
        return TIME_OPS[op](left, right)
    if isinstance(left, str) and isinstance(right, str) and op in ("=", "!="):
        return TIME_OPS[op](left, right)
    return False


def _passes(props: dict, tests: tuple[PropTest, ...]) -> bool:
    """Whether an edge's properties pass every test of a path label (a missing one fails)."""
    return all(
        t.key in props and prop_holds(props[t.key], t.op, property_value(t.value)) for t in tests
    )


def _typed(const: Const) -> tuple:
    """A constant's typed value as a key part: `15` and `"15"` differ."""
    value = property_value(const)
    return ("s", value) if isinstance(value, str) else ("n", value)


def letter(label: Label):
    """What a path label reads: its name, or with tests the name and its typed tests."""
    if not label.props:
        return label.name
    return ("tested", label.name, tuple((t.key, t.op, _typed(t.value)) for t in label.props))


def _seen_keys(atom: Atom) -> tuple[str, ...]:
    """The properties an atom's braces name, in order, once each: the tuple the atom sees is
    `(src, trg)` with their values (specs/semantics.md §4c)."""
    return tuple(dict.fromkeys(a.key for a in atom.props))


def _brace_key(arg: PropArg) -> tuple:
    if isinstance(arg.value, Const):
        return (arg.key, _typed(arg.value))
    if isinstance(arg.value, Var):
        return (arg.key, "var", arg.value.name)
    return (arg.key, "_")


# ---- closures and regular paths ------------------------------------------------------------


def transitive_closure(pairs: set[Pair]) -> set[Pair]:
    """p+ by repeated composition until nothing new appears."""
    closure = set(pairs)
    while True:
        succ: dict[str, set[str]] = {}
        for a, b in closure:
            succ.setdefault(a, set()).add(b)
        new = {(a, c) for a, b in closure for c in succ.get(b, ()) if (a, c) not in closure}
        if not new:
            return closure
        closure |= new


class NFA:
    """A Thompson NFA: ε-moves and labelled moves between integer states."""

    def __init__(self) -> None:
        self.eps: dict[int, set[int]] = {}
        self.moves: dict[int, list[tuple[str, int]]] = {}
        self.count = 0

    def state(self) -> int:
        self.count += 1
        return self.count - 1

    def add_eps(self, a: int, b: int) -> None:
        self.eps.setdefault(a, set()).add(b)

    def add_move(self, a: int, label, b: int) -> None:
        self.moves.setdefault(a, []).append((label, b))

    def build(self, regex: Regex) -> tuple[int, int]:
        """States (start, accept) of a fragment recognising L(regex)."""
        if isinstance(regex, Label):
            a, b = self.state(), self.state()
            self.add_move(a, letter(regex), b)
            return a, b
        if isinstance(regex, Concat):
            start, end = self.build(regex.parts[0])
            for part in regex.parts[1:]:
                s, e = self.build(part)
                self.add_eps(end, s)
                end = e
            return start, end
        if isinstance(regex, Alt):
            a, b = self.state(), self.state()
            for option in regex.options:
                s, e = self.build(option)
                self.add_eps(a, s)
                self.add_eps(e, b)
            return a, b
        s, e = self.build(regex.inner)
        a, b = self.state(), self.state()
        self.add_eps(a, s)
        self.add_eps(e, b)
        if isinstance(regex, (Star, Optional)):
            self.add_eps(a, b)
        if isinstance(regex, (Star, Plus)):
            self.add_eps(e, s)
        return a, b

    def closure(self, states: Iterable[int]) -> frozenset[int]:
        todo = list(states)
        seen = set(todo)
        while todo:
            q = todo.pop()
            for r in self.eps.get(q, ()):
                if r not in seen:
                    seen.add(r)
                    todo.append(r)
        return frozenset(seen)


def regex_accepts_empty(regex: Regex) -> bool:
    nfa = NFA()
    start, accept = nfa.build(regex)
    return accept in nfa.closure([start])


def regular_path_pairs(
    regex: Regex, relations: dict[str, set[Pair]], domain: set[str]
) -> set[Pair]:
    """[R]: pairs (u, w) joined by a path (vertices may repeat) whose label word is in L(R),
    found by BFS over (vertex, NFA state); plus (v, v) for v in `domain` when ε ∈ L(R)."""
    nfa = NFA()
    start, accept = nfa.build(regex)
    succ: dict[str, dict[str, set[str]]] = {}
    for name in {lbl for moves in nfa.moves.values() for lbl, _ in moves}:
        per: dict[str, set[str]] = {}
        for a, b in relations.get(name, ()):
            per.setdefault(a, set()).add(b)
        succ[name] = per
    sources = {a for per in succ.values() for a in per}
    out: set[Pair] = set()
    init = nfa.closure([start])
    for root in sources:
        seen: set[tuple[str, int]] = set()
        todo = [(root, q) for q in init]
        while todo:
            v, q = todo.pop()
            for label, q2 in nfa.moves.get(q, ()):
                for w in succ[label].get(v, ()):
                    for q3 in nfa.closure([q2]):
                        if (w, q3) not in seen:
                            seen.add((w, q3))
                            todo.append((w, q3))
                            if q3 == accept:
                                out.add((root, w))
    if accept in init:
        out |= {(v, v) for v in domain}
    return out


def simple_path_pairs(regex: Regex, relations: dict[str, set[Pair]], domain: set[str]) -> set[Pair]:
    """simple [R] (specs/semantics.md §4a): pairs (u, w), u != w, joined by a path that visits
    no vertex twice and whose label word is in L(R), by enumerating every simple path from
    every vertex (depth-first, the NFA's state set carried along); plus (v, v) for v in
    `domain` when ε ∈ L(R): only the empty path joins a vertex to itself."""
    nfa = NFA()
    start, accept = nfa.build(regex)
    edges: dict[str, list[tuple[str, str]]] = {}  # v -> [(label, w)]
    for name in {lbl for moves in nfa.moves.values() for lbl, _ in moves}:
        for a, b in relations.get(name, ()):
            edges.setdefault(a, []).append((name, b))
    out: set[Pair] = set()

    def step(states: frozenset[int], label: str) -> frozenset[int]:
        return nfa.closure(q2 for q in states for lbl, q2 in nfa.moves.get(q, ()) if lbl == label)

    def walk(root: str, v: str, states: frozenset[int], visited: set[str]) -> None:
        for label, w in edges.get(v, ()):
            if w in visited:
                continue
            nxt = step(states, label)
            if not nxt:
                continue
            if accept in nxt:
                out.add((root, w))
            visited.add(w)
            walk(root, w, nxt, visited)
            visited.discard(w)

    for root in edges:
        walk(root, root, nfa.closure([start]), {root})
    if accept in nfa.closure([start]):
        out |= {(v, v) for v in domain}
    return out


# ---- rules (specs/semantics.md §4) ---------------------------------------------------------------


def _literal_pairs(lit, relations: dict[str, set[Pair]], domain: set[str]) -> set[Pair]:
    if isinstance(lit, Atom):
        return relations.get(lit.pred, set())
    if isinstance(lit, Closure) and lit.simple:
        label = Label(lit.pred)
        regex = Plus(label) if lit.op == "+" else Star(label)
        return simple_path_pairs(regex, relations, domain)
    if isinstance(lit, PathAtom) and lit.simple:
        return simple_path_pairs(lit.regex, relations, domain)
    if isinstance(lit, Closure):
        plus = transitive_closure(relations.get(lit.pred, set()))
        if lit.op == "*":
            return plus | {(v, v) for v in domain}
        return plus
    if isinstance(lit, PathAtom):
        return regular_path_pairs(lit.regex, relations, domain)
    raise TypeError(f"not a body atom: {lit!r}")


def _term_value(term, binding: dict[str, str]) -> str:
    if isinstance(term, Const):
        return term.value
    return binding[term.name]


def _bind(term, value: str, binding: dict[str, str]) -> bool:
    """Extend `binding` so `term` matches `value`; False on a clash."""
    if isinstance(term, Anon):
        return True
    if isinstance(term, Const):
        return term.value == value
    if term.name in binding:
        return binding[term.name] == value
    binding[term.name] = value
    return True


def literal_key(lit) -> tuple:
    """What a body atom reads, as a key of the run-start history (`Runs`): with braces, also
    what they name and test (typed, so `{k: 15}` and `{k: "15"}` differ)."""
    if isinstance(lit, Atom):
        if lit.props:
            return ("atom", lit.pred, tuple(_brace_key(a) for a in lit.props))
        return ("atom", lit.pred)
    if isinstance(lit, Closure):
        return ("closure", lit.pred, lit.op, lit.simple)
    return ("path", regex_text(lit.regex), lit.simple)


def braced_table(atom: Atom, tuples: Iterable[tuple[str, str, dict]]) -> set[tuple]:
    """The tuples `(src, trg, values)` an atom with braces sees: `values` those of the
    properties its braces name (`_seen_keys`), for the tuples that have them all, whose
    constants match and whose repeated property variables hold equal values."""
    keys = _seen_keys(atom)
    out = set()
    for a, b, props in tuples:
        if any(k not in props for k in keys):
            continue
        bound: dict[str, object] = {}
        ok = True
        for arg in atom.props:
            value = props[arg.key]
            if isinstance(arg.value, Const):
                ok = ok and _equal(value, property_value(arg.value))
            elif isinstance(arg.value, Var):
                name = arg.value.name
                ok = ok and (name not in bound or _equal(bound[name], value))
                bound.setdefault(name, value)
        if ok:
            out.add((a, b, tuple(props[k] for k in keys)))
    return out


class Runs:
    """Run starts (specs/semantics.md §4b) by brute force: for every body atom that binds a
    time variable, the pairs it held at the previous change point with the instant each has
    held since without a break. Fed the change points in increasing order."""

    def __init__(self) -> None:
        self.previous: dict[tuple, dict[Pair, int]] = {}
        self.current: dict[tuple, dict[Pair, int]] = {}
        self.tau: int | None = None

    def at(self, tau: int) -> None:
        """Move to change point `tau` (each atom's starts are recomputed on first use)."""
        self.previous.update(self.current)
        self.current = {}
        self.tau = tau

    def starts(self, lit, pairs: set[Pair]) -> dict[Pair, int]:
        """`pair -> start` of the atom `lit` holding `pairs` at the current change point: a
        pair held at the previous change point keeps its start (the relation did not change
        in between), any other starts now."""
        key = literal_key(lit)
        if key not in self.current:
            before = self.previous.get(key, {})
            self.current[key] = {p: before.get(p, self.tau) for p in pairs}
        return self.current[key]


def _time_side(start: int, offset, op: str) -> int:
    """A start with a comparison side's duration added (`+`) or taken (`-`), as written."""
    if offset is None:
        return start
    return start + offset.value if op == "+" else start - offset.value


def _time_vars(rule) -> set[str]:
    return {
        lit.time for lit in rule.body if not isinstance(lit, Comparison) and lit.time is not None
    }


def _bind_props(atom: Atom, values: tuple, binding: dict) -> bool:
    """Extend `binding` with an atom's property variables (`%name`) from the values it sees;
    False when one is bound already to a value it does not equal (a join on it)."""
    seen = dict(zip(_seen_keys(atom), values))
    for arg in atom.props:
        if isinstance(arg.value, Var):
            name = "%" + arg.value.name
            if name in binding and not _equal(binding[name], seen[arg.key]):
                return False
            binding[name] = seen[arg.key]
    return True


def evaluate_rule(
    rule,
    relations: dict[str, set[Pair]],
    domain: set[str],
    runs: Runs | None = None,
    tuples: dict[str, list] | None = None,
) -> set[Pair]:
    """All head pairs of one rule: nested loops over every body atom's pairs, then filters.
    A time variable binds the start of its atom's pair (`runs`, needed when there are some);
    an atom with braces ranges over the tuples of its label (`tuples`: label -> `(src, trg,
    props)`) as `braced_table` sees them, binding its property variables."""
    atoms = [lit for lit in rule.body if not isinstance(lit, Comparison)]
    comparisons = [lit for lit in rule.body if isinstance(lit, Comparison)]
    tables = [
        braced_table(lit, (tuples or {}).get(lit.pred, ()))
        if isinstance(lit, Atom) and lit.props
        else _literal_pairs(lit, relations, domain)
        for lit in atoms
    ]
    times = _time_vars(rule)
    props = property_variables(rule)
    starts = [
        runs.starts(lit, table) if lit.time is not None and runs is not None else None
        for lit, table in zip(atoms, tables)
    ]
    out: set[Pair] = set()

    def compare(c, binding) -> bool:
        if isinstance(c.left, Var) and c.left.name in times:
            left = _time_side(binding["@" + c.left.name], c.left_offset, c.left_offset_op)
            right = _time_side(binding["@" + c.right.name], c.offset, c.offset_op)
            return TIME_OPS[c.op](left, right)
        if any(isinstance(t, Var) and t.name in props for t in (c.left, c.right)):
            left = _prop_value(c.left, binding, c.left_offset, c.left_offset_op)
            right = _prop_value(c.right, binding, c.offset, c.offset_op)
            return prop_holds(left, c.op, right)
        equal = _term_value(c.left, binding) == _term_value(c.right, binding)
        return equal == (c.op == "=")

    def extend(i: int, binding: dict[str, str]) -> None:
        if i == len(atoms):
            if all(compare(c, binding) for c in comparisons):
                out.add(tuple(_term_value(t, binding) for t in rule.head.args))
            return
        x, y = atoms[i].args
        for row in tables[i]:
            a, b = row[0], row[1]
            b2 = dict(binding)
            if not (_bind(x, a, b2) and _bind(y, b, b2)):
                continue
            if len(row) == 3 and not _bind_props(atoms[i], row[2], b2):
                continue
            if starts[i] is not None:
                b2["@" + atoms[i].time] = starts[i][row]
            extend(i + 1, b2)

    extend(0, {})
    return out


def _prop_value(term, binding: dict, offset, op: str):
    """A property comparison's side: a constant's typed value or a property variable's, as
    written (`_prop_side`)."""
    value = property_value(term) if isinstance(term, Const) else binding["%" + term.name]
    return _prop_side(value, offset, op)


def _tested_labels(checked: CheckedProgram) -> list[Label]:
    out = []
    for rule in checked.program.rules:
        for lit in rule.body:
            if isinstance(lit, PathAtom):
                out += regex_prop_labels(lit.regex)
    return out


def evaluate(
    checked: CheckedProgram, snapshot: set[tuple], runs: Runs | None = None
) -> dict[str, set[Pair]]:
    """The one-time meaning on one input snapshot (triples `(src, trg, label)`, or tuples
    `(src, trg, label, props)` from `input_tuples` when the program reads properties): every
    predicate -> its set of pairs (with time variables, `runs` holds the starts at this
    snapshot's change point)."""
    relations: dict = {}
    tuples: dict[str, list] = {}
    for row in snapshot:
        s, t, label = row[:3]
        relations.setdefault(label, set()).add((s, t))
        tuples.setdefault(label, []).append((s, t, dict(row[3]) if len(row) > 3 else {}))
    for label in _tested_labels(checked):
        relations[letter(label)] = {
            (s, t) for s, t, props in tuples.get(label.name, ()) if _passes(props, label.props)
        }
    domain = active_domain(checked, {row[:3] for row in snapshot})
    idb = set(checked.idb)
    rules = checked.program.rules
    for pred in checked.order:
        if pred not in idb:
            continue
        result: set[Pair] = set()
        for rule in rules:
            if rule.head.pred == pred:
                result |= evaluate_rule(rule, relations, domain, runs, tuples)
        relations[pred] = result
    return {p: relations.get(p, set()) for p in (*checked.edb, *checked.idb)}


def _timed(checked: CheckedProgram) -> bool:
    return any(_time_vars(rule) for rule in checked.program.rules)


def output_snapshot(checked: CheckedProgram, edges: Iterable[Edge], tau: int) -> Snapshot:
    """`(src, trg, label)` of every output predicate at `tau`: what the engine must show.
    With time variables the history matters: every change point up to `tau` is evaluated."""
    edges = list(edges)
    if _timed(checked):
        points = [p for p in change_points(checked, edges) if p < tau] + [tau]
        return output_snapshots(checked, edges, points)[tau]
    result = evaluate(checked, input_tuples(checked, edges, tau))
    return {(s, t, p) for p in checked.outputs for s, t in result.get(p, ())}


def output_snapshots(
    checked: CheckedProgram, edges: Iterable[Edge], points: list[int] | None = None
) -> dict[int, Snapshot]:
    """The output snapshot at every change point (or at `points`, which must include every
    change point before the last of them when the program has time variables)."""
    edges = list(edges)
    if points is None:
        points = change_points(checked, edges)
    runs = Runs() if _timed(checked) else None
    out = {}
    for tau in points:
        if runs is not None:
            runs.at(tau)
        result = evaluate(checked, input_tuples(checked, edges, tau), runs)
        out[tau] = {(s, t, p) for p in checked.outputs for s, t in result.get(p, ())}
    return out


def delta_view(
    checked: CheckedProgram, edges: Iterable[Edge]
) -> list[tuple[int, str, str, str, str]]:
    """`(time, op, src, trg, label)`: '+' when a fact enters the output snapshot, '-' when it
    leaves, by comparing the snapshots at consecutive change points (§5)."""
    out = []
    previous: Snapshot = set()
    for tau, snap in sorted(output_snapshots(checked, edges).items()):
        for fact in sorted(snap - previous):
            out.append((tau, "+", *fact))
        for fact in sorted(previous - snap):
            out.append((tau, "-", *fact))
        previous = snap
    return out
