"""The simple paths from one root over a window graph, with a budget of work (RPQ paper §4,
RSPQ; Mendelzon and Wood's conflicts, Definition 16).

`search_root(x, ...)` gives, for every vertex `y != x` that a simple path from `x` spelling a
word of L(R) reaches, the best such path: the one whose edges' intervals intersect to the
latest end (`exp`: the max over simple paths of the min over their edges, what the result's
validity is after `now`; specs/semantics.md §4a and §6), with its start (the max `ts` of its
edges) and its edges' witnesses.

It goes in two steps, so that inputs without conflicts cost what arbitrary paths cost:

1. the widest arbitrary paths from `(x, start)` in the product graph (a max-min Dijkstra, as
   S-PATH keeps per node the derivation that expires last): an upper bound per `y`, and a
   witness walk. Where that walk visits no vertex twice, it is the best simple path: done.
2. where it does (a conflict: the walk visits a vertex in two states), a depth-first search
   over the simple paths, restricted to the product nodes that lead to such a `y`, pruned
   when a branch's interval ends no later than what every open `y` already has, and stopped
   when every open `y` reaches its upper bound. This is the exponential part (the problem
   is NP-hard); each step counts against the `budget`, and exhausting it raises
   `SimplePathBudgetError` naming the vertex the search entered most often: where the
   conflicts exploded.
"""

from __future__ import annotations

import heapq
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

    def roots_reaching(self, starts, start_state: int, now: int) -> set:
        """The roots `x` from which the product graph reaches a node of `starts` (`(u, s)`
        pairs): the roots whose results a change at those nodes touches."""
        return {u for u, s in self.backward(starts, now) if s == start_state}

    def sources_of(self, letter: str, u: str):
        """The product nodes `(u, s)` an edge of `letter` leaves."""
        return [(u, s) for s, _q in self.moves[letter]]


def search_root(x: str, dfa, graph: Graph, now: int, budget: Budget) -> dict:
    """`{y: (exp, ts, witnesses)}`: the best simple path from `x` to each `y != x` whose word
    is in L(R), valid after `now` (see the module docstring)."""
    best_exp, parent = _widest(x, dfa, graph, now)
    finals = dfa.finals
    upper: dict = {}  # y -> (exp, final node)
    for (v, q), exp in best_exp.items():
        if q in finals and v != x and exp > upper.get(v, (now, None))[0]:
            upper[v] = (exp, (v, q))
    found: dict = {}
    open_: dict = {}
    for y, (exp, node) in upper.items():
        walk = _walk(node, parent)
        vertices = [x] + [v for v, _q, _e in walk]
        if len(set(vertices)) == len(vertices):
            found[y] = (exp, max(e.ts for _v, _q, e in walk), tuple(e for _v, _q, e in walk))
        else:
            open_[y] = exp
    if open_:
        found.update(_search_open(x, dfa, graph, now, budget, open_, best_exp))
    return found


def _widest(x: str, dfa, graph: Graph, now: int):
    """Max-min Dijkstra over the product graph from `(x, start)`: per node the latest end of
    a walk to it, and the step that gives it."""
    start = (x, dfa.start)
    best = {start: float("inf")}
    parent: dict = {start: None}
    heap = [(-best[start], x, dfa.start)]
    done = set()
    while heap:
        neg, v, q = heapq.heappop(heap)
        if (v, q) in done:
            continue
        done.add((v, q))
        width = -neg
        for w, r, entry in graph.steps(dfa, v, q, now):
            got = min(width, entry.exp)
            if got > best.get((w, r), now):
                best[(w, r)] = got
                parent[(w, r)] = ((v, q), entry)
                heapq.heappush(heap, (-got, w, r))
    del best[start]
    return best, parent


def _walk(node, parent) -> list:
    """`[(v, q, entry), ...]` from the root's child to `node`, along `parent`."""
    out = []
    step = parent[node]
    while step is not None:
        prev, entry = step
        v, q = node
        out.append((v, q, entry))
        node = prev
        step = parent[node]
    out.reverse()
    return out


def _search_open(x, dfa, graph, now, budget, open_: dict, reach: dict) -> dict:
    """The best simple paths to the vertices of `open_` (`{y: upper bound}`): a depth-first
    search over simple paths through the product nodes that lead to an open `y`."""
    finals = dfa.finals
    useful = _leading_to(x, dfa, graph, now, open_, reach)
    best: dict = {}  # y -> (exp, ts, edges)
    on_path = {x}
    edges: list = []
    start = dfa.start
    # frames: (vertex, state, width, latest start, iterator over its steps)
    stack = [(x, start, float("inf"), -float("inf"), iter(graph.steps(dfa, x, start, now)))]
    left = len(open_)
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
                    return best
            on_path.add(w)
            stack.append((w, r, got, got_ts, iter(graph.steps(dfa, w, r, now))))
            advanced = True
            break
        if not advanced:
            stack.pop()
            if stack:
                on_path.discard(v)
                edges.pop()
    return best


def _leading_to(x, dfa, graph, now, open_: dict, reach: dict) -> set:
    """The product nodes reachable from `(x, start)` (the keys of `reach`, and the start) from
    which a final node of an open vertex is reachable."""
    targets = [(y, q) for y in open_ for q in dfa.finals if (y, q) in reach]
    root = (x, dfa.start)
    return graph.backward(targets, now, lambda node: node in reach or node == root)
