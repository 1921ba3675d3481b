"""The followers (sole-edge sources) of a closure's product graph (state/window_closure.py,
state/level_closure.py).

A start node with no edge in and one edge out, `x -> b` (a post's `hasCreator` edge on the way
to `knows*`), reaches exactly `{b} ∪ reach(b)`. A closure keeps it as that alias, a *follower*
of its successor b, instead of a row: no bitset of its own, among no node's ancestors; what b
gains or loses, its followers gain or lose with it.

Contract: who follows whom, until when (`succ`, `exp`), the followers of each successor
(`followers`), also grouped by their edge's exp (`groups`): window ends are slide-aligned, so
the followers of one successor fall into a few groups, and a group's followers get the same
targets when their successor widens (state/follower_rows.py: one fan per group). The dicts are
never replaced: readers may keep them as views. Cost: O(1) per follower added, renewed,
rekeyed or forgotten. The why: docs/design/path-closure.md.
"""

from __future__ import annotations


class FollowerGroup:
    """The followers of one successor whose edge holds until one exp (`members`, in the order
    they joined), and `lists`: whatever its reader derived from them (state/follower_rows.py),
    None since the last change."""

    __slots__ = ("members", "lists")

    def __init__(self) -> None:
        self.members: dict[int, None] = {}
        self.lists: tuple | None = None

    def keep(self, lists) -> None:
        """Keep what the reader derived from the members, until they change."""
        self.lists = lists


class FollowerChanges:
    """What changed among the followers since the caller last asked (`LevelClosure.
    take_followers`): `renamed` `{old node: new node}` (a cold source promoted: the others
    name it by the new one), `fresh` the new followers, `renewed` `{follower: its edge's exp
    before}`, `made_rows` `[(follower, successor, exp)]` (an edge into it, or a second
    successor), and `first_followed` the successors other than start nodes that got their
    first follower (their findings were not reported before)."""

    __slots__ = ("renamed", "fresh", "renewed", "made_rows", "first_followed")

    def __init__(
        self, renamed: dict, fresh: list, renewed: dict, made_rows: list, first_followed: list
    ) -> None:
        self.renamed = renamed
        self.fresh = fresh
        self.renewed = renewed
        self.made_rows = made_rows
        self.first_followed = first_followed


#: no change (read, never changed)
NO_CHANGES = FollowerChanges({}, [], {}, [], [])


class SoleSources:
    """`succ[x] = b` for each sole-edge source x, `exp[x]` the largest exp of its edge's
    copies (x is in the graph of every level up to it), `followers[b]` the sources with
    successor b in creation order (a dict: rows come out in the same order after a
    restore), `groups[b]` the same by exp `{exp: FollowerGroup}`. The closures read the
    dicts directly in their hot loops."""

    __slots__ = ("succ", "exp", "followers", "groups")

    def __init__(self) -> None:
        self.succ: dict[int, int] = {}
        self.exp: dict[int, int] = {}
        self.followers: dict[int, dict] = {}
        self.groups: dict[int, dict[int, FollowerGroup]] = {}

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
        self._join(x, b, exp)

    def _join(self, x: int, b: int, exp: int) -> None:
        by_exp = self.groups.get(b)
        if by_exp is None:
            by_exp = self.groups[b] = {}
        group = by_exp.get(exp)
        if group is None:
            group = by_exp[exp] = FollowerGroup()
        group.members[x] = None
        group.lists = None

    def _leave(self, x: int, b: int, exp: int) -> None:
        by_exp = self.groups[b]
        group = by_exp[exp]
        del group.members[x]
        group.lists = None
        if not group.members:
            del by_exp[exp]
            if not by_exp:
                del self.groups[b]

    def renew(self, x: int, exp: int) -> int | None:
        """A copy of x's edge valid until `exp`: its exp before if that grew it, else None."""
        before = self.exp[x]
        if exp <= before:
            return None
        self.exp[x] = exp
        b = self.succ[x]
        self._leave(x, b, before)
        self._join(x, b, exp)
        return before

    def forget(self, x: int) -> int:
        """Stop keeping x as an alias (it becomes a row, or its edge expired); its successor."""
        b = self.succ.pop(x)
        self._leave(x, b, self.exp.pop(x))
        got = self.followers[b]
        del got[x]
        if not got:
            del self.followers[b]
        return b

    def rekey(self, x: int, y: int) -> None:
        """The source x is node y from now on (its vertex got a new index)."""
        b = self.succ.pop(x)
        exp = self.exp.pop(x)
        got = self.followers[b]
        del got[x]
        got[y] = None
        self._leave(x, b, exp)
        self.succ[y] = b
        self.exp[y] = exp
        self._join(y, b, exp)

    def expiring(self, upto: int) -> list[int]:
        """The sources whose edge's exp is `<= upto`."""
        return [x for x, e in self.exp.items() if e <= upto]

    def state(self) -> dict:
        """`{x: (b, exp)}`, the checkpoint form (incremental/stateful.py)."""
        return {x: (b, self.exp[x]) for x, b in self.succ.items()}

    def restore(self, saved: dict) -> None:
        # (in place: readers keep the dicts as views, LevelClosure `followed` and the like)
        for part in (self.succ, self.exp, self.followers, self.groups):
            part.clear()
        for x, (b, exp) in saved.items():
            self.add(int(x), int(b), int(exp))

    def check(self, nstates: int, start: int) -> None:
        """Invariants: each source is a start node, among its successor's followers, and
        nobody's successor (an edge into it would have made it a row)."""
        for x, b in self.succ.items():
            assert x % nstates == start and x in self.followers[b], x
            assert x not in self.followers, ("a source with an edge in", x)
        assert sum(len(xs) for xs in self.followers.values()) == len(self.succ)
        for b, by_exp in self.groups.items():
            for exp, group in by_exp.items():
                assert group.members, (b, exp)
                for x in group.members:
                    assert self.succ[x] == b and self.exp[x] == exp, (x, b, exp)
        assert sum(len(g.members) for gs in self.groups.values() for g in gs.values()) == len(
            self.succ
        )
