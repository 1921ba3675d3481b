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

import heapq
from collections import Counter
from functools import partial

from ...base.errors import UserError
from ...base.suffix_languages import shortcut


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
        """One step of the search, entering `vertex`."""
        self.visits[vertex] += 1
        self.charge(1, now)

    def charge(self, steps: int, now: int) -> None:
        """`steps` steps of work; over the budget: the error, naming the most entered vertex."""
        self.left -= steps
        if self.left < 0:
            worst, count = (self.visits.most_common(1) or [("?", 0)]).pop()
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


def search_unmarked(x, dfa, graph, now, budget, open_: dict, reach, known: dict, free) -> dict:
    """`{y: (exp, ts, entries)}`: the best simple paths to the vertices of `open_` (`{y: upper
    bound}`) that end later than `known[y]` (the simple result known already, if any), through
    the product nodes of `reach` (those of `T_x`) that lead to an open `y`. Past a state of
    `free` (suffix_languages.py `conflict_free_states`) no walk conflicts, so the search
    enumerates simple prefixes only up to such states: the steps of a prefix into them are
    completed together by the widest walks that avoid the prefix (cut to simple paths)."""
    finals = dfa.finals
    useful = _leading_to(x, dfa, graph, now, open_, reach)
    best: dict = {y: (exp, None, None) for y, exp in known.items() if y in open_}
    left = [sum(1 for y, bound in open_.items() if best.get(y, (now,))[0] < bound)]
    if left[0] == 0:
        return {}

    def offer(y, exp, ts, path) -> None:
        had = best.get(y, (now,))[0]
        if exp > had:
            if had < open_[y] <= exp:
                left[0] -= 1
            best[y] = (exp, ts, path)

    on_path = {x}
    edges: list = []
    frame = partial(_frame, graph, dfa, now, useful, free, on_path, open_, budget, edges, offer)
    stack = [frame(x, dfa.start, float("inf"), -float("inf"))]
    while stack and left[0]:
        v, q, width, ts, steps = stack[-1]
        advanced = False
        while steps:
            w, r, entry = steps.pop()
            if w in on_path:
                continue
            got = min(width, entry.exp)
            wanted = [y for y, bound in open_.items() if best.get(y, (now,))[0] < min(got, bound)]
            if not wanted:  # nothing down this branch can do better for any open y,
                steps.clear()  # nor down the rest, which are no wider
                continue
            budget.spend(w, now)
            on_path.add(w)
            if not _reaches(graph, dfa, w, r, got, now, useful, on_path, wanted, best, budget):
                on_path.discard(w)
                continue
            got_ts = max(ts, entry.ts)
            edges.append(entry)
            if r in finals and w in open_:
                offer(w, got, got_ts, tuple(edges))
            stack.append(frame(w, r, got, got_ts))
            advanced = True
            break
        if not advanced:
            stack.pop()
            if stack:
                on_path.discard(v)
                edges.pop()
    return {y: got for y, got in best.items() if got[2] is not None}


def _frame(graph, dfa, now, useful, free, on_path, open_, budget, edges, offer, v, q, width, ts):
    """The depth-first search's frame of the prefix `edges` ending at `(v, q)` (its interval
    `[ts, width)`): its steps into free states completed at once by the widest tails (each
    `offer`ed), the others (widest last) left to the search."""
    steps = _steps(graph, dfa, v, q, now, useful)
    sources = [step for step in steps if step[1] in free and step[0] not in on_path]
    if sources:
        for y, got in _widest_tails(
            graph, dfa, sources, width, ts, now, useful, on_path, open_, budget
        ).items():
            exp, t_ts, tail = got
            offer(y, exp, t_ts, tuple(edges) + tail)
        steps = [step for step in steps if step[1] not in free]
    return (v, q, width, ts, steps)


def _steps(graph, dfa, v, q, now, useful) -> list:
    """The steps out of `(v, q)` into `useful` nodes, widest last (popped first)."""
    out = [step for step in graph.steps(dfa, v, q, now) if (step[0], step[1]) in useful]
    out.sort(key=lambda step: step[2].exp)
    return out


def _widest_tails(graph, dfa, sources, width, ts, now, useful, on_path, open_, budget) -> dict:
    """`{y: (exp, ts, entries)}`: per open `y`, the best simple path that starts with one of
    the `sources` (steps `(w, r, entry)` out of a prefix of width `width` and start `ts` into
    conflict-free states) and avoids the prefix (`on_path`): the widest walk (a max-min
    Dijkstra over the product graph from all sources at once, each settled node counted
    against the budget), cut to a simple path at repeated vertices (suffix_languages.py
    `shortcut`, allowed past a conflict-free state)."""
    finals = dfa.finals
    best: dict = {}
    parent: dict = {}
    heap: list = []
    for w, r, entry in sources:
        got = min(width, entry.exp)
        if got > best.get((w, r), now):
            best[(w, r)] = got
            parent[(w, r)] = (None, entry)
            heap.append((-got, w, r))
    heapq.heapify(heap)
    done = set()
    out: dict = {}
    while heap:
        neg, v, q = heapq.heappop(heap)
        if (v, q) in done:
            continue
        done.add((v, q))
        if q in finals and v in open_ and v not in out:
            out[v] = (v, q)
        for u, s, entry in graph.steps(dfa, v, q, now):
            node = (u, s)
            if u in on_path or node not in useful:
                continue
            got = min(-neg, entry.exp)
            if got > best.get(node, now):
                best[node] = got
                parent[node] = ((v, q), entry)
                heapq.heappush(heap, (-got, u, s))
    budget.charge(len(done), now)
    tails = {}
    for y, node in out.items():
        vertices, steps = [], []
        while node is not None:
            prev, entry = parent[node]
            vertices.append(node[0])
            steps.append(entry)
            node = prev
        steps.reverse()
        vertices.reverse()
        # vertices[i] is where steps[i] ends; the walk starts at the prefix's end, off the walk
        steps = shortcut([None, *vertices], steps)
        exp = min(width, min(e.exp for e in steps))
        tails[y] = (exp, max(ts, max(e.ts for e in steps)), tuple(steps))
    return tails


def _reaches(graph, dfa, w, r, width, now, useful, on_path, wanted, best, budget) -> bool:
    """Whether some vertex of `wanted` can still be reached from `(w, r)` by a path through
    `useful` nodes off `on_path`, over edges valid past what that vertex has already (a
    breadth-first search over the product graph, each node counted against the budget): a
    branch that cannot is cut before its simple paths are enumerated."""
    floor = min(best.get(y, (now,))[0] for y in wanted)
    targets = set(wanted)
    finals = dfa.finals
    seen = {(w, r)}
    todo = [(w, r)]
    while todo:
        v, q = todo.pop()
        if q in finals and v in targets and width > best.get(v, (now,))[0]:
            budget.charge(len(seen), now)
            return True
        for u, s, entry in graph.steps(dfa, v, q, now):
            node = (u, s)
            if entry.exp > floor and node in useful and u not in on_path and node not in seen:
                seen.add(node)
                todo.append(node)
    budget.charge(len(seen), now)
    return False


def _leading_to(x, dfa, graph, now, open_: dict, reach: dict) -> set:
    """The product nodes of `reach` (a container of the nodes reachable from `(x, start)`, and
    the start) from which a final node of an open vertex is reachable."""
    targets = [(y, q) for y in open_ for q in dfa.finals if (y, q) in reach]
    root = (x, dfa.start)
    # a simple path visits x only at its start
    return graph.backward(
        targets, now, lambda node: node == root or (node[0] != x and node in reach)
    )
