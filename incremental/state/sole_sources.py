"""Sole-edge sources of a closure's product graph (state/window_closure.py,
state/level_closure.py).

A start node with no edge in and one edge out, `x -> b` (a post's `hasCreator` edge on the
way to `knows*`: most start nodes on the snb stream), reaches exactly `{b} ∪ reach(b)`. A
closure keeps it as that alias instead of a row: no bitset of its own, among no node's
ancestors, so an edge no longer walks every such source above it; what `b` gains or loses,
its followers gain or lose with it. This is the bookkeeping both closures share: who is an
alias of whom, until when, and the followers of each successor.
"""

from __future__ import annotations


class SoleSources:
    """`succ[x] = b` for each sole-edge source x, `exp[x]` the largest exp of its edge's
    copies (x is in the graph of every level up to it), `followers[b]` the sources with
    successor b in creation order (a dict: rows come out in the same order after a
    restore). The closures read the three dicts directly in their hot loops."""

    __slots__ = ("succ", "exp", "followers")

    def __init__(self) -> None:
        self.succ: dict[int, int] = {}
        self.exp: dict[int, int] = {}
        self.followers: dict[int, dict] = {}

    def __len__(self) -> int:
        return len(self.succ)

    def add(self, x: int, b: int, exp: int) -> None:
        """Keep x as an alias of its one successor b, until `exp`."""
        self.succ[x] = b
        self.exp[x] = exp
        got = self.followers.get(b)
        if got is None:
            self.followers[b] = {x: None}
        else:
            got[x] = None

    def renew(self, x: int, exp: int) -> int | None:
        """A copy of x's edge valid until `exp`: its exp before if that grew it, else None."""
        before = self.exp[x]
        if exp <= before:
            return None
        self.exp[x] = exp
        return before

    def forget(self, x: int) -> int:
        """Stop keeping x as an alias (it becomes a row, or its edge expired); its successor."""
        b = self.succ.pop(x)
        del self.exp[x]
        got = self.followers[b]
        del got[x]
        if not got:
            del self.followers[b]
        return b

    def expiring(self, upto: int) -> list[int]:
        """The sources whose edge's exp is `<= upto`."""
        return [x for x, e in self.exp.items() if e <= upto]

    def state(self) -> dict:
        """`{x: (b, exp)}`, the checkpoint form (incremental/stateful.py)."""
        return {x: (b, self.exp[x]) for x, b in self.succ.items()}

    def restore(self, saved: dict) -> None:
        self.succ, self.exp, self.followers = {}, {}, {}
        for x, (b, exp) in saved.items():
            self.add(int(x), int(b), int(exp))

    def check(self, nstates: int, start: int) -> None:
        """Invariants: each source is a start node, among its successor's followers, and
        nobody's successor (an edge into it would have made it a row)."""
        for x, b in self.succ.items():
            assert x % nstates == start and x in self.followers[b], x
            assert x not in self.followers, ("a source with an edge in", x)
        assert sum(len(xs) for xs in self.followers.values()) == len(self.succ)
