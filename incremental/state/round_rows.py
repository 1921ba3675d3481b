"""The rows of one round's findings, for state/interval_rows.py (the closure PATH's interval
rows).

A finding `(x, mask, L)` says that node x newly reaches the vertices of `mask` at level L. By
x's kind it becomes:

- a *held* start node's (no keys of its own: its findings are exactly its widenings): rows
  `[now, L)` of every target, logged, not compared; the held nodes that found one target
  list at one level go out as one cross-product fan and one log entry (`_held_rows`);
- a start node's with keys of its own: rows where `FanCoverage.admit_fan` says the key widens
  (a live key keeps its start); the one-target findings of a level are admitted together
  (`admit_pairs`);
- a successor's that is not a start node: its followers' rows only (state/follower_rows.py).

Then the followers' rows. Rows of one source and one target go out as one fan of pairs per
exp (fan_rows.py `PairRows`). The order of a round's rows is part of the output: the rows of
the findings in their order, then the held nodes' fans, the followers' fans, the pairs.

Cost: O(1) per finding of a held node that shares its target list with the finding before,
O(targets) per other finding; each mask named once per round. The why of held sources and
followers: docs/design/path-closure.md.
"""

from __future__ import annotations

from ..fan_rows import FanRows, PairRows, Sources, rows_of_fans


