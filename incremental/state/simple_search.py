"""The search for simple paths where the spanning trees conflict, with a budget of work (RPQ
paper §4.1, Algorithm Extend after Unmark; Mendelzon and Wood's conflicts, Definition 16).

`search_unmarked(x, ...)` gives, for vertices `y` whose result from `x` is unmarked (the walk
of `T_x` to `y` conflicts: state/tree_conflicts.py), the best simple path from `x` to `y`
spelling a word of L(R): the one whose edges' intervals intersect to the latest end (`exp`:
the max over simple paths of the min over their edges, specs/semantics.md §4a and §6), with
its start (the max `ts` of its edges) and its edges, where it beats what is known already.

It is a depth-first search over simple paths (the paper's Extend visiting unmarked nodes more
than once), restricted to the product nodes of `T_x` that lead to an unmarked `y`, pruned when
a branch's interval ends no later than what every unmarked `y` has already (its known simple
result, or what the search found) and stopped when every `y` reaches its upper bound (the
exp of its node in `T_x`). This is the exponential part (the problem is NP-hard): each step
counts against the `budget`, and exhausting it raises `SimplePathBudgetError` naming the
vertex the search entered most often: where the conflicts exploded.
"""

from __future__ import annotations

from collections import Counter

from ...errors import UserError


class SimplePathBudgetError(UserError):
    """The simple-path search of one batch went over its budget (specs/semantics.md §4a: stop
    with a clear error, never hang, never answer wrong)."""


class Budget:
    """Steps of the simple-path search left in the current batch, and where they went."""

    __slots__ = ("left", "limit", "visits", "atom")

    def __init__(self, limit: int, atom: str) -> None:
        self.limit = limit
        self.left = limit
        self.visits: Counter = Counter()
        self.atom = atom

    def renew(self) -> None:
        """A new batch: the whole budget again."""
        self.left = self.limit
        self.visits.clear()

    def spend(self, vertex: str, now: int) -> None:
        self.visits[vertex] += 1
        self.left -= 1
        if self.left < 0:
            worst, count = self.visits.most_common(1).pop()
            raise SimplePathBudgetError(
                f"simple paths of {self.atom}: the search for the batch at time {now} went over "
                f"its budget of {self.limit} steps; conflicts exploded at vertex {worst!r} "
                f"(entered {count} times). Simple-path evaluation is NP-hard in general: raise "
                "the budget (--simple-budget), shrink the window, or drop 'simple'"
            )


class Graph:
    """The window graph as a PATH's automaton reads it: per letter its EdgeIndex, and the
    DFA's moves (`by_letter`), valid entries only (`exp > now`)."""

    __slots__ = ("indexes", "moves", "reverse")

    def __init__(self, dfa, letters, indexes) -> None:
        self.indexes = [(letter, indexes[letter]) for letter in letters]
        self.moves = {letter: dfa.by_letter.get(letter, []) for letter in letters}
        self.reverse: dict[str, dict[int, list[int]]] = {}
        for letter in letters:
            back: dict[int, list[int]] = {}
            for s, q in self.moves[letter]:
                back.setdefault(q, []).append(s)
            self.reverse[letter] = back

    def steps(self, dfa, v: str, q: int, now: int):
        """`(w, r, entry)`: the edges out of `v` whose letter moves `q` to `r`."""
        delta = dfa.delta[q]
        for letter, index in self.indexes:
            r = delta.get(letter)
            if r is None:
                continue
            out = index.successors(v)
            if not out:
                continue
            for w, entry in out.items():
                if entry.exp > now:
                    yield w, r, entry

    def backward(self, starts, now: int, admit=None) -> set:
        """The product nodes from which a node of `starts` is reachable (`starts` included),
        by a backward search through valid edges; `admit(node)` may keep a node out."""
        seen = set(starts)
        stack = list(starts)
        while stack:
            u, s = stack.pop()
            for letter, index in self.indexes:
                back = self.reverse[letter].get(s)
                if not back:
                    continue
                into = index.predecessors(u)
                if not into:
                    continue
                for w, entry in into.items():
                    if entry.exp <= now:
                        continue
                    for p in back:
                        node = (w, p)
                        if node not in seen and (admit is None or admit(node)):
                            seen.add(node)
                            stack.append(node)
        return seen


def search_unmarked(x, dfa, graph, now, budget, open_: dict, reach, known: dict) -> dict:
    """`{y: (exp, ts, entries)}`: the best simple paths to the vertices of `open_` (`{y: upper
    bound}`) that end later than `known[y]` (the simple result known already, if any), through
    the product nodes of `reach` (those of `T_x`) that lead to an open `y`."""
    finals = dfa.finals
    useful = _leading_to(x, dfa, graph, now, open_, reach)
    best: dict = {y: (exp, None, None) for y, exp in known.items() if y in open_}
    on_path = {x}
    edges: list = []
    start = dfa.start
    # frames: (vertex, state, width, latest start, iterator over its steps)
    stack = [(x, start, float("inf"), -float("inf"), iter(graph.steps(dfa, x, start, now)))]
    left = sum(1 for y, bound in open_.items() if best.get(y, (now,))[0] < bound)
    if left == 0:
        return {}
    while stack:
        v, q, width, ts, steps = stack[-1]
        advanced = False
        for w, r, entry in steps:
            if w in on_path or (w, r) not in useful:
                continue
            got = min(width, entry.exp)
            if all(best.get(y, (now,))[0] >= min(got, bound) for y, bound in open_.items()):
                continue  # nothing down this branch can do better for any open y
            budget.spend(w, now)
            got_ts = max(ts, entry.ts)
            edges.append(entry)
            if r in finals and w in open_ and got > best.get(w, (now,))[0]:
                if best.get(w, (now,))[0] < open_[w] <= got:
                    left -= 1
                best[w] = (got, got_ts, tuple(edges))
                if left == 0:
                    break
            on_path.add(w)
            stack.append((w, r, got, got_ts, iter(graph.steps(dfa, w, r, now))))
            advanced = True
            break
        if not advanced:
            stack.pop()
            if stack:
                on_path.discard(v)
                edges.pop()
        if left == 0:
            break
    return {y: got for y, got in best.items() if got[2] is not None}


def _leading_to(x, dfa, graph, now, open_: dict, reach: dict) -> set:
    """The product nodes of `reach` (a container of the nodes reachable from `(x, start)`, and
    the start) from which a final node of an open vertex is reachable."""
    targets = [(y, q) for y in open_ for q in dfa.finals if (y, q) in reach]
    root = (x, dfa.start)
    return graph.backward(targets, now, lambda node: node in reach or node == root)
