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
so `max(start_b(t), since_f)` is exact for them and for later ones. Where its state is
final it is held instead, as a held start node below (`holds_inner`): no keys, its
findings logged by node in `succ` (`FanCoverage.hold`, from its live ends at the first
follower), the log giving the keys' starts where they matter (a follower made rows, a
hand-over, a checkpoint, which saves them as keys: restored, such a node keeps keys).

A *held* start node b (operators/path_closure.py `implicit`: no keys of its own, its ends the
closure's) has no coverage to read `old` from: at a finding at L, (f, t) widens iff b's end
before was below `exp_f`, true for `exp_f >= L` (the finding widened it from below L), and for
`exp_f < L` iff b did not reach t before the insert at a level `>= exp_f`
(`LevelClosure.reached_before`: one mask per group); every row starts `now`. Its live coverage
is read off the closure's levels (`_live`, `_fresh_rows`), or off its logged rows where the
starts matter (`FanCoverage.held_run_of`: a follower made rows, a renewed one, a hand-over).

On snb `[hasCreator*/knows*]` these sources hold 90% of the interval rows: a widening of a
creator's costs a fan per group of its posts (one per day in the window) instead of a coverage
update per post and target (and none in the purge). When
f becomes rows (an edge into it, or a second successor) its derived coverage becomes its own
in the output's coverage (`take_over`), and so does every follower's at a hand-over to S-PATH.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable

from ..fan_rows import PairRows, Sources
from ..sgt import NEVER
from ..stateful import restore_into, state_of
from .coalescer import Coalescer
from .fan_coverage import FanCoverage
from .product_nodes import COLD, bits

_NOTHING_APART: dict = {}  # (`_apart` of most calls; never written)


class FollowerRows:
    """`since[f]` per follower node f (the closure's `derived`), `succ` the coverage of the
    successors that are not start nodes (by node), and the rules above. The closure (a
    LevelClosure) and the output's coverage (a FanCoverage: `cover`, where a start node's
    coverage is, by vertex) are passed in: both are replaced by restores and hand-overs."""

    __slots__ = ("since", "succ", "start", "finals", "loops", "held")

    STATE_VERSION = 1

    def __init__(self, start: int, finals: Iterable[int], loops: bool, held: bool = False) -> None:
        self.since: dict[int, int] = {}
        self.succ = FanCoverage()  # successor node -> {vertex: (start, until)}
        self.start = start
        self.finals = frozenset(finals)  # b's state final: (f, b's vertex) holds with the edge
        self.loops = loops  # interval rows may hold (v, v)
        # start nodes without keys of their own in `cover` are held (operators/
        # path_closure.py `implicit`): their coverage is the closure's ends
        self.held = held

    def holds(self, cover: FanCoverage, closure, b: int) -> bool:
        """Whether the successor b is held: its ends are the closure's, no keys of its own
        (a start node's in `cover`, but maybe `(b, b)`, an ε-pair's or a cycle's; an inner
        one's in `succ`, `holds_inner`)."""
        if not self.held:
            return False
        ns = closure.nstates
        if b % ns != self.start:
            return self.holds_inner(b, ns)
        return cover.keyless(closure.names[b // ns])

    def direct(self, b: int, y: int, ns: int) -> bool:
        """Whether the final node y that b reaches (as the closure names a vertex, `fold`)
        is b's own vertex with b final: its followers hold it with their edge, not through
        b (with one final state, y is b itself)."""
        return y // ns == b // ns and b % ns in self.finals

    def holds_inner(self, b: int, ns: int) -> bool:
        """Whether the successor b, not a start node, is held: its state final ((f, b's
        vertex) holds with f's edge, and the closure leaves it out of b's findings),
        no keys in `succ`, its findings logged there by node (`FanCoverage.hold`)."""
        return self.held and b % ns in self.finals and b not in self.succ.live

    def _live(self, closure, cover: FanCoverage, b: int, now, logged: bool = False) -> dict:
        """b's coverage `{vertex: (start, until)}` (stale entries included); a held start
        node's read off the closure's ends after `now`, every key from `now` (a live key's
        rows widen it from inside), or, with `logged`, off its logged rows, with their
        starts (a follower made rows takes them over before the round's rows)."""
        ns = closure.nstates
        if b % ns != self.start:
            if not self.holds_inner(b, ns):
                return self.succ.live.get(b, {})
            if logged:
                return self.succ.held_run_of(b, now)
            return {t: (now, level) for level, ts in closure.ends_by_level(b, now) for t in ts}
        name = closure.names[b // ns]
        fan = cover.live.get(name, {})
        if not self.held or not cover.keyless(name):
            return fan
        if logged and cover.has_index(name):
            keys = cover.held_run_of(name, now)
        else:
            keys = {t: (now, level) for level, ts in closure.ends_by_level(b, now) for t in ts}
        keys.update(fan)  # ((b, b): its own coverage's)
        return keys

    def admit(self, b: int, trgs: list, now: int, level: int) -> tuple[list, object, object]:
        """A finding of the successor b (not a start node): `admit_fan` into its coverage."""
        return self.succ.admit_fan(b, trgs, now, level)

    def init(self, closure, b: int, now: int) -> None:
        """b (not a start node) got its first follower: its coverage from the closure's
        levels, every pair starting `now` (its followers are all new now); a held one's
        (`holds_inner`) as its logged rows by node, from its live ends."""
        names, ns = closure.names, closure.nstates
        if self.holds_inner(b, ns):
            self.succ.forget(b)
            self.succ.index(b, [(ts, now, level) for level, ts in closure.ends_by_level(b, now)])
            return
        keys: dict = {}
        for y, level in closure.bottlenecks(b).items():
            # (coarse levels: a level at `now` goes after the round)
            if level > now and not self.direct(b, y, ns):
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
        names, ns = closure.names, closure.nstates
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
        apart = self._apart(closure, b, got, skip)
        if olds is not None:
            top_old = max(olds)
        for e, group in closure.sole.groups[b].items():
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
            srcs = group.lists
            if srcs is not None and (not apart or e not in apart):
                out.append((srcs, trgs, ts, exp))  # (most groups: `_fan`'s first case)
            else:
                self._fan(closure, group, apart.get(e), trgs, ts, exp, cover, now, out)

    def changed_held(
        self,
        closure,
        b: int,
        got: list,
        mask: int,
        level: int,
        now: int,
        skip: Iterable[int],
        cover: FanCoverage,
        out: list,
        inserted: bool,
        pairs: PairRows | None = None,
    ) -> None:
        """`changed` for a held start node b (`holds`): its finding `(b, mask, level)`, the
        vertices `got` (b's own vertex left out when b's state is final: (f, b's vertex)
        holds with f's edge), widened what was emitted for b (the closure's findings of a
        held node are its widenings), each from an end below `level`. A follower's edge until e
        clips the targets at e: (f, t) widens iff b's end before was below e, so for
        `e < level` the targets b reached before at a level `>= e` are left out
        (`LevelClosure.reached_before`); a rebuild's findings (not `inserted`) widen ends
        that were the dropped level or below, or a rebuilt level's report above it
        (`reported_before`: a lower bound from a rebuild before, which a higher level now
        holds). Every row starts `now` (at a live key: from inside its interval). With
        `pairs`, the row of a group of one follower and one target goes there (most: a
        user with one answer on so `a2q/c2a*`), no fan."""
        apart = self._apart(closure, b, got, skip)
        groups = closure.sole.groups[b]
        # (one mask first: what b reached before at the lowest edge's exp or above; none of
        # the targets, nearly always, and no group drops any)
        low = min(groups)
        before = closure.reached_before if inserted else closure.reported_before
        clipped = low < level and before(b, low) & mask
        for e, group in groups.items():
            trgs = got
            if e >= level:
                exp = level
            else:
                exp = e
                if clipped:
                    m = before(b, e) & mask
                    if m:
                        names, ns = closure.names, closure.nstates
                        gone = {names[y // ns] for y in bits(m)}
                        trgs = [t for t in got if t not in gone]
                        if not trgs:
                            continue
            srcs = group.lists
            if srcs is not None and (not apart or e not in apart):
                if pairs is not None and len(trgs) == 1 and len(srcs.names) == 1:
                    [name], [since], [t] = srcs.names, srcs.since, trgs
                    pairs.add(name, t, since if since > now else now, exp)
                else:
                    out.append((srcs, trgs, now, exp))  # (most groups: `_fan`'s first case)
            else:
                self._fan(closure, group, apart.get(e), trgs, now, exp, cover, now, out)

    def _apart(self, closure, b: int, got: list, skip: Iterable[int]) -> dict:
        """`{exp: {follower: alone}}`: b's followers out of their group's fan, those of this
        round (`skip`: their rows come with `arrived`) and those whose own vertex is a
        target (`alone`: one by one, `_alone`)."""
        sole = closure.sole
        members = sole.followers[b]
        if not skip and len(got) == 1:  # (most calls: one target, no follower of the round)
            v = closure.vid.get(got[0])
            if v is not None:
                f = v * closure.nstates + self.start
                if f in members:
                    return {sole.exp[f]: {f: True}}
            return _NOTHING_APART
        apart: dict = {}
        for f in skip:
            if f in members:
                apart.setdefault(sole.exp[f], {})[f] = False
        ns, start = closure.nstates, self.start
        if len(members) < len(got):  # (the fewer read: a cold follower is never a target)
            cold = COLD * ns
            among = set(got)
            name_of = closure.name_of
            for f in members:
                if f < cold and f not in skip and name_of(f // ns) in among:
                    apart.setdefault(sole.exp[f], {})[f] = True
            return apart
        vid = closure.vid
        for t in got:
            v = vid.get(t)
            if v is not None:
                f = v * ns + start
                if f in members and f not in skip:
                    apart.setdefault(sole.exp[f], {})[f] = True
        return apart

    def _fan(self, closure, group, odd, trgs, ts, exp, cover, now, out: list) -> None:
        """The fan of a group of followers (one edge exp) for `trgs`, those in `odd` (its
        members `_apart`) left out, the alone among them one by one."""
        ns, name_of, since = closure.nstates, closure.name_of, self.since
        if odd is None:
            srcs = group.lists
            if srcs is None:
                fs = group.members
                srcs = group.lists = Sources([name_of(f // ns) for f in fs], [since[f] for f in fs])
        else:
            fs = [f for f in group.members if f not in odd]
            for f, alone in odd.items():
                if alone:
                    self._alone(cover, name_of(f // ns), since[f], trgs, ts, exp, now, out)
            if not fs:
                return
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
        direct = b % ns in self.finals
        if self.holds(cover, closure, b):  # b's ends read off the closure, level by level
            # ((b, b), if any: a start node's own coverage)
            b_live = cover.live.get(own, {}) if b % ns == self.start else {}
            for level, trgs in closure.ends_by_level(b, now):
                until = level if level < e else e
                if name in trgs:
                    b_live = {**b_live, name: (now, level)}  # ((f, f) through b, below)
                    trgs = [t for t in trgs if t != name]
                got = by_until.get(until)
                if got is None:
                    by_until[until] = trgs[:]  # (the closure's list: shared, kept)
                else:
                    by_until[until] = got + trgs
            cur = b_live.get(own)
            if cur is not None and not direct and own != name and cur[1] > now:
                _into(by_until, cur[1] if cur[1] < e else e, own)
        else:
            b_live = self._live(closure, cover, b, now)
            for t, (_start, until) in b_live.items():  # (`_into`, inline: a call per key)
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
            _into(by_until, e, own)
        for until, trgs in by_until.items():
            if trgs:
                out.append((name, trgs, now, until))
        if self.loops:
            cur = b_live.get(name)
            if cur is not None and cur[1] > now:  # (f, f) through b
                self._own(cover, name, cur[1] if cur[1] < e else e, now, out)

    def _rows(self, closure, cover, f, exp_before, ends_before, now, out: list) -> None:
        """The rows of f renewed from `exp_before`: its derived coverage where it grew past
        its ends before the round (`min(exp_before, b's end before)`). For a held b
        (`holds`), `ends_before` names the targets b widened in the round (their ends
        before are not kept): (f, t) grew iff b's end is past `exp_before` or b widened t."""
        names, ns, name_of = closure.names, closure.nstates, closure.name_of
        b = closure.sole.succ[f]
        own = names[b // ns]
        name = name_of(f // ns)
        held = self.holds(cover, closure, b)  # (its coverage with starts: the logged rows)
        keys = self._keys(closure, cover, b, f, self.since[f], closure.sole.exp[f], now, held)
        b_live = self._live(closure, cover, b, now, held)
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
            elif held:
                if b_live[t][1] > exp_before or t in ends_before:
                    _group(by_until, until, t, start)
                continue
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

    def _keys(
        self,
        closure,
        cover,
        b: int,
        f: int,
        s: int,
        e: int,
        now: int,
        logged: bool = False,
    ) -> dict:
        """The coverage of a follower f of b made at `s`, its edge holding until `e`: b's live
        coverage clipped (a held b's `logged` rows, `_live`), and b's vertex with the edge
        (b final)."""
        names, ns, name_of = closure.names, closure.nstates, closure.name_of
        own, name = names[b // ns], name_of(f // ns)
        keys: dict = {}
        direct = b % ns in self.finals
        for t, (start, until) in self._live(closure, cover, b, now, logged).items():
            if until <= now or (direct and t == own):
                continue
            keys[t] = (start if start > s else s, until if until < e else e)
        if direct:
            keys[own] = (s, e)
        keys.pop(name, None)  # (f, f) is f's own coverage (`_own`), or no result
        return keys

    def take_over(self, closure, cover: FanCoverage, made_rows: list, now: int) -> None:
        """The followers that became rows (`[(f, b, exp)]`, taken before the round's rows):
        their derived coverage becomes their own. Where b is held (`held`: its ends are
        the closure's), f is held from now on too: its reach at each level up to its edge's
        exp e is b and b's (state/level_closure.py `_unalias`), so b's ends clipped at e
        are f's closure ends, but where the end is a level without a closure (b's report
        there, or e itself), which f's memo then names (`LevelClosure.remember_ends`).
        Its keys go straight to the held log: no keys to enter and compare again
        (operators/path_closure.py `_rehold`)."""
        ns, name_of = closure.nstates, closure.name_of
        for f, b, e in made_rows:
            s = self.since.pop(f)
            name = name_of(f // ns)
            keys = self._keys(closure, cover, b, f, s, e, now, True)
            if self.holds_made_rows(cover, closure, b, name):
                closure.remember_ends(f, keys)
                cover.hold_coverage(name, keys, now, index=f in closure.sole.followers)
            else:
                cover.enter(name, keys)

    def holds_made_rows(self, cover: FanCoverage, closure, b: int, name: Hashable) -> bool:
        """Whether a follower of b, named `name`, made rows is held at once (`take_over`):
        b is held and the follower has no keys of its own."""
        return self.held and cover.keyless(name) and self.holds(cover, closure, b)

    def hand_over(self, closure, cover: FanCoverage, now: int) -> None:
        """Every follower's derived coverage becomes its own (before a hand-over to S-PATH);
        a held successor's coverage with its keys' starts, from the held log."""
        ns, name_of = closure.nstates, closure.name_of
        sole = closure.sole
        for f in list(self.since):
            if closure.derived(f):
                b = sole.succ[f]
                keys = self._keys(closure, cover, b, f, self.since[f], sole.exp[f], now, True)
                cover.enter(name_of(f // ns), keys)
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
        for b in [b for b in self.succ.indexed() if b not in followers]:
            self.succ.unindex(b)
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
            held = self.holds_inner(b, ns)
            if held:  # its logged ends are exactly the closure's
                assert self.succ.has_index(b), ("a held successor without its rows", b)
                # (a level `overdue` dropped is over: its rows ended)
                live_exps = set(closure.exps)
                live = {
                    t: cur
                    for t, cur in self.succ.held_run_of(b, after).items()
                    if cur[1] in live_exps
                }
                ends = {
                    names[y // ns]: level
                    for y, level in closure.bottlenecks(b, after).items()
                    if not self.direct(b, y, ns)
                }
                assert {t: cur[1] for t, cur in live.items()} == ends, (b, live, ends)
                continue
            live = self.succ.live.get(b, {})
            for y, level in closure.bottlenecks(b).items():
                if level > after and not self.direct(b, y, ns):
                    cur = live.get(names[y // ns])
                    assert cur is not None and cur[1] >= level, (b, y, level, cur)
        self.succ._check()

    def state(self) -> dict:
        # (the held successors' logged rows as their keys; and the rows of those with
        # followers by source, `logged`, FanCoverage.index_state: restored, their keys go back
        # to the log, and their rows by source are those saved, which hold the live ends the
        # log never had, FanCoverage.index)
        return {
            "since": self.since,
            "successors": state_of(self.succ.coalescer(held=True)),
            "logged": self.succ.index_state(),
        }

    def restore(self, state: dict) -> None:
        self.since = {int(f): int(s) for f, s in state["since"].items()}
        succ = Coalescer()
        restore_into(succ, state["successors"])
        self.succ = FanCoverage.of(succ)
        # A held successor with followers reads its coverage off its rows by source
        # (`_coverage`, `hand_over`): without them a resumed run lost the rows of its
        # followers at a hand-over to S-PATH (a deletion). A state from before `logged` was
        # saved has none.
        logged = state.get("logged", [])
        for src, _rows in logged:
            if src in self.succ.live:
                self.succ.hold_keys(src, NEVER)
        self.succ.restore_index(logged)


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


def _into(by_until: dict, until: int, t) -> None:
    got = by_until.get(until)
    if got is None:
        by_until[until] = [t]
    else:
        got.append(t)
