"""The oracle's own automaton for a path atom `[R]`, built from the datalog regex AST.

A Thompson construction, then ε-moves folded away: the states kept are the start and the
target of every labelled move (one per label occurrence, as in a Glushkov automaton); a kept
state moves on `label` to `q'` when a labelled Thompson move `label -> q'` leaves its
ε-closure, and accepts when its ε-closure holds the accepting Thompson state. The path relation is the product of the snapshot graph with
this automaton (arbitrary paths, specs/semantics.md §4). Kept apart from the engine's DFA code on
purpose (independence rule).

A label with property tests (`flight{delay < 15}`, specs/semantics.md §4c) is a letter of its
own, named by its printed form after a NUL (no predicate name starts so): `tested` maps such a
letter back to its label, whose passing edges the letter reads.
"""

from __future__ import annotations

from sgq.datalog.ast import Alt, Concat, Label, Optional, Plus, Regex, Star
from sgq.datalog.printer import name_text, prop_tests_text


def letter(label: Label) -> str:
    """What a label of a regex reads: its name, or a letter of its own when it has tests."""
    if not label.props:
        return label.name
    return "\x00" + name_text(label.name) + prop_tests_text(label.props)


class Automaton:
    """An ε-free NFA: `initial` states, `moves` `(q, label, q2)`, `accepting` states and
    whether ε is in the language."""

    __slots__ = ("initial", "moves", "accepting", "nullable", "labels", "tested")

    def __init__(self, initial, moves, accepting, nullable, tested=None):
        self.initial: frozenset[int] = initial
        self.moves: tuple[tuple[int, str, int], ...] = moves
        self.accepting: frozenset[int] = accepting
        self.nullable: bool = nullable
        self.labels: tuple[str, ...] = tuple(sorted({m[1] for m in moves}))
        self.tested: dict[str, Label] = dict(tested or {})


def build_automaton(regex: Regex) -> Automaton:
    eps: dict[int, list[int]] = {}
    labelled: list[tuple[int, str, int]] = []
    tested: dict[str, Label] = {}
    counter = [0]

    def new() -> int:
        counter[0] += 1
        return counter[0] - 1

    def frag(node: Regex) -> tuple[int, int]:
        if isinstance(node, Label):
            a, b = new(), new()
            labelled.append((a, letter(node), b))
            if node.props:
                tested[letter(node)] = node
            return a, b
        if isinstance(node, Concat):
            start, end = frag(node.parts[0])
            for part in node.parts[1:]:
                s, e = frag(part)
                eps.setdefault(end, []).append(s)
                end = e
            return start, end
        if isinstance(node, Alt):
            a, b = new(), new()
            for option in node.options:
                s, e = frag(option)
                eps.setdefault(a, []).append(s)
                eps.setdefault(e, []).append(b)
            return a, b
        if isinstance(node, (Star, Plus, Optional)):
            s, e = frag(node.inner)
            a, b = new(), new()
            eps.setdefault(a, []).append(s)
            eps.setdefault(e, []).append(b)
            if not isinstance(node, Plus):
                eps[a].append(b)
            if not isinstance(node, Optional):
                eps[e].append(s)
            return a, b
        raise TypeError(f"not a regex node: {node!r}")

    start, accept = frag(regex)

    def closure(q: int) -> frozenset[int]:
        seen, todo = {q}, [q]
        while todo:
            for r in eps.get(todo.pop(), ()):
                if r not in seen:
                    seen.add(r)
                    todo.append(r)
        return frozenset(seen)

    # ε-free, one state per labelled Thompson move target plus the start (Glushkov size):
    # from state s, every labelled move leaving the ε-closure of s
    states = [start] + sorted({q2 for _q, _l, q2 in labelled})
    index = {q: i for i, q in enumerate(states)}
    out_moves: dict[int, list[tuple[str, int]]] = {}
    for q, lbl, q2 in labelled:
        out_moves.setdefault(q, []).append((lbl, q2))
    moves = set()
    accepting = set()
    for s_ in states:
        reach = closure(s_)
        if accept in reach:
            accepting.add(index[s_])
        for q in reach:
            for lbl, q2 in out_moves.get(q, ()):
                moves.add((index[s_], lbl, index[q2]))
    return Automaton(
        frozenset({0}), tuple(sorted(moves)), frozenset(accepting), 0 in accepting, tested
    )
