"""The interval rows of a PATH on level closures: one object from a round's product edges to
its rows (operators/path_closure.py delegates to it while it gives interval rows).

Contract: `insert(edges, now, result)` adds a round's product edges `(a, b, exp)` to the
closure, whose findings `(source, targets, level)` become rows `(src, trg, start, exp)` in
`result`: a row only where it widens what was emitted for its key, a live key keeping its
start, one row per key and round, the same validity per key as S-PATH's. `begin` and `end`
frame a round, `overdue` widens the lower-bound ends that came up (coarse levels), `purge`
forgets what ended, `handed_over` gives what was emitted as a Coalescer; `state`, `restore`,
`_check`. Nothing outside reads its parts:

- `closure` (state/level_closure.py): the closures per expiry level, coarse levels, memos;
- `cover` (state/fan_coverage.py): what was emitted, by source, and the held sources' log;
- `follow` (state/follower_rows.py): the followers' rows, derived from their successor's.

A start node is *held* (`held`: where only the engine's output reads the rows) while it has no
keys of its own: its emitted ends are the closure's, so its findings are its widenings. It
has keys only when it was a follower made rows whose successor was not held, and is held again
(`_rehold`) once its ends are the closure's. One round's rows: state/round_rows.py. The why: docs/design/path-closure.md.

Cost per round: the closure's inserts (state/level_closure.py), O(1) per finding of a held
node sharing the previous one's targets, else O(targets), and one fan per group of followers.
"""

from __future__ import annotations

from ..fan_rows import FanRows
from ..sgt import NEVER
from ..stateful import restore_into, state_of
from .closure_mode import ClosureMode
from .coalescer import Coalescer
from .fan_coverage import FanCoverage
from .follower_rows import FollowerRows
from .level_closure import LevelClosure
from .product_nodes import bits
from .round_rows import RoundRows


