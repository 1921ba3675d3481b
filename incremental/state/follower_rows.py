"""The interval rows of sole-edge sources, derived from their successor's (operators/
path_closure.py on level closures, state/level_closure.py `derive`).

A sole-edge source f (state/sole_sources.py: a start node with no edge in and its edges all to
one node b) reaches `{b} ∪ reach(b)`, so the pair (f, t), for a vertex t other than b's own,
holds exactly while f's edge holds and b reaches t (b's *coverage* of t: the rows of b's pairs
when b is a start node, a post's `hasCreator` edge before `[hasCreator*/knows*]` on snb; else
kept here, `succ`, from the closure's findings of b while b has followers). So f's coverage
is b's, clipped by the edge:

    [max(start_b(t), since_f), min(until_b(t), exp_f))

where `since_f` is the instant f's edge began to hold without a break (a sole-edge source is
forgotten when its edge expires, so it is the instant the source was made), and (f, b's vertex)
holds with the edge itself when b is final. (Thesis Def 11's coalescing on the intersection of
two unbroken runs: one interval, starting at the later start.) So f keeps no coverage of its
own: its rows are

- at a widening of b's coverage of t from `old` (`now` if t was not live) to L: `(f, t)`
  widens to `min(exp_f, L)` iff `old < exp_f` (it starts at `now` when t is new to b, else at
  `max(start_b(t), since_f)`): the followers whose edges hold until one exp get the same
  targets, so they share one fan (a cross product of sources and targets, fan_rows.py);
- when f is new (its rows: b's whole live coverage, clipped) or its edge is renewed from
  `before` to `exp_f` (the keys whose `min` grew), after the round's rows of b, with b's ends
  before the round for the keys b widened in it (one row per key and round).

A successor that is not a start node gets its coverage when it gets its first follower,
read from the closure's levels, every pair starting then: its followers are all new then,
so `max(start_b(t), since_f)` is exact for them and for later ones.

On snb `[hasCreator*/knows*]` these sources hold 90% of the interval rows: a widening of a
creator's costs a fan per group of its posts (one per day in the window) instead of a coverage
update per post and target (and none in the purge). When
f becomes rows (an edge into it, or a second successor) its derived coverage becomes its own
in the output's coverage (`take_over`), and so does every follower's at a hand-over to S-PATH.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..fan_rows import Sources
from ..sgt import NEVER
from ..stateful import restore_into, state_of
from .coalescer import Coalescer
from .fan_coverage import FanCoverage


class FollowerRows:
    """`since[f]` per follower node f (the closure's `derived`), `succ` the coverage of the
    successors that are not start nodes (by node), and the rules above. The closure (a
    LevelClosure) and the output's coverage (a FanCoverage: `cover`, where a start node's
    coverage is, by vertex) are passed in: both are replaced by restores and hand-overs."""

    __slots__ = ("since", "succ", "start", "finals", "loops")

    STATE_VERSION = 1

    def __init__(self, start: int, finals: Iterable[int], loops: bool) -> None:
        self.since: dict[int, int] = {}
        self.succ = FanCoverage()  # successor node -> {vertex: (start, until)}
        self.start = start
        self.finals = frozenset(finals)  # b's state final: (f, b's vertex) holds with the edge
        self.loops = loops  # interval rows may hold (v, v)

    def _live(self, closure, cover: FanCoverage, b: int) -> dict:
        """b's coverage `{vertex: (start, until)}` (stale entries included)."""
        ns = closure.nstates
        if b % ns == self.start:
            return cover.live.get(closure.names[b // ns], {})
        return self.succ.live.get(b, {})

    def admit(self, b: int, trgs: list, now: int, level: int) -> tuple[list, object, object]:
        """A finding of the successor b (not a start node): `admit_fan` into its coverage."""
        return self.succ.admit_fan(b, trgs, now, level)

    def init(self, closure, b: int, now: int) -> None:
        """b (not a start node) got its first follower: its coverage from the closure's
        levels, every pair starting `now` (its followers are all new now)."""
        names, ns = closure.names, closure.nstates
        keys: dict = {}
        for y, level in closure.bottlenecks(b).items():
            if y != b and level > now:  # (coarse levels: a level at `now` goes after the round)
                t = names[y // ns]
                if t not in keys:  # (top-down: a vertex's first node is its highest)
                    keys[t] = (now, level)
        self.succ.replace(b, keys)

    def changed(
        self,
        closure,
        b: int,
        got: list,
        starts,
        olds: list | None,
        level: int,
        now: int,
        skip: Iterable[int],
        cover: FanCoverage,
        out: list,
    ) -> None:
        """The rows of b's followers (other than those in `skip`) for a widening of b's
        coverage: the targets `got` widened to `level` from `olds` (None: all new), with
        `starts`; to `out` as fans `(Sources, targets, ts or starts, exp)`, one per group of
        followers with one exp (state/sole_sources.py): their edge clips the same targets,
        and each row starts at the later of its target's start and its source's `since`
        (fan_rows.py `Sources`). `cover`: the output's coverage."""
        names, ns, name_of = closure.names, closure.nstates, closure.name_of
        own = names[b // ns]
        if b % ns in self.finals:
            if own in got:  # (f, b's vertex) holds with f's edge already
                keep = [i for i, t in enumerate(got) if t != own]
                if not keep:
                    return
                got = [got[i] for i in keep]
                if olds is not None:
                    starts = [starts[i] for i in keep]
                    olds = [olds[i] for i in keep]
        sole = closure.sole
        members = sole.followers[b]
        # followers out of their group's fan: those of this round (`skip`: their rows come
        # with `arrived`) and those whose own vertex is a target (one by one, `_alone`)
        apart: dict = {}  # exp -> {follower: alone}
        for f in skip:
            if f in members:
                apart.setdefault(sole.exp[f], {})[f] = False
        vid, start = closure.vid, self.start
        for t in got:
            v = vid.get(t)
            if v is not None:
                f = v * ns + start
                if f in members and f not in skip:
                    apart.setdefault(sole.exp[f], {})[f] = True
        if olds is not None:
            top_old = max(olds)
        since = self.since
        for e, group in sole.groups[b].items():
            exp = e if e < level else level
            if olds is None:  # all new to b: new to f, starting now
                trgs, ts = got, now
            elif e > top_old:  # no target clipped by the edge before
                trgs, ts = got, starts
            else:
                trgs = [t for t, old in zip(got, olds) if old < e]
                if not trgs:
                    continue
                ts = [st for st, old in zip(starts, olds) if old < e]
            odd = apart.get(e)
            if odd is None:
                srcs = group.lists
                if srcs is None:
                    fs = group.members
                    srcs = group.lists = Sources(
                        [name_of(f // ns) for f in fs], [since[f] for f in fs]
                    )
            else:
                fs = [f for f in group.members if f not in odd]
                for f, alone in odd.items():
                    if alone:
                        self._alone(cover, name_of(f // ns), since[f], trgs, ts, exp, now, out)
                if not fs:
                    continue
                srcs = Sources([name_of(f // ns) for f in fs], [since[f] for f in fs])
            out.append((srcs, trgs, ts, exp))

    def _alone(self, cover, name, s: int, trgs: list, ts, exp: int, now: int, out: list):
        """The rows of a follower `name` made at `s` whose own vertex is among `trgs`: (f, f)
        is f's own coverage (`_own`), the rest one fan."""
        if type(ts) is not int:
            ts = [st if st > s else s for st in ts]
        if name in trgs:
            trgs, ts = _without(name, trgs, ts)
            if self.loops:
                self._own(cover, name, exp, now, out)
        if trgs:
            out.append((name, trgs, ts, exp))

    def arrived(
        self,
        closure,
        cover: FanCoverage,
        fresh: list,
        renewed: dict,
        before: dict,
        now: int,
        out: list,
    ) -> None:
        """The rows of the followers made (`since` now) or renewed (`{f: exp before}`) in this
        round, after its rows of their successors; `before[b]` holds b's ends before the
        round for the targets b widened in it."""
        since = self.since
        for f in fresh:
            since[f] = now
            self._fresh_rows(closure, cover, f, now, out)
        for f, exp_before in renewed.items():
            b = closure.sole.succ[f]
            self._rows(closure, cover, f, exp_before, before.get(b, {}), now, out)

    def _own(self, cover: FanCoverage, name, exp: int, now: int, out: list) -> None:
        """A row of (f, f) where b reaches f's own vertex: that key is kept in the coverage
        as any source's, since f's ε-pair (a nullable regex) is admitted there too."""
        row = cover.admit((name, name), now, exp, now)
        if row is not None:
            out.append((name, [name], row[0], exp))

    def _fresh_rows(self, closure, cover: FanCoverage, f: int, now: int, out: list) -> None:
        """The rows of f made now: b's live coverage clipped, every key new (from `now`),
        one fan per end."""
        names, ns, name_of = closure.names, closure.nstates, closure.name_of
        b = closure.sole.succ[f]
        own = names[b // ns]
        name = name_of(f // ns)
        e = closure.sole.exp[f]
        by_until: dict = {}  # until -> targets
        b_live = self._live(closure, cover, b)
        direct = b % ns in self.finals
        for t, (_start, until) in b_live.items():
            if until <= now or t == name or (direct and t == own):
                continue
            if until > e:
                until = e
            got = by_until.get(until)
            if got is None:
                by_until[until] = [t]
            else:
                got.append(t)
        if direct and own == name:  # an edge from f's vertex to itself: (f, f), its own
            if self.loops:
                self._own(cover, name, e, now, out)
        elif direct:  # (f, b's vertex) with the edge, whatever b's own pair
            got = by_until.get(e)
            if got is None:
                by_until[e] = [own]
            else:
                got.append(own)
        for until, trgs in by_until.items():
            out.append((name, trgs, now, until))
        if self.loops:
            cur = b_live.get(name)
            if cur is not None and cur[1] > now:  # (f, f) through b
                self._own(cover, name, cur[1] if cur[1] < e else e, now, out)

    def _rows(self, closure, cover, f, exp_before, ends_before, now, out: list) -> None:
        """The rows of f renewed from `exp_before`: its derived coverage where it grew past
        its ends before the round (`min(exp_before, b's end before)`)."""
        names, ns, name_of = closure.names, closure.nstates, closure.name_of
        b = closure.sole.succ[f]
        own = names[b // ns]
        name = name_of(f // ns)
        keys = self.coverage(closure, cover, f, now)
        b_live = self._live(closure, cover, b)
        if self.loops:
            cur = b_live.get(name)
            if cur is not None and cur[1] > now:  # (f, f) through b
                e = closure.sole.exp[f]
                self._own(cover, name, cur[1] if cur[1] < e else e, now, out)
        by_until: dict = {}  # until -> (targets, starts)
        direct = b % ns in self.finals
        if direct and own == name and self.loops:  # (f, f) with the edge
            self._own(cover, name, closure.sole.exp[f], now, out)
        for t, (start, until) in keys.items():
            if direct and t == own:
                old = exp_before  # (f, b's vertex) held with the edge
            else:
                end_b = ends_before.get(t)
                if end_b is None:  # b's coverage of t did not move in this round
                    end_b = b_live[t][1]
                old = end_b if end_b < exp_before else exp_before
            if until > old:
                _group(by_until, until, t, start)
        for until, (trgs, starts) in by_until.items():
            out.append((name, trgs, starts, until))

    def coverage(self, closure, cover: FanCoverage, f: int, now: int) -> dict:
        """`{t: (start, until)}`: the live coverage of the follower f, derived."""
        b = closure.sole.succ[f]
        return self._keys(closure, cover, b, f, self.since[f], closure.sole.exp[f], now)

    def _keys(self, closure, cover, b: int, f: int, s: int, e: int, now: int) -> dict:
        """The coverage of a follower f of b made at `s`, its edge holding until `e`: b's live
        coverage clipped, and b's vertex with the edge (b final)."""
        names, ns, name_of = closure.names, closure.nstates, closure.name_of
        own, name = names[b // ns], name_of(f // ns)
        keys: dict = {}
        direct = b % ns in self.finals
        for t, (start, until) in self._live(closure, cover, b).items():
            if until <= now or (direct and t == own):
                continue
            keys[t] = (start if start > s else s, until if until < e else e)
        if direct:
            keys[own] = (s, e)
        keys.pop(name, None)  # (f, f) is f's own coverage (`_own`), or no result
        return keys

    def take_over(self, closure, cover: FanCoverage, made_rows: list, now: int) -> None:
        """The followers that became rows (`[(f, b, exp)]`, taken before the round's rows):
        their derived coverage becomes their own."""
        ns, name_of = closure.nstates, closure.name_of
        for f, b, e in made_rows:
            s = self.since.pop(f)
            cover.enter(name_of(f // ns), self._keys(closure, cover, b, f, s, e, now))

    def hand_over(self, closure, cover: FanCoverage, now: int) -> None:
        """Every follower's derived coverage becomes its own (before a hand-over to S-PATH)."""
        ns, name_of = closure.nstates, closure.name_of
        for f in list(self.since):
            if closure.derived(f):
                cover.enter(name_of(f // ns), self.coverage(closure, cover, f, now))
        self.since.clear()

    def rename(self, renamed: dict) -> None:
        """Followers whose node changed (`{old: new}`, state/level_closure.py `_promote`)."""
        since = self.since
        for old, new in renamed.items():
            s = since.pop(old, None)
            if s is not None:
                since[new] = s

    def prune(self, closure, now: int) -> None:
        """Forget the followers the closure forgot (their edge expired), the successors left
        without followers, and the coverage that ended by `now`."""
        since = self.since
        for f in [f for f in since if not closure.derived(f)]:
            del since[f]
        followers = closure.sole.followers
        for b in [b for b in self.succ.live if b not in followers]:
            self.succ.forget(b)
        self.succ.purge(now)

    def _check(self, closure, after: float = NEVER) -> None:
        """Every follower the closure leaves to the caller has its `since`; a successor that
        is not a start node covers what it reaches at every level `> after`."""
        for f in closure.sole.succ:
            if closure.derived(f):
                assert f in self.since, f
        ns, names = closure.nstates, closure.names
        for b in closure.sole.followers:
            if b % ns == self.start:
                continue
            live = self.succ.live.get(b, {})
            for y, level in closure.bottlenecks(b).items():
                if y != b and level > after:
                    cur = live.get(names[y // ns])
                    assert cur is not None and cur[1] >= level, (b, y, level, cur)
        self.succ._check()

    def state(self) -> dict:
        return {"since": self.since, "successors": state_of(self.succ.coalescer())}

    def restore(self, state: dict) -> None:
        self.since = {int(f): int(s) for f, s in state["since"].items()}
        succ = Coalescer()
        restore_into(succ, state["successors"])
        self.succ = FanCoverage.of(succ)


def _group(by_until: dict, until: int, t, start: int) -> None:
    got = by_until.get(until)
    if got is None:
        by_until[until] = ([t], [start])
    else:
        got[0].append(t)
        got[1].append(start)


def _without(name, trgs: list, ts) -> tuple[list, object]:
    """`trgs` (and a starts list beside it) without `name`."""
    if type(ts) is int:
        return [t for t in trgs if t != name], ts
    kept = [(t, s) for t, s in zip(trgs, ts) if t != name]
    return [t for t, _ in kept], [s for _, s in kept]
