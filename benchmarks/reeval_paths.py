"""The re-evaluation baseline's path atoms: the pairs `[R](x, y)`, `p+(x, y)` or `p*(x, y)`
joins on one snapshot, searched over the product of the snapshot graph with the minimal DFA
of `R` (arbitrary paths, specs/semantics.md §4; the S-PATH paper's product graph, searched
from scratch instead of kept).

A search starts at one root: forward from a source (the DFA's start state, moves along
out-edges) or backward from a target (the DFA's final states, moves reversed along
in-edges). A root reached again by a non-empty path counts; the empty word adds `(v, v)`
only for `v` in the active domain. The DFA is `base.dfa.closure_automaton`'s (`a+` walks
`a*`'s one state), which is sound here because the empty word's pairs come from the regex,
never from the automaton. Where several labels move between the same two states, their
adjacencies are merged once per snapshot: one lookup per product node instead of one per
label.

Cost: a root's search is O(the product nodes and edges reachable from it); `SearchMemo`
keeps each root's result, so a join that reaches one source from many rows searches once.
Every pair of a one-state automaton's relation comes from one pass over the strongly
connected components instead of a search per source (`closure_relation`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from sgq.base.components import strongly_connected
from sgq.base.dfa import DFA, closure_automaton
from sgq.datalog.ast import Closure, Label, PathAtom, Plus, Regex, Star, regex_nullable
from sgq.datalog.checks.automaton_size import regex_tuple

#: `SearchMemo.prefetch` closes the whole graph when the roots are at least this fraction of
#: its sources (one over it)
PREFETCH_SHARE = 4

#: a relation on one snapshot: source -> its targets (a dict or a set of them)
Adjacency = Mapping[str, object]

#: a DFA state's moves: (the adjacency of the labels it moves on, the next state)
Moves = list[list[tuple[Adjacency, int]]]


def literal_regex(literal: Closure | PathAtom) -> Regex:
    """The regex of a path literal: `p+` is `[p+]`, `p*` is `[p*]`."""
    if isinstance(literal, PathAtom):
        return literal.regex
    return (Plus if literal.op == "+" else Star)(Label(literal.pred))


def automaton(regex: Regex, cache: dict) -> DFA:
    """The closure DFA of `regex`, built once per regex (`cache` holds them)."""
    dfa = cache.get(regex)
    if dfa is None:
        dfa = cache[regex] = closure_automaton(regex_tuple(regex))
    return dfa


def _merged(adjacencies: list[Adjacency]) -> Adjacency:
    if len(adjacencies) == 1:
        return adjacencies[0]
    out: dict[str, set] = {}
    for adjacency in adjacencies:
        for v, targets in adjacency.items():
            have = out.get(v)
            if have is None:
                out[v] = set(targets)
            else:
                have.update(targets)
    return out


def forward_moves(dfa: DFA, adjacency: Callable[[str], Adjacency]) -> Moves:
    """Each state's moves along out-edges; `adjacency(label)` gives a label's source ->
    targets."""
    moves: Moves = []
    for state in dfa.delta:
        by_next: dict[int, list[Adjacency]] = {}
        for letter, q in state.items():
            by_next.setdefault(q, []).append(adjacency(letter))
        moves.append([(_merged(adjs), q) for q, adjs in by_next.items()])
    return moves


def backward_moves(dfa: DFA, reverse: Callable[[str], Adjacency]) -> Moves:
    """The reversed automaton's moves along in-edges; `reverse(label)` gives a label's
    target -> sources."""
    by_state: list[dict[int, list[Adjacency]]] = [{} for _ in dfa.delta]
    for s, state in enumerate(dfa.delta):
        for letter, q in state.items():
            by_state[q].setdefault(s, []).append(reverse(letter))
    return [[(_merged(adjs), s) for s, adjs in moves.items()] for moves in by_state]


def search(root: str, starts: tuple[int, ...], moves: Moves, finals: tuple[int, ...]) -> set:
    """The vertices a non-empty path from `root` reaches in a final state (a fresh set)."""
    if len(moves) == 1:  # one state, start and final: a plain closure of one adjacency
        if not moves[0]:
            return set()
        ((adjacency, _),) = moves[0]
        seen: set = set()
        add = seen.add
        stack = [root]
        push, pop = stack.append, stack.pop
        get = adjacency.get
        while stack:
            for w in get(pop(), ()):
                if w not in seen:
                    add(w)
                    push(w)
        return seen
    seen_in = [set() for _ in moves]
    stack2 = [(root, q) for q in starts]
    while stack2:
        v, q = stack2.pop()
        for adjacency, q2 in moves[q]:
            targets = adjacency.get(v)
            if targets:
                seen2 = seen_in[q2]
                for w in targets:
                    if w not in seen2:
                        seen2.add(w)
                        stack2.append((w, q2))
    if len(finals) == 1:
        return seen_in[finals[0]]
    return set().union(*(seen_in[q] for q in finals))


class SearchMemo:
    """One path literal's searches on one snapshot, in one direction, each root searched
    once; read like an adjacency (`get(root)`: the vertices it reaches)."""

    __slots__ = ("_starts", "_moves", "_finals", "_nullable", "_domain", "_memo", "_all")

    def __init__(self, dfa: DFA, moves: Moves, forward: bool, nullable: bool, domain) -> None:
        finals = tuple(sorted(dfa.finals))
        self._starts = (dfa.start,) if forward else finals
        self._finals = finals if forward else (dfa.start,)
        self._moves = moves
        self._nullable = nullable
        self._domain = domain  # a function giving the active domain (built on first use)
        self._memo: dict[str, set] = {}
        self._all = False  # whether `_memo` holds every root's result

    def prefetch(self, roots) -> None:
        """Every root's result at once by `closure_relation`, when the automaton has one
        state and `roots` are a good share of the graph's sources (each root's own search
        would walk the same components again)."""
        if len(self._moves) != 1 or self._all:
            return
        adjacency = self._moves[0][0][0] if self._moves[0] else {}
        if len(roots) * PREFETCH_SHARE < len(adjacency):
            return
        domain = self._domain() if self._nullable else set()
        self._memo = closure_relation(adjacency, self._nullable, domain)
        self._all = True

    def get(self, root: str, default=None):
        found = self._memo.get(root)
        if found is None:
            if self._all:
                return default
            found = search(root, self._starts, self._moves, self._finals)
            if self._nullable and root in self._domain():
                found.add(root)
            self._memo[root] = found
        return found if found else default

    def __contains__(self, root: str) -> bool:
        return bool(self.get(root))


def _with_empty_word(out: dict[str, set], nullable: bool, domain: set) -> dict[str, set]:
    """`out` with `(v, v)` for every `v` of `domain` it lacks, when ε is in the language."""
    if nullable:
        for v in domain:
            if v not in out:
                out[v] = {v}
    return out


def closure_relation(adjacency: Adjacency, nullable: bool, domain: set) -> dict[str, set]:
    """The pairs of a one-state automaton's relation (`p+`, `p*`, `[(a|b)*]`): the transitive
    closure of `adjacency` by its strongly connected components, sinks first (Purdom's
    algorithm): a component reaches itself when it is a cycle, and what its successors
    reach. Vertices of one cyclic component share one set of targets (never changed
    afterwards). O(vertices + edges + the size of each component's set)."""
    nodes: dict = dict(adjacency)
    for targets in adjacency.values():
        for w in targets:  # type: ignore[attr-defined]
            if w not in nodes:
                nodes[w] = ()
    below: dict[str, set] = {}  # vertex -> what its component reaches, itself included
    out: dict[str, set] = {}
    for comp in strongly_connected(nodes):
        v = comp[0]
        members = set(comp)
        cyclic = len(comp) > 1 or v in nodes[v]
        parts: list[set] = []
        ids: set[int] = set()
        for u in comp:
            for w in nodes[u]:
                if w not in members:
                    part = below[w]
                    if id(part) not in ids:
                        ids.add(id(part))
                        parts.append(part)
        if cyclic:
            reach = members.union(*parts)
            for u in comp:
                below[u] = out[u] = reach
            continue
        strict = set().union(*parts)
        below[v] = reach = strict | members
        if nullable and v in domain:
            out[v] = reach
        elif strict:
            out[v] = strict
    return _with_empty_word(out, nullable, domain)


def full_relation(dfa: DFA, moves: Moves, nullable: bool, domain: set) -> dict[str, set]:
    """Every pair of the path relation: a forward search from every vertex with a move out
    of the start state, and `(v, v)` for `v` in `domain` when the regex is nullable."""
    if len(moves) == 1:
        return closure_relation(moves[0][0][0] if moves[0] else {}, nullable, domain)
    starts, finals = (dfa.start,), tuple(sorted(dfa.finals))
    sources: set = set()
    for adjacency, _q in moves[dfa.start]:
        sources.update(adjacency)
    out: dict[str, set] = {}
    for root in sources:
        found = search(root, starts, moves, finals)
        if nullable and root in domain:
            found.add(root)
        if found:
            out[root] = found
    return _with_empty_word(out, nullable, domain)


def is_nullable(literal: Closure | PathAtom) -> bool:
    """Whether ε is in the literal's language (then `(v, v)` for every `v` of the domain)."""
    return regex_nullable(literal_regex(literal))
