"""The re-evaluation baseline: the one-time query recomputed from scratch on each snapshot.

This is what an engine without incremental maintenance does once per slide (thesis 5.3, the
"re-execution strategy"): take the window's snapshot graph and evaluate the program's
one-time meaning (SEMANTICS.md §4) with hash joins, BFS closures and an automaton product for
path atoms. It is a fair baseline, not a straw man: every relation is built with dict/set
indexes, and a closure or path is only expanded from the sources a constant allows.

It starts from the checked program (datalog AST), like the oracle, and uses the oracle's
automaton; it shares nothing with the engine.
"""

from __future__ import annotations

from collections import defaultdict

from sgq.datalog.ast import Anon, Atom, Closure, Comparison, Const, PathAtom, Plus, Label, Star, Var
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


def _term_key(term, index: int) -> str | None:
    """The binding name of a term: variable name, None for `_`; constants handled apart."""
    if isinstance(term, Var):
        return term.name
    return None


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
            table: tuple[tuple[str, ...], list] | None = None
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
                rows = _atom_rows(lit, rel)
                table = rows if table is None else _join(table, rows)
                if not table[1]:
                    break
            names, rows = table if table is not None else ((), [])
            for lit in rule.body:
                if isinstance(lit, Comparison):
                    rows = [r for r in rows if _compare(lit, names, r)]
            h1, h2 = (a.name for a in rule.head.args)
            i1, i2 = names.index(h1), names.index(h2)
            out.update((r[i1], r[i2]) for r in rows)
        relations[pred] = out
    return relations


def _value(term, names, row):
    return term.value if isinstance(term, Const) else row[names.index(term.name)]


def _compare(cmp: Comparison, names, row) -> bool:
    equal = _value(cmp.left, names, row) == _value(cmp.right, names, row)
    return equal if cmp.op == "=" else not equal