class RoundRows:
    """One round's findings becoming rows in `result` (a FanRows or a list)."""

    __slots__ = (
        "closure",
        "cover",
        "follow",
        "followers",
        "held",
        "loops",
        "now",
        "result",
        "add",
        "pairs",
        "follower_pairs",
        "shared",
        "again",
        "one_s",
        "one_t",
        "named",
        "by_id",
    )

    def __init__(
        self, closure, cover, follow, followers: dict, held: bool, loops: bool, now: int, result
    ) -> None:
        self.closure = closure
        self.cover = cover
        self.follow = follow
        self.followers = followers  # (the closure's `followed()`)
        self.held = held  # start nodes without keys are held
        self.loops = loops  # rows may hold (v, v)
        self.now = now
        self.result = result
        self.add = result.add if type(result) is FanRows else None
        self.pairs = PairRows()  # the rows of one source and one target, one fan per exp
        # (and the followers' of one source and one target, where the rows are fans)
        self.follower_pairs = self.pairs if self.add is not None else None
        self.shared: dict = {}  # (id(targets), level) -> (targets, level, [held sources])
        self.again: set = set()  # start nodes with keys: held again? (interval_rows.py)
        self.one_s: list = []  # the one-target findings of start nodes with keys, this level
        self.one_t: list = []
        self.named: dict = {}  # mask -> its vertices' names
        self.by_id: dict = {}  # id(mask) -> the same: a mask is not hashed again (O(width))

    def take(self, found: list) -> set:
        """The rows of each finding `(x, mask, L)` by x's kind (see the module docstring), the
        held nodes' after all (`_held_rows`); returns the start nodes with keys that found
        something (held again where they may be, `IntervalRows._rehold`)."""
        closure, follow = self.closure, self.follow
        names, ns, start = closure.names, closure.nstates, closure.start
        held, loops, keyless = self.held, self.loops, self.cover.keyless
        followers = self.followers
        one_s, one_t, fans = self.one_s, self.one_t, self.add is not None
        by_id, named, final_names = self.by_id, self.named, closure.final_names
        at = last_mask = trgs = last_trgs = last_level = last_srcs = None
        for x, mask, level in found:
            if level != at:
                if one_s:
                    self._one_target(at)
                at = level
            xv = names[x // ns]
            if mask is not last_mask:  # (consecutive findings mostly share their mask)
                last_mask = mask  # (its names once per round, by id: a mask is hashed once)
                trgs = by_id.get(id(mask))
                if trgs is None:
                    trgs = named.get(mask)
                    if trgs is None:
                        trgs = named[mask] = final_names(mask)
                    by_id[id(mask)] = trgs
            if x % ns != start:
                follow.successor_found(x, trgs, mask, level)
            elif held and keyless(xv):
                if trgs is last_trgs and level == last_level and xv not in trgs:
                    last_srcs.append(xv)  # (most: the group of the finding before)
                    if x in followers:
                        follow.changed_held(x, trgs, mask, level)
                else:
                    group = self._held(x, xv, trgs, mask, level)
                    if group is not None:
                        last_trgs, last_level, last_srcs = group
            else:
                if held:
                    self.again.add(x)
                got = trgs if loops or xv not in trgs else [t for t in trgs if t != xv]
                if fans and len(got) == 1 and x not in followers:
                    one_s.append(xv)  # (admitted with the level's others, `_one_target`)
                    one_t += got
                else:
                    self._keyed(x, xv, got, level)
        if one_s:
            self._one_target(at)
        if self.shared:
            self._held_rows()
        return self.again

    def _held(self, x: int, xv, trgs: list, mask: int, level: int) -> tuple | None:
        """A held start node's finding: its rows join the group of its target list and
        level (`_held_rows`); `(x, x)` is a key of the coverage. Returns the group, None if it
        has no targets but its own vertex."""
        now, got = self.now, trgs
        if xv in trgs:  # ((x, x): in the coverage, as the ε-pairs)
            trgs = [t for t in trgs if t != xv]
            row = self.cover.admit((xv, xv), now, level, now) if self.loops else None
            if row is not None:
                since, _until = row
                if self.add is not None:
                    self.add(xv, [xv], since, level)
                else:
                    self.result.append((xv, xv, since, level, None))
            # ((f, x's vertex) holds with f's edge where x's state is final)
            if row is None or self.closure.start in self.closure.finals:
                got = trgs
        group = None
        if trgs:
            group = self.shared.get((id(trgs), level))
            if group is None:
                group = self.shared[id(trgs), level] = (trgs, level, [xv])
            else:
                _trgs, _level, srcs = group
                srcs.append(xv)
        if got and x in self.followers:
            self.follow.changed_held(x, got, mask, level)
        return group

    def _keyed(self, x: int, xv, trgs: list, level: int) -> None:
        """A finding of a start node with keys of its own: the rows of the keys it widens."""
        now = self.now
        got, starts, olds = self.cover.admit_fan(xv, trgs, now, level)
        if not got:
            return
        if self.add is not None:
            if len(got) == 1:  # (a start node with followers: its row among the pairs)
                [t] = got
                if type(starts) is int:
                    self.pairs.add(xv, t, now, level)
                else:
                    [st] = starts
                    self.pairs.add(xv, t, st, level)
            else:
                self.add(xv, got, starts, level)
        elif type(starts) is int:
            self.result.extend([(xv, t, now, level, None) for t in got])
        else:
            self.result.extend([(xv, t, s, level, None) for t, s in zip(got, starts)])
        if x in self.followers:
            self.follow.changed(x, got, starts, olds, level)

    def _one_target(self, level: int) -> None:
        """`FanCoverage.admit_pairs` of the level's one-target findings: what widens, to
        the pairs."""
        got_s, got_t, starts = self.cover.admit_pairs(self.one_s, self.one_t, self.now, level)
        if got_s:
            self.pairs.extend(got_s, got_t, starts, level)
        self.one_s.clear()
        self.one_t.clear()

    def _held_rows(self) -> None:
        """The rows `[now, L)` of the held nodes' findings, logged (`FanCoverage.hold`): the
        nodes that found one target list at one level as one cross-product fan and one log
        entry; a node alone with one target among the pairs."""
        cover, now, result, add = self.cover, self.now, self.result, self.add
        for trgs, level, srcs in self.shared.values():
            if len(srcs) == 1:
                [src] = srcs
                cover.hold(src, trgs, now, level)
                if add is not None and len(trgs) == 1:
                    [t] = trgs
                    self.pairs.add(src, t, now, level)
                elif add is not None:
                    add(src, trgs, now, level)
                else:
                    result.extend([(src, t, now, level, None) for t in trgs])
                continue
            cover.hold_all(srcs, trgs, now, level)
            if add is not None:
                fan = (Sources(srcs, [now] * len(srcs)), trgs, now, level)
                result.add_counted([fan], len(srcs) * len(trgs))
            else:
                result.extend([(s, t, now, level, None) for s in srcs for t in trgs])

    def finish(self, derived: list) -> None:
        """The followers' fans `derived`, then the pairs."""
        if derived:
            if self.add is None:
                self.result.extend(rows_of_fans(derived))
            else:  # (those of one follower and one target among the pairs)
                rest: list = []
                add = self.pairs.add
                for fan in derived:
                    src, trgs, ts, exp = fan
                    if (
                        type(src) is Sources
                        and len(src.names) == 1
                        and len(trgs) == 1
                        and type(ts) is int
                    ):
                        [name], [since], [t] = src.names, src.since, trgs
                        add(name, t, since if since > ts else ts, exp)
                    else:
                        rest.append(fan)
                self.result.add_fans(rest)
        if self.pairs:
            self.pairs.into(self.result)
