"""Suffix languages of a DFA's states and the conflict-freedom they imply (RPQ paper §4.1,
Definitions 14-16; Mendelzon and Wood's conflicts).

The suffix language `[s]` of a state is the set of words that take the automaton from `s` to a
final state. A walk (vertices may repeat) that spells a word of L(R) can be cut between two
visits of one vertex `v`, at states `q` (the earlier) and `t` (the later), whenever
`[q] ⊇ [t]`: the rest of the word, in `[t]`, is then in `[q]` as well. `conflict_free` holds
when every such cut is allowed on every graph, so that the simple-path results of `[R]` are
its arbitrary-path results, `(x, x)` aside (specs/semantics.md §4a):

- for states `q` reachable from the start by a non-empty word and `t` reachable from `q` by a
  non-empty word, `[q] ⊇ [t]` (Definition 15, the containment property);
- for the start state, which only the root `x` holds: `[t] \\ {ε} ⊆ [start]` for every `t`
  reachable by a non-empty word (a walk that comes back to `x` and goes on ends elsewhere, so
  its rest is never ε).

`a*`, `(a|b)*`, `a+`, `a?/b*`, `a*/b*` are conflict-free; `a/b*` is not (`x -a-> v -b-> x
-b-> y` has no simple path spelling a word of it from `x` to `y`). `shortcut` makes a walk
simple by such cuts, which keeps it in L(R) for a conflict-free automaton.
"""

from __future__ import annotations

from .dfa import DFA


def contains(dfa: DFA, q: int | None, t: int) -> bool:
    """Whether `[q] ⊇ [t]` (`q` None: the dead state, whose suffix language is empty): no
    word leads `t` to a final state while it leads `q` elsewhere (product reachability)."""
    seen = {(t, q)}
    stack = [(t, q)]
    delta, finals = dfa.delta, dfa.finals
    while stack:
        a, b = stack.pop()
        if a in finals and (b is None or b not in finals):
            return False
        for letter, a2 in delta[a].items():
            b2 = None if b is None else delta[b].get(letter)
            if (a2, b2) not in seen:
                seen.add((a2, b2))
                stack.append((a2, b2))
    return True


def _widening(dfa: DFA, q: int) -> bool:
    """Whether `[q] ⊇ [q2]` for every move `q -> q2`. Containment is transitive, so every
    state a state `q` reaches by a non-empty word has its suffix language inside `[q]` exactly
    when each move on the way keeps it so: the containment property over a set closed under
    moves needs one test per move, not one per pair of states (a minute, otherwise, for the
    80 states of `l0*/l1*/.../l79*`)."""
    return all(contains(dfa, q, q2) for q2 in set(dfa.delta[q].values()))


def conflict_free(dfa: DFA) -> bool:
    """Whether no graph can make `dfa` conflict (the module docstring's two conditions)."""
    start = dfa.start
    inner = dfa.reachable_by_nonempty(start)
    if not all(_widening(dfa, q) for q in inner):
        return False
    for t in inner:
        for letter, t2 in dfa.delta[t].items():
            if not contains(dfa, dfa.delta[start].get(letter), t2):
                return False
    return True


def conflict_free_states(dfa: DFA) -> set[int]:
    """The states `r` from which no walk can conflict: for `q` equal to `r` or reachable from
    it and `t` reachable from `q` by a non-empty word, `[q] ⊇ [t]` (Definition 15 on the
    automaton started at `r`). A walk from `(w, r)` that visits no vertex of a given set can
    be cut to a simple path that spells a word of `[r]` and avoids that set; so past such a
    state the best simple continuation is the widest walk (state/simple_search.py)."""
    n = len(dfa.delta)
    back: list[list[int]] = [[] for _ in range(n)]
    for q, moves in enumerate(dfa.delta):
        for q2 in set(moves.values()):
            back[q2].append(q)
    # `r` qualifies when no state it reaches (itself included) has a narrowing move
    # (`_widening`): every state from which a narrowing one is reached does not
    bad = [q for q in range(n) if not _widening(dfa, q)]
    reaching = set(bad)
    while bad:
        q = bad.pop()
        for p in back[q]:
            if p not in reaching:
                reaching.add(p)
                bad.append(p)
    return set(range(n)) - reaching


def shortcut(vertices: list, edges: list) -> list:
    """The edges of a simple path made from the walk `vertices[0] -edges[0]-> vertices[1] ...`
    by cutting, at each vertex kept, to its last visit (a conflict-free automaton still accepts
    the result: the cut argument of the module docstring, applied left to right)."""
    last = {v: i for i, v in enumerate(vertices)}
    out = []
    i = last[vertices[0]]
    while i < len(edges):
        out.append(edges[i])
        i = last[vertices[i + 1]]
    return out
