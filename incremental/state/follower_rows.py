"""The interval rows of the followers, derived from their successor's: the one place that says
how a follower's rows are derived (the closure PATH's interval rows, state/interval_rows.py).

A follower f (a sole-edge source, state/sole_sources.py) reaches `{b} ∪ reach(b)` through its
one edge to b, so its pair with a vertex t other than b's own holds exactly while its edge
holds and b reaches t. Its coverage is b's, clipped by the edge:

    [max(start_b(t), since_f), min(until_b(t), exp_f))

where `since_f` is the round f was made (a follower is forgotten when its edge expires), and
(f, b's vertex) holds with the edge itself when b's state is final. So f keeps no coverage of
its own; its rows come

- when b's coverage of t widens from `old` to L (`changed`, `changed_held`): (f, t) widens to
  `min(exp_f, L)` iff `old < exp_f`; the followers whose edges end at one exp get the same
  targets, so each such group goes out as one cross-product fan (fan_rows.py `Sources`);
- when f is new (b's live coverage clipped) or its edge is renewed (the keys whose `min` grew)
  (`arrived`), after the round's rows of b;
- when f becomes rows of its own (`_take_over`) or the operator hands over to S-PATH
  (`hand_over`): its derived coverage becomes its own.

b's coverage is read through `b`'s kind: a start node's is the output's coverage (`cover`), or,
for a held b, the closure's ends and the held log; a successor that is not a start node keeps
its coverage here (`succ`) while it has followers, or is held the same way where its state is
final (`holds_inner`). Why followers exist, what held means: docs/design/path-closure.md.

Contract: a round is `begin`, then `changed`/`changed_held`/`successor_found` for the round's
findings, `arrived`, and `take_rows` (the fans `(Sources or name, targets, ts, exp)`). Cost:
per widening of b, one fan per group of b's followers (by exp), not one row per follower.
"""

from __future__ import annotations

from collections.abc import Hashable

from ..fan_rows import PairRows, Sources
from ..sgt import NEVER
from ..stateful import restore_into, state_of
from .coalescer import Coalescer
from .fan_coverage import FanCoverage
from .product_nodes import COLD, bits
from .sole_sources import FollowerChanges

_NOTHING_APART: dict = {}  # (`_apart` of most calls; never written)


