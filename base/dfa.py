"""Regular expression -> minimal DFA, the automaton S-PATH walks (thesis Appendix A, line 1
of Algorithm S-PATH: `ConstructDFA(R)`).

Thompson NFA, subset construction, then Hopcroft's partition refinement. Dead states (from
which no final state is reachable) are dropped, so a missing transition means "no match".
Regexes are the algebra's nested tuples (`sga.algebra.Regex`): ("label", l), ("concat", ...),
("alt", ...), ("star", r), ("plus", r), ("opt", r).
"""

from __future__ import annotations

from collections.abc import Iterable

from .components import strongly_connected


class DFA:
    """A minimal, trimmed DFA: states `0..n-1`, `start` is 0.

    - `delta[s]`: dict letter -> next state (absent: no match possible).
    - `finals`: frozenset of accepting states.
    - `by_letter[l]`: list of `(s, q)` with `delta[s][l] == q` (S-PATH's loop over states).
    """

    __slots__ = ("delta", "finals", "start", "by_letter", "letters")

    def __init__(self, delta: list[dict[str, int]], finals: Iterable[int]):
        self.delta = delta
        self.finals = frozenset(finals)
        self.start = 0
        by_letter: dict[str, list[tuple[int, int]]] = {}
        for s, moves in enumerate(delta):
            for letter, q in moves.items():
                by_letter.setdefault(letter, []).append((s, q))
        self.by_letter = by_letter
        self.letters = tuple(sorted(by_letter))

    @property
    def size(self) -> int:
        return len(self.delta)

    @property
    def nullable(self) -> bool:
        return self.start in self.finals

    def reachable_by_nonempty(self, s: int) -> set[int]:
        """The states that some non-empty word leads `s` to."""
        out: set[int] = set()
        stack = list(self.delta[s].values())
        while stack:
            q = stack.pop()
            if q not in out:
                out.add(q)
                stack.extend(self.delta[q].values())
        return out

    def cyclic_letters(self) -> frozenset[str]:
        """The letters on a cycle of the automaton (those under a star or a plus: a path may
        repeat them any number of times): a move `s -l-> q` from which `s` is reached again,
        that is, one inside a strongly connected component (O(states + moves): searching from
        every move took a minute on an automaton of 4,096 states)."""
        component: dict[int, int] = {}
        graph = {s: list(dict.fromkeys(moves.values())) for s, moves in enumerate(self.delta)}
        for i, members in enumerate(strongly_connected(graph)):
            for s in members:
                component[s] = i
        return frozenset(
            letter
            for s, moves in enumerate(self.delta)
            for letter, q in moves.items()
            if component[q] == component[s]
        )

    def accepts(self, word: Iterable[str]) -> bool:
        """Whether the label sequence `word` is in the language."""
        s = self.start
        for letter in word:
            if s is None:
                return False
            s = self.delta[s].get(letter)
        return s is not None and s in self.finals

    def __repr__(self) -> str:
        return f"DFA(delta={self.delta!r}, finals={sorted(self.finals)!r})"


# ---- Thompson NFA ---------------------------------------------------------------------------


class _NFA:
    __slots__ = ("eps", "moves", "count")

    def __init__(self) -> None:
        self.eps: list[list[int]] = []
        self.moves: list[list[tuple[str, int]]] = []
        self.count = 0

    def state(self) -> int:
        self.eps.append([])
        self.moves.append([])
        self.count += 1
        return self.count - 1

    def build(self, regex: tuple) -> tuple[int, int]:
        kind = regex[0]
        if kind == "label":
            a, b = self.state(), self.state()
            self.moves[a].append((regex[1], b))
            return a, b
        if kind == "concat":
            start, end = self.build(regex[1])
            for part in regex[2:]:
                s, e = self.build(part)
                self.eps[end].append(s)
                end = e
            return start, end
        if kind == "alt":
            a, b = self.state(), self.state()
            for option in regex[1:]:
                s, e = self.build(option)
                self.eps[a].append(s)
                self.eps[e].append(b)
            return a, b
        if kind not in ("star", "plus", "opt"):
            raise ValueError(f"unknown regex node {kind!r}")
        s, e = self.build(regex[1])
        a, b = self.state(), self.state()
        self.eps[a].append(s)
        self.eps[e].append(b)
        if kind in ("star", "opt"):
            self.eps[a].append(b)
        if kind in ("star", "plus"):
            self.eps[e].append(s)
        return a, b

    def closure(self, states: Iterable[int]) -> frozenset[int]:
        todo = list(states)
        seen = set(todo)
        while todo:
            q = todo.pop()
            for r in self.eps[q]:
                if r not in seen:
                    seen.add(r)
                    todo.append(r)
        return frozenset(seen)


