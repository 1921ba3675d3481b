"""The re-evaluation baseline: the one-time query recomputed from scratch on each snapshot.

This is what an engine without incremental maintenance does once per slide (thesis 5.3, the
"re-execution strategy"): take the window's snapshot graph and evaluate the program's
one-time meaning (specs/semantics.md §4) with hash joins, BFS closures and an automaton product for
path atoms. It is a fair baseline, not a straw man: every relation is built with dict/set
indexes, and a closure or path is only expanded from the sources a constant allows.

It starts from the checked program (datalog AST), like the oracle, and uses the oracle's
automaton; it shares nothing with the engine.
"""

from __future__ import annotations

from collections import defaultdict

from sgq.datalog.ast import Atom, Closure, Comparison, Const, Label, Plus, Star, Var
from sgq.datalog.checked import CheckedProgram
from sgq.oracle.automaton import build_automaton

Pairs = set[tuple[str, str]]


def _successors(pairs: Pairs) -> dict[str, list[str]]:
    out: dict[str, list[str]] = defaultdict(list)
    for s, t in pairs:
        out[s].append(t)
    return out


def transitive_closure(pairs: Pairs) -> Pairs:
    """`p+` by one BFS per source vertex."""
    succ = _successors(pairs)
    result: Pairs = set()
    for root in list(succ):
        seen: set[str] = set()
        frontier = succ[root]
        while frontier:
            nxt = []
            for v in frontier:
                if v not in seen:
                    seen.add(v)
                    nxt.extend(succ.get(v, ()))
            frontier = nxt
        result.update((root, v) for v in seen)
    return result


def path_relation(regex, relations: dict[str, Pairs], domain: set[str]) -> Pairs:
    """`[R]`: BFS over (vertex, NFA state) from every source; ε adds `(v, v)` for v in domain.

    Seeds are not marked as visited, so a root reached again by a non-empty path counts.
    """
    nfa = build_automaton(regex)
    succ = {label: _successors(relations.get(label, set())) for label in nfa.labels}
    by_state: dict[int, list[tuple[dict[str, list[str]], int]]] = defaultdict(list)
    for q, label, q2 in nfa.moves:
        by_state[q].append((succ[label], q2))
    accepting = nfa.accepting
    sources: set[str] = set()
    for label in nfa.labels:
        sources.update(succ[label])
    result: Pairs = set()
    for root in sources:
        seen: set[tuple[str, int]] = set()
        frontier = [(root, q) for q in nfa.initial]
        while frontier:
            nxt = []
            for v, q in frontier:
                for graph, q2 in by_state.get(q, ()):
                    for w in graph.get(v, ()):
                        if q2 in accepting:
                            result.add((root, w))
                        if (w, q2) not in seen:
                            seen.add((w, q2))
                            nxt.append((w, q2))
            frontier = nxt
    if nfa.nullable:
        result.update((v, v) for v in domain)
    return result


def _atom_rows(lit, relation: Pairs) -> tuple[tuple[str, ...], list[tuple[str, ...]]]:
    """The bindings an atom over `relation` produces: (variables, rows of values)."""
    src, trg = lit.args
    rows = relation
    if isinstance(src, Const):
        rows = [(s, t) for s, t in rows if s == src.value]
    if isinstance(trg, Const):
        rows = [(s, t) for s, t in rows if t == trg.value]
    sv = src.name if isinstance(src, Var) else None
    tv = trg.name if isinstance(trg, Var) else None
    if sv is not None and sv == tv:
        return (sv,), [(s,) for s, t in rows if s == t]
    names = tuple(n for n in (sv, tv) if n is not None)
    if sv is not None and tv is not None:
        return names, list(rows)
    if sv is not None:
        return names, list({(s,) for s, _ in rows})
    if tv is not None:
        return names, list({(t,) for _, t in rows})
    return (), [()] if rows else []