class FollowerRows:
    """`since[f]` per follower f the closure leaves to its caller, `succ` the coverage of the
    followed nodes that are not start nodes, and the rules above. `closure` is the
    LevelClosure, `cover` the output's coverage by source (a FanCoverage)."""

    __slots__ = (
        "since",
        "succ",
        "closure",
        "cover",
        "start",
        "finals",
        "loops",
        "held",
        # views of the closure's followers and of the successors' keys (`__init__`)
        "keyed",
        "successors",
        "edge_exps",
        "followed",
        "groups",
        # the round, from `begin` to `take_rows`
        "now",
        "inserted",
        "pairs",
        "out",
        "fresh",
        "renewed",
        "skip",
        "watch",
        "before",
    )

    STATE_VERSION = 1  # `since`, the successors' coverage and their held rows by source

    def __init__(self, closure, cover: FanCoverage, loops: bool, held: bool = False) -> None:
        self.since: dict[int, int] = {}
        self.succ = FanCoverage()  # successor node -> {vertex: (start, until)}
        self.closure = closure
        self.cover = cover
        self.start = closure.start
        self.finals = frozenset(closure.finals)  # b final: (f, b's vertex) holds with the edge
        self.loops = loops  # interval rows may hold (v, v)
        self.held = held  # start nodes without keys in `cover` are held (interval_rows.py)
        self.keyed = self.succ.keyed()  # the successors with keys
        self.successors, self.edge_exps = closure.followers(), closure.edge_exps()
        self.followed, self.groups = closure.followed(), closure.follower_groups()
        self.now = NEVER
        self.inserted = True
        self.pairs: PairRows | None = None
        self.out: list = []
        self.fresh: list = []
        self.renewed: dict = {}
        self.skip: set | tuple = ()
        self.watch: set | tuple = ()
        self.before: dict = {}

    def __len__(self) -> int:
        return len(self.succ)

    # ---- a round
    def begin(self, changes: FollowerChanges, now: int, inserted: bool, pairs) -> None:
        """Start a round at `now`: take the closure's follower changes (renamed, made rows,
        successors first followed); `inserted`: the findings are an insert's (else a
        rebuild's); `pairs`: where the rows of one source and one target go (None: fans)."""
        self.now, self.inserted, self.pairs = now, inserted, pairs
        self.out, self.before = [], {}
        if changes.renamed:
            self._rename(changes.renamed)
        if changes.made_rows:
            self._take_over(changes.made_rows)
        for b in changes.first_followed:
            self._init(b)
        fresh, renewed = changes.fresh, changes.renewed
        self.fresh, self.renewed = fresh, renewed
        if fresh or renewed:
            # the followers of this round get their rows whole (`arrived`); the successors of
            # the renewed ones keep their ends before the round for the targets they widen
            self.skip = {*fresh, *renewed}
            successors = self.successors
            self.watch = {successors[f] for f in renewed}
        else:
            self.skip = self.watch = ()

    def take_rows(self) -> list:
        """The followers' fans of the round."""
        out, self.out = self.out, []
        return out

    def successor_found(self, b: int, trgs: list, mask: int, level: int) -> None:
        """A finding `(b, mask, level)` of a successor that is not a start node, its vertices
        `trgs`: its coverage widens, and its followers' rows with it."""
        if self.held and b % self.closure.nstates in self.finals and b not in self.keyed:
            # (held, `holds_inner`: as a held start node, its findings logged by node)
            self.succ.hold(b, trgs, self.now, level)
            self.changed_held(b, trgs, mask, level)
            return
        got, starts, olds = self.succ.admit_fan(b, trgs, self.now, level)
        if got:
            self.changed(b, got, starts, olds, level)

    def changed(self, b: int, got: list, starts, olds: list | None, level: int) -> None:
        """The rows of b's followers (but this round's, `arrived`) for a widening of b's
        coverage: the targets `got` widened to `level` from `olds` (None: all new), with
        `starts`, one fan per group of followers with one exp: their edge clips the same
        targets, each row from the later of its target's start and its source's `since`."""
        now = self.now
        if b in self.watch:
            ends = self.before.setdefault(b, {})
            for i, t in enumerate(got):
                ends.setdefault(t, now if olds is None else olds[i])
        closure = self.closure
        own = closure.names[b // closure.nstates]
        if b % closure.nstates in self.finals and own in got:
            keep = [i for i, t in enumerate(got) if t != own]  # (f, b's vertex): its edge's
            if not keep:
                return
            got = [got[i] for i in keep]
            if olds is not None:
                starts = [starts[i] for i in keep]
                olds = [olds[i] for i in keep]
        apart = self._apart(b, got)
        top_old = NEVER if olds is None else max(olds)
        out = self.out
        for e, group in self.groups[b].items():
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
                self._fan(group, apart.get(e), trgs, ts, exp)

    def changed_held(self, b: int, got: list, mask: int, level: int) -> None:
        """`changed` for a held b (`holds`): its finding `(b, mask, level)`, the vertices
        `got`, widened what was emitted for b, each from an end below `level`. A follower's
        edge until e clips a target at e: (f, t) widens iff b's end before was below e, so for
        `e < level` the targets b reached before at a level `>= e` are left out
        (`LevelClosure.reached_before`; for a rebuild's findings `reported_before`). Every row
        starts `now`; a group of one follower and one target goes to `pairs` where given."""
        now = self.now
        if b in self.watch:
            self.before.setdefault(b, {}).update(dict.fromkeys(got, now))
        closure = self.closure
        apart = self._apart(b, got)
        groups = self.groups[b]
        # (one mask first: what b reached before at the lowest edge's exp or above; none of
        # the targets, nearly always, and no group drops any)
        low = min(groups)
        before = closure.reached_before if self.inserted else closure.reported_before
        clipped = low < level and before(b, low) & mask
        pairs, out = self.pairs, self.out
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
                self._fan(group, apart.get(e), trgs, now, exp)

    def arrived(self) -> None:
        """The rows of the followers made (`since` now) or renewed in this round, after its
        rows of their successors (`before[b]`: b's ends before the round for the targets b
        widened in it)."""
        since, now = self.since, self.now
        for f in self.fresh:
            since[f] = now
            self._fresh_rows(f)
        successors = self.successors
        for f, exp_before in self.renewed.items():
            self._rows(f, exp_before, self.before.get(successors[f], {}))

    # ---- the fans of a group
    def _apart(self, b: int, got: list) -> dict:
        """`{exp: {follower: alone}}`: b's followers out of their group's fan, those of this
        round (`skip`: their rows come with `arrived`) and those whose own vertex is a
        target (`alone`: one by one, `_alone`)."""
        closure, skip = self.closure, self.skip
        members = self.followed[b]
        if not skip and len(got) == 1:  # (most calls: one target, no follower of the round)
            v = closure.vid.get(got[0])
            if v is not None:
                f = v * closure.nstates + self.start
                if f in members:
                    return {self.edge_exps[f]: {f: True}}
            return _NOTHING_APART
        apart: dict = {}
        edge_exps = self.edge_exps
        for f in skip:
            if f in members:
                apart.setdefault(edge_exps[f], {})[f] = False
        ns, start = closure.nstates, self.start
        if len(members) < len(got):  # (the fewer read: a cold follower is never a target)
            cold = COLD * ns
            among = set(got)
            name_of = closure.name_of
            for f in members:
                if f < cold and f not in skip and name_of(f // ns) in among:
                    apart.setdefault(edge_exps[f], {})[f] = True
            return apart
        vid = closure.vid
        for t in got:
            v = vid.get(t)
            if v is not None:
                f = v * ns + start
                if f in members and f not in skip:
                    apart.setdefault(edge_exps[f], {})[f] = True
        return apart

    def _fan(self, group, odd: dict | None, trgs: list, ts, exp: int) -> None:
        """The fan of a group of followers (one edge exp) for `trgs`, those in `odd` (its
        members `_apart`) left out, the alone among them one by one."""
        ns, name_of, since = self.closure.nstates, self.closure.name_of, self.since
        if odd is None:
            srcs = group.lists
            if srcs is None:
                fs = group.members
                srcs = Sources([name_of(f // ns) for f in fs], [since[f] for f in fs])
                group.keep(srcs)
        else:
            fs = [f for f in group.members if f not in odd]
            for f, alone in odd.items():
                if alone:
                    self._alone(name_of(f // ns), since[f], trgs, ts, exp)
            if not fs:
                return
            srcs = Sources([name_of(f // ns) for f in fs], [since[f] for f in fs])
        self.out.append((srcs, trgs, ts, exp))

    def _alone(self, name, s: int, trgs: list, ts, exp: int) -> None:
        """The rows of a follower `name` made at `s` whose own vertex is among `trgs`: (f, f)
        is f's own coverage (`_own`), the rest one fan."""
        if type(ts) is not int:
            ts = [st if st > s else s for st in ts]
        if name in trgs:
            trgs, ts = _without(name, trgs, ts)
            if self.loops:
                self._own(name, exp)
        if trgs:
            self.out.append((name, trgs, ts, exp))

    def _own(self, name, exp: int) -> None:
        """A row of (f, f) where b reaches f's own vertex: that key is kept in the coverage
        as any source's, since f's ε-pair (a nullable regex) is admitted there too."""
        row = self.cover.admit((name, name), self.now, exp, self.now)
        if row is not None:
            since, _until = row
            self.out.append((name, [name], since, exp))

    # ---- the rows of a follower made or renewed
    def _fresh_rows(self, f: int) -> None:
        """The rows of f made now: b's live coverage clipped, every key new (from `now`),
        one fan per end."""
        closure, now = self.closure, self.now
        names, ns = closure.names, closure.nstates
        b = self.successors[f]
        own = names[b // ns]
        name = closure.name_of(f // ns)
        e = self.edge_exps[f]
        direct = b % ns in self.finals
        if self.holds(b):  # b's ends read off the closure, level by level
            by_until, b_live = self._held_ends(b, name, e)
        else:
            by_until, b_live = {}, self._live(b, now)
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
                self._own(name, e)
        elif direct:  # (f, b's vertex) with the edge, whatever b's own pair
            _into(by_until, e, own)
        out = self.out
        for until, trgs in by_until.items():
            if trgs:
                out.append((name, trgs, now, until))
        if self.loops:
            cur = b_live.get(name)
            if cur is not None and cur[1] > now:  # (f, f) through b
                self._own(name, cur[1] if cur[1] < e else e)

    def _held_ends(self, b: int, name, e: int) -> tuple[dict, dict]:
        """For `_fresh_rows` of a follower `name` of the held b, its edge until e: `{until:
        targets}` of b's ends clipped at e, and b's own coverage (`(b, b)`, and `(f, f)`
        through b at its level)."""
        closure, now = self.closure, self.now
        ns = closure.nstates
        own = closure.names[b // ns]
        by_until: dict = {}  # until -> targets
        # ((b, b), if any: a start node's own coverage)
        b_live = self.cover.keys_of(own) if b % ns == self.start else {}
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
        if cur is not None and b % ns not in self.finals and own != name and cur[1] > now:
            _into(by_until, cur[1] if cur[1] < e else e, own)
        return by_until, b_live

    def _rows(self, f: int, exp_before: int, ends_before: dict) -> None:
        """The rows of f renewed from `exp_before`: its derived coverage where it grew past
        its ends before the round (`min(exp_before, b's end before)`). For a held b
        (`holds`), `ends_before` names the targets b widened in the round (their ends
        before are not kept): (f, t) grew iff b's end is past `exp_before` or b widened t."""
        closure, now = self.closure, self.now
        names, ns = closure.names, closure.nstates
        b = self.successors[f]
        own = names[b // ns]
        name = closure.name_of(f // ns)
        e = self.edge_exps[f]
        held = self.holds(b)  # (its coverage with starts: the logged rows)
        keys = self._keys(b, f, self.since[f], e, now, held)
        b_live = self._live(b, now, held)
        if self.loops:
            cur = b_live.get(name)
            if cur is not None and cur[1] > now:  # (f, f) through b
                self._own(name, cur[1] if cur[1] < e else e)
        by_until: dict = {}  # until -> (targets, starts)
        direct = b % ns in self.finals
        if direct and own == name and self.loops:  # (f, f) with the edge
            self._own(name, e)
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
        out = self.out
        for until, (trgs, starts) in by_until.items():
            out.append((name, trgs, starts, until))

    # ---- b's coverage
    def holds(self, b: int) -> bool:
        """Whether the successor b is held: its ends are the closure's, no keys of its own
        (a start node's in `cover`, but maybe `(b, b)`, an ε-pair's or a cycle's; an inner
        one's in `succ`, `holds_inner`)."""
        if not self.held:
            return False
        ns = self.closure.nstates
        if b % ns != self.start:
            return self.holds_inner(b, ns)
        return self.cover.keyless(self.closure.names[b // ns])

    def holds_inner(self, b: int, ns: int) -> bool:
        """Whether the successor b, not a start node, is held: its state final ((f, b's
        vertex) holds with f's edge, and the closure leaves it out of b's findings), no keys
        in `succ`, its findings logged there by node (`FanCoverage.hold`)."""
        return self.held and b % ns in self.finals and not self.succ.has_keys(b)

    def direct(self, b: int, y: int, ns: int) -> bool:
        """Whether the final node y that b reaches (as the closure names a vertex, `fold`)
        is b's own vertex with b final: its followers hold it with their edge, not through
        b (with one final state, y is b itself)."""
        return y // ns == b // ns and b % ns in self.finals

    def _live(self, b: int, now, logged: bool = False) -> dict:
        """b's coverage `{vertex: (start, until)}` (stale entries included); a held start
        node's read off the closure's ends after `now`, every key from `now` (a live key's
        rows widen it from inside), or, with `logged`, off its logged rows, with their
        starts (a follower made rows takes them over before the round's rows)."""
        closure = self.closure
        ns = closure.nstates
        if b % ns != self.start:
            if not self.holds_inner(b, ns):
                return self.succ.keys_of(b)
            if logged:
                return self.succ.held_run_of(b, now)
            return {t: (now, level) for level, ts in closure.ends_by_level(b, now) for t in ts}
        name = closure.names[b // ns]
        cover = self.cover
        fan = cover.keys_of(name)
        if not self.held or not cover.keyless(name):
            return fan
        if logged and cover.has_index(name):
            keys = cover.held_run_of(name, now)
        else:
            keys = {t: (now, level) for level, ts in closure.ends_by_level(b, now) for t in ts}
        keys.update(fan)  # ((b, b): its own coverage's)
        return keys

    def _keys(self, b: int, f: int, s: int, e: int, now, logged: bool = False) -> dict:
        """The coverage of a follower f of b made at `s`, its edge holding until `e`: b's live
        coverage clipped (a held b's `logged` rows, `_live`), and b's vertex with the edge
        (b final)."""
        closure = self.closure
        ns = closure.nstates
        own, name = closure.names[b // ns], closure.name_of(f // ns)
        keys: dict = {}
        direct = b % ns in self.finals
        for t, (start, until) in self._live(b, now, logged).items():
            if until <= now or (direct and t == own):
                continue
            keys[t] = (start if start > s else s, until if until < e else e)
        if direct:
            keys[own] = (s, e)
        keys.pop(name, None)  # (f, f) is f's own coverage (`_own`), or no result
        return keys

    def coverage(self, f: int, now) -> dict:
        """`{t: (start, until)}`: the live coverage of the follower f, derived."""
        closure = self.closure
        return self._keys(closure.successor(f), f, self.since[f], closure.edge_exp(f), now)

    # ---- followers that change
    def _init(self, b: int) -> None:
        """b (not a start node) got its first follower: its coverage from the closure's
        levels, every pair starting `now` (its followers are all new now); a held one's
        (`holds_inner`) as its logged rows by node, from its live ends."""
        closure, now = self.closure, self.now
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

    def _take_over(self, made_rows: list) -> None:
        """The followers that became rows (`[(f, b, exp)]`, taken before the round's rows):
        their derived coverage becomes their own. Where b is held, f is held from now on
        too: its reach at each level up to its edge's exp e is b and b's, so b's ends
        clipped at e are f's closure ends, but where the end is a level without a closure
        (b's memo there, or e itself), which f's memo then names
        (`LevelClosure.remember_ends`). Its keys go straight to the held log."""
        closure, cover, now = self.closure, self.cover, self.now
        ns, name_of, followed = closure.nstates, closure.name_of, self.followed
        for f, b, e in made_rows:
            s = self.since.pop(f)
            name = name_of(f // ns)
            keys = self._keys(b, f, s, e, now, True)
            if self.holds_made_rows(name, b):
                closure.remember_ends(f, keys)
                cover.hold_coverage(name, keys, now, index=f in followed)
            else:
                cover.enter(name, keys)

    def holds_made_rows(self, name: Hashable, b: int) -> bool:
        """Whether a follower of b, named `name`, made rows is held at once (`_take_over`):
        b is held and the follower has no keys of its own."""
        return self.held and self.cover.keyless(name) and self.holds(b)

    def hand_over(self, now: int) -> None:
        """Every follower's derived coverage becomes its own (before a hand-over to S-PATH);
        a held successor's coverage with its keys' starts, from the held log."""
        closure = self.closure
        ns, name_of = closure.nstates, closure.name_of
        for f in list(self.since):
            if closure.derived(f):
                b = closure.successor(f)
                keys = self._keys(b, f, self.since[f], closure.edge_exp(f), now, True)
                self.cover.enter(name_of(f // ns), keys)
        self.since.clear()

    def _rename(self, renamed: dict) -> None:
        """Followers whose node changed (`{old: new}`, state/level_closure.py `_promote`)."""
        since = self.since
        for old, new in renamed.items():
            s = since.pop(old, None)
            if s is not None:
                since[new] = s

    def prune(self, now: int) -> None:
        """Forget the followers the closure forgot (their edge expired), the successors left
        without followers, and the coverage that ended by `now`."""
        closure, since, succ = self.closure, self.since, self.succ
        for f in [f for f in since if not closure.derived(f)]:
            del since[f]
        followed = closure.followed()
        for b in [b for b in succ.sources() if b not in followed]:
            succ.forget(b)
        for b in [b for b in succ.indexed() if b not in followed]:
            succ.unindex(b)
        succ.purge(now)

    # ---- checkpoints and checks
    def state(self) -> dict:
        # (the held successors' logged rows as their keys; and the rows of those with
        # followers by source, `logged`: restored, their keys go back to the log, and their
        # rows by source are those saved, which hold the live ends the log never had)
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
        self.keyed = self.succ.keyed()
        # a held successor with followers reads its coverage off its rows by source
        logged = state["logged"]
        for src, _rows in logged:
            if self.succ.has_keys(src):
                self.succ.hold_keys(src, NEVER)
        self.succ.restore_index(logged)

    def _check(self, after: float = NEVER) -> None:
        """Every follower the closure leaves to the caller has its `since`; a successor that
        is not a start node covers what it reaches at every level `> after`."""
        closure = self.closure
        for f in closure.followers():
            if closure.derived(f):
                assert f in self.since, f
        ns = closure.nstates
        for b in closure.followed():
            if b % ns == self.start:
                continue
            if self.holds_inner(b, ns):
                self._check_held_successor(b, after)
                continue
            live = self.succ.keys_of(b)
            for y, level in closure.bottlenecks(b).items():
                if level > after and not self.direct(b, y, ns):
                    cur = live.get(closure.names[y // ns])
                    assert cur is not None and cur[1] >= level, (b, y, level, cur)
        self.succ._check()

    def _check_held_successor(self, b: int, after: float) -> None:
        """A held successor's logged ends are exactly the closure's."""
        closure = self.closure
        ns = closure.nstates
        assert self.succ.has_index(b), ("a held successor without its rows", b)
        live_exps = set(closure.exps)  # (a level `overdue` dropped is over: its rows ended)
        live = {t: cur for t, cur in self.succ.held_run_of(b, after).items() if cur[1] in live_exps}
        ends = {
            closure.names[y // ns]: level
            for y, level in closure.bottlenecks(b, after).items()
            if not self.direct(b, y, ns)
        }
        assert {t: cur[1] for t, cur in live.items()} == ends, (b, live, ends)


def _group(by_until: dict, until: int, t, start: int) -> None:
    got = by_until.get(until)
    if got is None:
        by_until[until] = ([t], [start])
    else:
        got[0].append(t)
        got[1].append(start)


def _without(name: Hashable, trgs: list, ts) -> tuple[list, object]:
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