class IntervalRows(ClosureMode):
    """A PATH's interval rows over per-level closures of its product graph."""

    STATE_VERSION = 1  # the closure, the coverage, the followers, the clock

    __slots__ = ("cover", "follow", "followed", "held", "loops", "clock")

    def __init__(self, auto, moves: list, loops: bool, fans: bool, cycles: bool) -> None:
        """`auto`: the closures' automaton; `moves[port]`: its transitions `(p, q)` on the
        port's letter; `loops`: rows may hold `(v, v)`; `fans`: only the engine's output
        reads the rows (they go out as fans, sources are held, levels may go coarse);
        `cycles`: `(x, x)` is a cycle's result (LevelClosure)."""
        closure = LevelClosure(
            auto.size, auto.start, auto.finals, derive=True, cycles=cycles, deferring=fans
        )
        super().__init__(closure, moves, fans, cold=True)  # (a new source may be a follower)
        self.cover = FanCoverage()
        self.held = fans
        self.follow = FollowerRows(closure, self.cover, loops, self.held)
        self.followed = closure.followed()  # (a view)
        self.loops = loops
        self.clock = NEVER  # coarse levels: the last round or purge (a level at it may stay)

    # ---- a round
    def begin(self, now: int) -> list:
        """Before a round at `now`: drop the levels `<= now`; with coarse levels, those
        before `now`, widening what goes on past them (rows, returned), each at its level."""
        closure = self.closure
        if not closure.deferring:
            closure.drop(now)
            return []
        early: list = []
        if closure.due(now - 1):
            for level, found in closure.drop_widening(now - 1):
                self._rows(found, level, early)
        closure.forget_sources(now)
        return early

    def insert(self, edges: list, now: int, result) -> float:
        """The round's product edges into the closure, and the rows of its findings. Returns
        the bitset words the closure spent (`take_work`)."""
        closure = self.closure
        found = closure.insert(edges)
        if closure.deferring:  # a result whose highest level is `now` is not valid at `now`
            found = [(x, m, level) for x, m, level in found if level > now]
        self._rows(found, now, result, inserted=True)
        return closure.take_work()

    def admit_epsilon(self, batch: list, now: int, result) -> None:
        """The ε-pairs `(v, v)` of the domain's tuples (a nullable regex), through the
        coverage."""
        admit = self.cover.admit
        for v, _v, ts, exp, _wit in batch:
            got = admit((v, v), ts, exp, now)
            if got is not None:
                start, end = got
                result.append((v, v, start, end, None))

    def end(self, now: int, result) -> None:
        """After a round at `now`, with coarse levels: the level at `now` goes, what goes on
        past it widened at `now` where the round did not widen it further."""
        closure = self.closure
        if closure.deferring:
            self.clock = now
            if closure.due(now):
                for level, found in closure.drop_widening(now):
                    self._rows(found, level, result)

    def _rows(self, found: list, now: int, result, inserted: bool = False) -> None:
        """The rows of `found` (an insert's findings, or a rebuild's), then the followers'."""
        closure = self.closure
        if not found and not closure.followers_changed():
            return
        follow = self.follow
        rnd = RoundRows(
            closure, self.cover, follow, self.followed, self.held, self.loops, now, result
        )
        changes = closure.take_followers()
        follow.begin(changes, now, inserted, rnd.follower_pairs)
        if self.held and changes.fresh:  # a held successor keeps its rows by source
            successors = closure.followers()
            for f in changes.fresh:
                self._index(successors[f], now)
        again = rnd.take(found)
        follow.arrived()
        for x in again:
            self._rehold(x, now)
        rnd.finish(follow.take_rows())

    # ---- between rounds
    def defers_rows(self) -> bool:
        """With coarse levels an emitted end is a lower bound, widened when it comes up."""
        return self.closure.deferring

    def coarsen(self, every: int) -> None:
        """Coarse levels from now on (where the rows may defer, and not yet)."""
        closure = self.closure
        if closure.deferring and closure.every == 1:
            closure.coarsen(every)

    def overdue(self, upto: float) -> FanRows | list:
        """The rows widening the results whose emitted ends are at or before `upto`: the
        levels up to it are dropped, each at its own instant."""
        rows = self.new_rows()
        for level, found in self.closure.drop_widening(upto):
            self._rows(found, level, rows)
        return rows

    def purge(self, now: int) -> None:
        closure = self.closure
        if closure.deferring:
            # the levels before `now` went by `overdue`; the level at `now` goes after the
            # round at `now`, or by `overdue` after it
            self.clock = now
            closure.recycle_before(now)
        else:
            closure.drop(now)
            closure.purge(now)
        self.cover.purge(now)
        self.follow.prune(now)
        if self.held:
            self._index_held(now)

    def settle(self, frontier: float) -> None:
        """Nothing: rows carry their ends."""

    def handed_over(self, now: int) -> Coalescer:
        """What was emitted, as the Coalescer S-PATH takes over (the followers' derived
        coverage made their own, the held log coalesced by key)."""
        self.follow.hand_over(now)
        return self.cover.coalescer(held=True)

    def __len__(self) -> int:
        return len(self.closure) + len(self.cover) + len(self.follow)

    # ---- held sources
    def _rehold(self, x: int, now: int) -> None:
        """Hold the start node x again where its emitted ends are the closure's: each live
        key's end is the highest level whose closure or memo holds it, or a live level
        without a closure above that, which x's memo then names (`LevelClosure.remember`).
        Its keys go to the held log (`FanCoverage.hold_keys`)."""
        closure, cover = self.closure, self.cover
        xv = closure.names[x // closure.nstates]
        above = cover.ends_above(xv, now, closure.ends_by_level(x, now))
        if above is None:
            return
        memo = closure.memo_of(above)
        if memo is None:
            return
        closure.remember(x, memo)
        cover.hold_keys(xv, now, index=x in closure.followed())

    def _index(self, b: int, now: int) -> None:
        """Keep the held rows of b by source from now on, from its live ends, if b is a held
        start node (a follower made rows takes its keys' starts from them)."""
        closure, cover = self.closure, self.cover
        if b % closure.nstates == closure.start:
            bv = closure.names[b // closure.nstates]
            if cover.keyless(bv) and not cover.has_index(bv):
                self._index_ends(b, bv, now)

    def _index_ends(self, b: int, bv, now: int) -> None:
        """Keep the held rows of the start node b (vertex bv) by source, from its live ends."""
        ends = self.closure.ends_by_level(b, now)
        self.cover.index(bv, [(trgs, now, level) for level, trgs in ends])

    def _index_held(self, now: int) -> None:
        """After a purge: the held sources left without followers keep no rows by source,
        and a start node with followers whose coverage the purge emptied (held now) keeps
        them from now on."""
        closure, cover = self.closure, self.cover
        ns, start, vid = closure.nstates, closure.start, closure.vid
        followed = closure.followed()
        for src in cover.indexed():
            v = vid.get(src)
            if v is None or v * ns + start not in followed:
                cover.unindex(src)
        names, keyless, has_index = closure.names, cover.keyless, cover.has_index
        for b in followed:
            if b % ns == start:
                bv = names[b // ns]
                if keyless(bv) and not has_index(bv):
                    self._index_ends(b, bv, now)

    def describe(self) -> dict:
        """The bookkeeping by vertex name, for people (docs/design/path-closure.md): the
        levels with a closure and the live exps, the memos, the keys, the held log and the
        followers `{follower: (successor, edge exp, since)}`."""
        closure, cover = self.closure, self.cover
        ns, names = closure.nstates, closure.names
        follow = self.follow
        return {
            "levels": list(closure.levels),
            "exps": list(closure.exps) if closure.deferring else list(closure.levels),
            "memos": {
                level: {names[x // ns]: sorted(closure.final_names(m)) for x, m in got.items()}
                for level, got in closure.memos()
            },
            "keys": {src: dict(cover.keys_of(src)) for src in cover.sources()},
            "held": sorted(
                (src, sorted(trgs), start, until)
                for until, src, trgs, start in cover.held_entries()
            ),
            "followers": {
                closure.name_of(f // ns): (names[b // ns], closure.edge_exp(f), follow.since.get(f))
                for f, b in closure.followers().items()
            },
        }

    # ---- checkpoints and checks
    def state(self) -> dict:
        return {
            "closure": state_of(self.closure),
            "coverage": state_of(self.cover),
            "followers": state_of(self.follow),
            "clock": self.clock,
        }

    def restore(self, state: dict) -> None:
        restore_into(self.cover, state["coverage"])
        restore_into(self.closure, state["closure"])
        restore_into(self.follow, state["followers"])
        self.clock = state["clock"]

    def _check(self, inputs: list) -> None:
        """Invariants: the closure is that of the input indexes' tuples (`inputs`), every
        result a level holds was emitted until that level at least (a follower's as derived),
        a held source's logged ends are exactly the closure's."""
        closure = self.closure
        closure._check(closure.graph_of(inputs, self.moves))
        self.cover._check()
        self.follow._check(self.clock)
        held: dict = {}  # (src, trg) -> the end of its logged rows
        for end, src, trgs, _start in self.cover.held_entries():
            for trg in trgs:
                if end > held.get((src, trg), NEVER):
                    held[src, trg] = end

        def until(key: tuple) -> int | None:
            src, trg = key
            if src != trg and self.cover.keyless(src):
                return held.get(key)
            return self.cover.until(key)

        self._check_emitted(until)
        if self.held:
            self._check_held(held)

    def _check_emitted(self, until) -> None:
        """What a level above the clock holds, or a memo names, was emitted until then."""
        closure = self.closure
        ns, start, finals = closure.nstates, closure.start, closure.finals
        for level in closure.levels:
            if level <= self.clock:
                continue  # (coarse levels: a level at the last round may be there, gone)
            for x, m in closure.rows(level).items():
                if x % ns != start:
                    continue
                xv = closure.name_of(x // ns)
                derived = self.follow.coverage(x, NEVER) if closure.derived(x) else None
                for y in bits(m):
                    if y % ns in finals and y != x and (self.loops or y // ns != x // ns):
                        yv = closure.names[y // ns]
                        if derived is None or yv == xv:  # ((f, f): its own coverage)
                            end = until((xv, yv))
                        else:
                            _start, end = derived.get(yv, (None, None))
                        assert end is not None and end >= level, (xv, y, level, end)
        for level, found in closure.memos():  # (a followed node's: FollowerRows._check)
            for x, m in found.items():
                if x % ns != start:
                    continue
                xv = closure.name_of(x // ns)
                for y in bits(m):
                    if y // ns != x // ns or self.loops:
                        end = until((xv, closure.names[y // ns]))
                        assert end is not None and end >= level, (xv, y, level, end)

    def _check_held(self, held: dict) -> None:
        """A held start node with followers keeps its rows by source; a held source's logged
        ends are exactly the closure's (its findings its widenings)."""
        closure, cover = self.closure, self.cover
        ns, start = closure.nstates, closure.start
        for b in closure.followed():
            bv = closure.names[b // ns]
            if b % ns == start and cover.keyless(bv):
                assert cover.has_index(bv), ("a held successor without its rows", bv)
        live_exps = set(closure.exps)
        for x in closure.reported_sources():
            xv = closure.name_of(x // ns)
            if x % ns != start or closure.derived(x) or not cover.keyless(xv):
                continue
            want = {t: level for level, ts in closure.ends_by_level(x, self.clock) for t in ts}
            logged = {  # (a level `overdue` dropped is over: its rows ended)
                trg: end
                for (src, trg), end in held.items()
                if src == xv and trg != xv and end > self.clock and end in live_exps
            }
            assert logged == want, (xv, logged, want)
