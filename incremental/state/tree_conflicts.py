"""Conflict detection on the walks of S-PATH's spanning trees (RPQ paper §4.1, Definitions
15-16; Mendelzon and Wood's conflicts).

A node `(y, f)` of `T_x` (state/delta_path.py) holds the walk from `x` that expires last; its
exp bounds every simple path from `x` to `y` reaching `f` from above. `simple_walk` turns that
walk into a simple path by cutting it, at each repeated vertex, from its first visit to its last
one (suffix_languages.py `shortcut`). Where the walk visits each vertex once, or where each cut
is between states `q` (earlier) and `t` (later) with `[q] ⊇ [t]` (no conflict, Definition 16),
the cut path spells a word of L(R) and is valid at least as long as the walk: the simple result
is then exactly the tree's, at arbitrary-path cost (the paper's marked nodes, §4.1). Where a cut
leaves L(R) (a conflict), the result is *unmarked* and its caller searches it
(state/simple_search.py).

The check does not trust the tree: it re-reads each step's edge from the window, re-runs the
DFA over the cut word and recomputes the interval, so a walk that is not simple and accepted,
or that no longer reaches the node's exp, only costs a search, never a wrong answer.
"""

from __future__ import annotations

from ...base.suffix_languages import shortcut


def simple_walk(delta_path, letters_of: dict, root: str, key: tuple, now: int) -> tuple | None:
    """`(exp, ts, entries)` of a simple path from `root` to `key[0]` spelling a word of L(R),
    valid on `[ts, exp)` with `exp` at least the exp of `key` in `T_root`, made from the tree's
    walk to `key` by cuts; None where the walk conflicts. `letters_of[(s, q)]` lists the letters
    that move `s` to `q`."""
    tree = delta_path.trees.get(root)
    if tree is None:
        return None
    node = tree.get(key)
    if node is None or node[1] <= now:
        return None
    bound = node[1]
    window = delta_path.window
    vertices = []
    steps = []  # (letter, entry), from the root's child to key
    limit = len(tree)
    while node[2] is not None:
        parent = node[2]
        if len(steps) >= limit:
            return None  # a loop of parent pointers: not a walk from the root
        u, s = parent
        v, q = key
        got = None
        for letter in letters_of.get((s, q), ()):
            entry = window[letter].get(u, v)
            if entry is not None and entry.exp > now and (got is None or entry.exp > got[1].exp):
                got = (letter, entry)
        if got is None:
            return None
        steps.append(got)
        vertices.append(v)
        key = parent
        node = tree.get(key)
        if node is None:
            return None
    if key[0] != root or not steps:
        return None
    vertices.append(root)
    vertices.reverse()
    steps.reverse()
    if len(set(vertices)) != len(vertices):
        steps = shortcut(vertices, steps)
        if not _accepts(delta_path, [letter for letter, _e in steps]):
            return None  # a conflict (Definition 16): the cut walk leaves L(R)
    exp = min(e.exp for _l, e in steps)
    if exp < bound:
        return None
    return exp, max(e.ts for _l, e in steps), tuple(e for _l, e in steps)


def _accepts(delta_path, word: list) -> bool:
    """Whether the DFA of `delta_path` takes its start state to a final one over `word`."""
    q = delta_path.start
    delta = delta_path.delta
    for letter in word:
        q = delta[q].get(letter)
        if q is None:
            return False
    return q in delta_path.finals


def moving_letters(dfa) -> dict:
    """`{(s, q): [letters]}`: the letters that move the DFA from `s` to `q`."""
    out: dict = {}
    for s, moves in enumerate(dfa.delta):
        for letter, q in moves.items():
            out.setdefault((s, q), []).append(letter)
    return out