class AutomatonTooLarge(ValueError):
    """The subset construction made more than `limit` states (a regular expression such as
    `(a|b)*/a/(a|b)/.../(a|b)` with k copies needs 2^k)."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"the automaton has more than {limit} states")
        self.limit = limit


def regex_size(regex: tuple) -> int:
    """The number of nodes of `regex` (labels and operators), without recursion."""
    size, todo = 0, [regex]
    while todo:
        node = todo.pop()
        size += 1
        if node[0] != "label":
            todo.extend(node[1:])
    return size


def _subset(regex: tuple, limit: int | None = None) -> tuple[list[dict[str, int]], set[int]]:
    """Subset construction: a DFA (state 0 the start) without the empty set state; raises
    AutomatonTooLarge past `limit` states."""
    nfa = _NFA()
    start, accept = nfa.build(regex)
    # a subset is kept by its important states only (Aho et al. 3.9.1): those with a letter
    # move, and the accepting one; the others move nowhere on a letter, so subsets that
    # differ in them alone behave alike (after each `li` of `(l0|...|l999)*`, a thousand
    # subsets otherwise, each with a thousand moves)
    important = {q for q in range(nfa.count) if nfa.moves[q]} | {accept}

    def closure(states) -> frozenset[int]:
        return nfa.closure(states) & important

    first = closure([start])
    ids = {first: 0}
    order = [first]
    delta: list[dict[str, int]] = []
    closures: dict[frozenset[int], frozenset[int]] = {}
    i = 0
    while i < len(order):
        if limit is not None and len(order) > limit:
            raise AutomatonTooLarge(limit)
        current = order[i]
        i += 1
        targets: dict[str, set[int]] = {}
        for q in current:
            for letter, r in nfa.moves[q]:
                targets.setdefault(letter, set()).add(r)
        row: dict[str, int] = {}
        for letter in sorted(targets):
            key = frozenset(targets[letter])
            nxt = closures.get(key)
            if nxt is None:  # (once per set of targets)
                nxt = closures[key] = closure(key)
            if nxt not in ids:
                ids[nxt] = len(order)
                order.append(nxt)
            row[letter] = ids[nxt]
        delta.append(row)
    finals = {ids[s] for s in order if accept in s}
    return delta, finals


def _trim(delta: list[dict[str, int]], finals: set[int]) -> tuple[list[dict[str, int]], set[int]]:
    """Drop states that cannot reach a final state (the start stays, possibly alone)."""
    back: dict[int, set[int]] = {}
    for s, row in enumerate(delta):
        for q in row.values():
            back.setdefault(q, set()).add(s)
    live = set(finals)
    todo = list(finals)
    while todo:
        q = todo.pop()
        for s in back.get(q, ()):
            if s not in live:
                live.add(s)
                todo.append(s)
    keep = [s for s in range(len(delta)) if s in live or s == 0]
    new_id = {s: i for i, s in enumerate(keep)}
    out = [{l: new_id[q] for l, q in delta[s].items() if q in live} for s in keep]
    return out, {new_id[s] for s in finals}


def _hopcroft(
    delta: list[dict[str, int]], finals: set[int]
) -> tuple[list[dict[str, int]], set[int]]:
    """Hopcroft's partition refinement on a (partial) DFA; missing moves go to an implicit
    dead state, which is kept as its own block and removed again at the end.

    The dead state's block is never a splitter: the work list starts with the finals alone
    (either initial block will do), and of a split block's halves the one without the dead
    state is added (either half will do when the block is not pending; the smaller one
    otherwise, as usual). So a splitter's predecessors are those of its real moves, and a
    round costs the moves into the splitter, not every letter times every state: a
    thousand-letter `[l0/l1/.../l999]` is minimised in milliseconds (its completed automaton
    has a million moves)."""
    n = len(delta)
    dead = n
    inv: list[list[tuple[str, int]]] = [[] for _ in range(n)]  # q -> its (letter, s) moves in
    for s, row in enumerate(delta):
        for letter, q in row.items():
            inv[q].append((letter, s))
    nonfinal = set(range(n + 1)) - finals
    partition: list[set[int]] = [b for b in (set(finals), nonfinal) if b]
    block_of = {s: i for i, b in enumerate(partition) for s in b}
    work = [block_of[s] for s in finals][:1]  # the finals' block (none: nothing to split)
    pending = set(work)
    while work:
        a = work.pop()
        pending.discard(a)
        by_letter: dict[str, set[int]] = {}
        for q in partition[a]:
            for letter, s in inv[q]:
                by_letter.setdefault(letter, set()).add(s)
        for letter in sorted(by_letter):
            touched: dict[int, set[int]] = {}
            for s in by_letter[letter]:
                touched.setdefault(block_of[s], set()).add(s)
            for b, inside in touched.items():
                block = partition[b]
                if len(inside) == len(block):
                    continue
                outside = block - inside
                partition[b] = inside
                partition.append(outside)
                new = len(partition) - 1
                for s in outside:
                    block_of[s] = new
                if b in pending:
                    add = new
                elif dead in inside:
                    add = new
                elif dead in outside:
                    add = b
                else:
                    add = b if len(inside) <= len(outside) else new
                work.append(add)
                pending.add(add)
    dead_block = block_of[dead]
    # renumber blocks: the start's block first, then in order of first reach (BFS)
    start_block = block_of[0]
    order = [start_block]
    ids = {start_block: 0}
    rows: list[dict[str, int]] = []
    i = 0
    while i < len(order):
        b = order[i]
        i += 1
        rep = min(partition[b] - {dead}) if partition[b] - {dead} else None
        row: dict[str, int] = {}
        if rep is not None:
            for l in sorted(delta[rep]):
                qb = block_of[delta[rep][l]]
                if qb == dead_block:
                    continue
                if qb not in ids:
                    ids[qb] = len(order)
                    order.append(qb)
                row[l] = ids[qb]
        rows.append(row)
    new_finals = {ids[b] for b in order if partition[b] & finals}
    return rows, new_finals


def compile_regex(regex: tuple, limit: int | None = None) -> DFA:
    """The minimal trimmed DFA of `regex`; AutomatonTooLarge when the subset construction
    makes more than `limit` states (the front end bounds every program's automata so,
    datalog/checks/automaton_size.py; the planner and the engine then need none).

    >>> d = compile_regex(("plus", ("label", "a")))
    >>> d.size, d.accepts(["a", "a"]), d.accepts([])
    (2, True, False)
    """
    delta, finals = _subset(regex, limit)
    delta, finals = _trim(delta, finals)
    delta, finals = _hopcroft(delta, finals)
    return DFA(delta, finals)


def closure_automaton(regex: tuple) -> DFA:
    """The smaller of the minimal DFAs of `regex` and of `regex?`: a closure PATH's product
    (operators/path_closure.py) reaches nodes by one edge or more, so only the non-empty words
    matter, and those are the same (the ε-pairs come from the regex itself). `a+` takes one
    state (`a*`'s) instead of two, and with it half the product nodes and edges. Its start
    state is then final although ε is not in the language: a start node reaching itself is a
    cycle, a result (state/level_closure.py `cycles`).

    >>> closure_automaton(("plus", ("label", "a"))).size
    1
    >>> closure_automaton(("concat", ("label", "a"), ("label", "b"))).size
    3
    """
    own = compile_regex(regex)
    if own.nullable:
        return own
    either = compile_regex(("opt", regex))
    return either if either.size < own.size else own
