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


def conflict_free(dfa: DFA) -> bool:
    """Whether no graph can make `dfa` conflict (the module docstring's two conditions)."""
    start = dfa.start
    inner = dfa.reachable_by_nonempty(start)
    for q in inner:
        if not all(contains(dfa, q, t) for t in dfa.reachable_by_nonempty(q)):
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
    out = set()
    for r in range(len(dfa.delta)):
        states = {r} | dfa.reachable_by_nonempty(r)
        if all(contains(dfa, q, t) for q in states for t in dfa.reachable_by_nonempty(q)):
            out.add(r)
    return out


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