def _join(left: tuple[tuple[str, ...], list], right: tuple[tuple[str, ...], list]):
    """Hash join of two binding tables on their shared variables."""
    lnames, lrows = left
    rnames, rrows = right
    shared = [n for n in lnames if n in rnames]
    li = [lnames.index(n) for n in shared]
    ri = [rnames.index(n) for n in shared]
    extra = [i for i, n in enumerate(rnames) if n not in lnames]
    index: dict[tuple, list] = defaultdict(list)
    for row in rrows:
        index[tuple(row[i] for i in ri)].append(row)
    out = []
    for row in lrows:
        for match in index.get(tuple(row[i] for i in li), ()):
            out.append(row + tuple(match[i] for i in extra))
    return lnames + tuple(rnames[i] for i in extra), out


def _join_all(tables: list, keep: set) -> tuple[tuple[str, ...], list]:
    """Join the atoms' binding tables as a batch system would: start from the smallest table,
    then join the connected table with the smallest estimated result (rows x matches per key),
    projecting each intermediate on the variables still needed (`keep` and those of the
    tables left) with duplicates removed. The order of the rule body would cross, on SGA Q5,
    every message of x with every message of y (more memory than a machine has, at a full
    window of the thesis workloads)."""
    if not tables:
        return (), [()]
    left = min(tables, key=lambda t: len(t[1]))
    todo = [t for t in tables if t is not left]
    while todo and left[1]:

        def estimate(t, left=left):
            shared = [n for n in t[0] if n in left[0]]
            if not shared:
                return (1, len(left[1]) * len(t[1]))
            ix = [t[0].index(n) for n in shared]
            keys = len({tuple(r[i] for i in ix) for r in t[1]}) or 1
            return (0, len(left[1]) * len(t[1]) / keys)

        right = min(todo, key=estimate)
        todo.remove(right)
        names, rows = _join(left, right)
        need = keep.union(*(t[0] for t in todo))
        cols = [i for i, n in enumerate(names) if n in need]
        if len(cols) < len(names):
            names = tuple(names[i] for i in cols)
            rows = list({tuple(r[i] for i in cols) for r in rows})
        left = (names, rows)
    if todo:  # an empty intermediate: nothing joins
        return left[0] + tuple(n for t in todo for n in t[0] if n not in left[0]), []
    return left


def evaluate(checked: CheckedProgram, snapshot: dict[str, Pairs]) -> dict[str, Pairs]:
    """Every predicate's relation on one snapshot (`label -> pairs`), by rules in `checked.order`."""
    relations: dict[str, Pairs] = {label: snapshot.get(label, set()) for label in checked.edb}
    domain = {v for label in checked.edb for pair in relations[label] for v in pair}
    rules_by_head = defaultdict(list)
    for rule in checked.program.rules:
        rules_by_head[rule.head.pred].append(rule)
    for pred in checked.order:
        if pred not in rules_by_head:
            continue
        out: Pairs = set()
        for rule in rules_by_head[pred]:
            tables = []
            for lit in rule.body:
                if isinstance(lit, Comparison):
                    continue
                if isinstance(lit, Atom):
                    rel = relations.get(lit.pred, set())
                elif isinstance(lit, Closure):
                    base = relations.get(lit.pred, set())
                    regex = (Plus if lit.op == "+" else Star)(Label(lit.pred))
                    rel = path_relation(regex, {lit.pred: base}, domain)
                else:
                    rel = path_relation(lit.regex, relations, domain)
                tables.append(_atom_rows(lit, rel))
            comparisons = [lit for lit in rule.body if isinstance(lit, Comparison)]
            h1, h2 = (a.name for a in rule.head.args)
            keep = {h1, h2} | {
                t.name for c in comparisons for t in (c.left, c.right) if isinstance(t, Var)
            }
            names, rows = _join_all(tables, keep)
            for lit in comparisons:
                rows = [r for r in rows if _compare(lit, names, r)]
            i1, i2 = names.index(h1), names.index(h2)
            out.update((r[i1], r[i2]) for r in rows)
        relations[pred] = out
    return relations


def _value(term, names, row):
    return term.value if isinstance(term, Const) else row[names.index(term.name)]


def _compare(cmp: Comparison, names, row) -> bool:
    equal = _value(cmp.left, names, row) == _value(cmp.right, names, row)
    return equal if cmp.op == "=" else not equal
