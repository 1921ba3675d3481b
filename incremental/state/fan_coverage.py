"""What the closure PATH's interval rows emitted, kept by source vertex (state/interval_rows.py):
a Coalescer's rules (state/coalescer.py, thesis Def 11, specs/semantics.md §2 and §5) in the
shape the closure finds its results in.

A round's findings are fans: a start vertex x widens a set of target vertices to one bottleneck
L at once (state/level_closure.py `insert`). So the coverage is `{x: {y: (start, until)}}`, and
one expiry entry per fan holds x and the fan's target list (the list the rows were made of: no
copy), not a key tuple, a hash and an expiry entry per row: a purge reads each target once per
widening, never a source's other targets. A row goes out only where it widens what was emitted
for its key, a live key keeps its start, an expired key counts as absent.

*Held* sources (state/interval_rows.py) keep no keys here: their findings are exactly their
widenings, so their rows are only logged, one entry per fan (`hold`, `hold_all`), for the
readers that need their starts: a follower made rows and the hand-over to S-PATH
(`coalescer(held=True)`), which also take the rows by source of a held source with followers
(`index`). A source held again after it kept keys has them moved to the log (`hold_keys`).

Cost: O(1) per target admitted, one expiry entry per call; a purge O(targets its expired
entries name), or one pass over a source's keys where they name many of them (`SWEEP`). The
why of held sources: docs/design/path-closure.md.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from typing import Any

from ..stateful import restore_into, state_of
from .coalescer import Coalescer
from .expiry import ExpiryBuckets

_NO_KEYS: dict = {}  # (`keys_of` a source without keys; never written)


class FanCoverage:
    """`admit_fan(x, ys, now, exp)`: the targets whose rows widen the coverage, and starts."""

    __slots__ = ("live", "heap", "held", "held_of", "kept")

    def __init__(self) -> None:
        self.live: dict = {}  # src -> {trg: (start, until)} (fans share their tuples)
        self.heap = ExpiryBuckets()  # until -> (src, targets widened to it) (or stale)
        # until -> (src, targets, start, until): held sources' rows; the same by source for
        # the held sources with followers (`index`: their followers made rows take starts
        # from them), each list swept of its expired entries when it doubled since the last
        self.held = ExpiryBuckets()
        self.held_of: dict = {}
        self.kept: dict = {}  # src -> the length of its list after its last sweep

    def hold(self, src: Hashable, trgs: list, start: int, until: int) -> None:
        """Log the rows `[start, until)` of src's targets `trgs`, a held source's."""
        entry = (src, trgs, start, until)
        self.held.add(until, entry)
        if self.held_of:
            got = self.held_of.get(src)
            if got is not None:
                self._indexed(src, got, entry)

    def hold_all(self, srcs: list, trgs: list, start: int, until: int) -> None:
        """`hold` of each held source in `srcs` for the same rows, one log entry for all (an
        insert's findings share their targets: every ancestor of the edge gains one set)."""
        self.held.add(until, (srcs, trgs, start, until))  # (a list: never a vertex)
        held_of = self.held_of
        if held_of:
            for src in srcs:
                got = held_of.get(src)
                if got is not None:
                    self._indexed(src, got, (src, trgs, start, until))

    def _indexed(self, src: Hashable, got: list, entry: tuple) -> None:
        """Append a held row to src's list, swept of its ended rows when it doubled."""
        got.append(entry)
        if len(got) >= 2 * self.kept[src]:  # (the row starts at the round's instant, or before)
            start = entry[2]
            got[:] = [e for e in got if e[3] > start]
            self.kept[src] = max(len(got), 8)

    def held_entries(self) -> Iterator[tuple]:
        """`(until, src, targets, start)` of each logged row, one per source of an entry
        `hold_all` made."""
        for until, (src, trgs, start, _until) in self.held.pairs():
            if type(src) is list:
                for s in src:
                    yield until, s, trgs, start
            else:
                yield until, src, trgs, start

    def index(self, src: Hashable, runs: list) -> None:
        """Keep src's held rows by source from now on (it got followers), from `runs`
        (`[(trgs, start, until)]`: its live ends, the rows logged before not read)."""
        self.held_of[src] = [(src, trgs, start, until) for trgs, start, until in runs]
        self.kept[src] = max(len(runs), 8)

    def unindex(self, src: Hashable) -> None:
        """Stop keeping src's held rows by source (it has no followers now)."""
        self.held_of.pop(src, None)
        self.kept.pop(src, None)

    def indexed(self) -> list:
        """The sources whose held rows are kept by source."""
        return list(self.held_of)

    def has_index(self, src: Hashable) -> bool:
        return src in self.held_of

    def keyless(self, src: Hashable) -> bool:
        """Whether src has no keys here but maybe `(src, src)` (an ε-pair's or a cycle's,
        kept for every source): a held source's (state/interval_rows.py)."""
        fan = self.live.get(src)
        return fan is None or (len(fan) == 1 and src in fan)

    def admit_fan(
        self, src: Hashable, trgs: list, now: int, exp: int
    ) -> tuple[list, Any, list | None]:
        """`Coalescer.admit(key, now, exp, now)` (`now < exp`) of each key `(src, trg)`: the
        targets whose coverage this widens, each a row `[start, exp)` to emit, their starts:
        `now` when they all start then, else a list (a live key keeps its start), and their
        ends before (None when they all start now, else a list beside them, `now` for a key
        that was not live: state/follower_rows.py reads what a widening moved). The targets
        are `trgs` itself when every one widens (nearly always: the closures report only
        bottlenecks that grew), else a new list. O(1) per target, the new keys sharing one
        `(now, exp)` (a widened key gets its own), one expiry entry per call."""
        fan = self.live.get(src)
        if fan is None:
            if not trgs:
                return trgs, now, None
            fan = self.live[src] = {}  # holds a target below: each was covered by nothing
        if len(trgs) == 1:  # (most calls: one target, no lists to build)
            trg = trgs[0]
            cur = fan.get(trg)
            if cur is None or cur[1] <= now:
                fan[trg] = (now, exp)
                self.heap.add(exp, (src, trgs))
                return trgs, now, None
            if exp > cur[1]:
                fan[trg] = (cur[0], exp)
                self.heap.add(exp, (src, trgs))
                return trgs, [cur[0]], [cur[1]]
            return [], now, None
        got = None  # the widening targets, once one is not
        starts = olds = None  # their starts and ends before, once one was live
        fresh = (now, exp)  # one tuple for every new key of the call
        for i, trg in enumerate(trgs):
            cur = fan.get(trg)
            if cur is None or cur[1] <= now:
                fan[trg] = fresh
                if starts is not None:
                    starts.append(now)
                    olds.append(now)
            elif exp > cur[1]:
                fan[trg] = (cur[0], exp)
                if starts is None:
                    before = i if got is None else len(got)
                    starts = [now] * before
                    olds = [now] * before
                starts.append(cur[0])
                olds.append(cur[1])
            else:  # covered already (a target twice: two final states of one vertex)
                if got is None:
                    got = trgs[:i]
                continue
            if got is not None:
                got.append(trg)
        if got is None:
            got = trgs
        if got:
            self.heap.add(exp, (src, got))
        if starts is None:
            return got, now, None
        return got, starts, olds

    def admit_pairs(self, srcs: list, trgs: list, now: int, exp: int) -> tuple[list, list, list]:
        """`admit_fan` of the one-target fans `(srcs[i], [trgs[i]])`, in order, all to `exp`:
        the sources, targets and starts of the keys this widens. One expiry entry for all,
        the sources beside the targets (a source's keys are not read per call)."""
        live = self.live
        fresh = (now, exp)  # one tuple for every new key
        got_s: list = []
        got_t: list = []
        starts: list = []
        for src, trg in zip(srcs, trgs):
            fan = live.get(src)
            if fan is None:
                live[src] = {trg: fresh}
                start = now
            else:
                cur = fan.get(trg)
                if cur is None or cur[1] <= now:
                    fan[trg] = fresh
                    start = now
                elif exp > cur[1]:
                    start = cur[0]
                    fan[trg] = (start, exp)
                else:  # covered already (two final states of one vertex)
                    continue
            got_s.append(src)
            got_t.append(trg)
            starts.append(start)
        if got_s:
            self.heap.add(exp, (got_s, got_t))  # (a list of sources: never a vertex)
        return got_s, got_t, starts

    def ends_above(self, src: Hashable, now: int, levels: list) -> dict | None:
        """Whether src's keys live after `now`, `(src, src)` left out, are exactly the
        targets of `levels` (`[(level, [trg, ...])]`), each ending at its level or later:
        then `{end: [trg, ...]}` of those ending later than their level (maybe empty), else
        None (none live, a target missing or ending earlier, a key not named)."""
        fan = self.live.get(src)
        if not fan:
            return None
        own = fan.get(src)
        keys = sum(1 for cur in fan.values() if cur[1] > now)
        if own is not None and own[1] > now:
            keys -= 1
        if not keys:
            return None
        above: dict = {}
        named = 0
        for level, trgs in levels:
            for t in trgs:
                cur = fan.get(t)
                if cur is None or cur[1] < level:
                    return None
                if cur[1] != level:
                    got = above.get(cur[1])
                    if got is None:
                        above[cur[1]] = [t]
                    else:
                        got.append(t)
            named += len(trgs)
        return above if named == keys else None

    def hold_keys(self, src: Hashable, now: int, index: bool = False) -> None:
        """Make src a held source: its keys live after `now` go to the held log as rows (one
        entry per start and end), `(src, src)` stays a key; with `index` (src has
        followers) they are kept by source too."""
        fan = self.live.pop(src, None)
        if not fan:
            return
        self.hold_coverage(src, fan, now, index)
        own = fan.get(src)
        if own is not None:
            self.live[src] = {src: own}

    def hold_coverage(self, src: Hashable, keys: dict, now: int, index: bool = False) -> None:
        """Log `keys` `{trg: (start, until)}` live after `now`, `(src, src)` left out, as the
        held source src's rows (one entry per start and end); with `index` (src has
        followers) kept by source too."""
        if index and src not in self.held_of:
            self.index(src, [])
        runs: dict = {}
        for t, span in keys.items():
            if t != src and span[1] > now:
                got = runs.get(span)
                if got is None:
                    runs[span] = [t]
                else:
                    got.append(t)
        for (start, until), trgs in runs.items():
            self.hold(src, trgs, start, until)

    def enter(self, src: Hashable, keys: dict) -> None:
        """Take `{trg: (start, until)}` as src's emitted coverage (a sole-edge source's
        derived coverage, made its own when it becomes rows: state/follower_rows.py)."""
        if not keys:
            return
        fan = self.live.get(src)
        if fan is None:
            fan = self.live[src] = {}
        fan.update(keys)
        ends: dict = {}
        for trg, (_start, until) in keys.items():
            got = ends.get(until)
            if got is None:
                ends[until] = [trg]
            else:
                got.append(trg)
        for until, trgs in ends.items():
            self.heap.add(until, (src, trgs))

    def replace(self, src: Hashable, keys: dict) -> None:
        """`keys` `{trg: (start, until)}` as src's whole coverage (what it had is dropped)."""
        self.live.pop(src, None)
        self.enter(src, keys)

    def forget(self, src: Hashable) -> None:
        """Drop src's coverage (its expiry entries become stale)."""
        self.live.pop(src, None)

    def admit(self, key: tuple, ts: int, exp: int, now: int) -> tuple[int, int] | None:
        """`Coalescer.admit` of one key `(src, trg)` (the ε-pairs of a nullable regex): the
        row to emit, `(start, exp)`, a live key's with its start, or None."""
        if exp <= now:
            return None
        src, trg = key
        fan = self.live.get(src)
        if fan is None:
            fan = self.live[src] = {}
        cur = fan.get(trg)
        if cur is None or cur[1] <= now:
            start = ts
        elif exp > cur[1]:
            start = min(ts, cur[0])
        else:
            return None
        fan[trg] = (start, exp)
        self.heap.add(exp, (src, [trg]))
        return (start, exp)

    #: a source whose expired entries name at least 1/SWEEP of its targets is swept whole
    #: (one comprehension over its targets), the others target by target (see `purge`)
    SWEEP = 8

    def purge(self, now: int) -> None:
        """Forget the keys whose coverage ended at or before `now`. Every such key has an
        expiry entry at or before `now` naming its source, so the expired entries say which
        sources to look at and how many targets each names (widened keys among them). A
        source named at least `len(fan) / SWEEP` times is swept: its ended targets are found
        by one comprehension over its fan, then deleted. The others are read target by
        target from their entries, a lookup each in a large dict, most of them for keys
        widened since."""
        self.held.expired(now)
        expired = self.heap.expired(now)
        if not expired:
            return
        named: dict = {}  # src -> how many targets its expired entries name
        get = named.get
        for src, trgs in expired:
            if type(src) is list:  # (`admit_pairs`)
                for s in src:
                    named[s] = get(s, 0) + 1
            else:
                named[src] = get(src, 0) + len(trgs)
        swept = self._sweep(named, now)
        if swept and len(swept) == len(named):
            return
        live = self.live
        for src, trgs in expired:
            if type(src) is list:  # (`admit_pairs`: a source beside each target)
                for s, t in zip(src, trgs):
                    fan = None if s in swept else live.get(s)
                    if fan is not None:
                        cur = fan.get(t)
                        if cur is not None and cur[1] <= now:
                            del fan[t]
                            if not fan:
                                del live[s]
                continue
            if src in swept:
                continue
            fan = live.get(src)
            if fan is None:
                continue
            for trg in trgs:
                cur = fan.get(trg)
                if cur is not None and cur[1] <= now:
                    del fan[trg]
            if not fan:
                del live[src]

    def _sweep(self, named: dict, now: int) -> set | tuple:
        """Sweep the sources `named` (`{src: targets named}`) at least `len(fan) / SWEEP`
        times: their ended targets found by one comprehension over their fan. Returns them
        (their entries are not read)."""
        live, sweep = self.live, self.SWEEP
        swept = None
        for src, n in named.items():
            fan = live.get(src)
            if fan is None:
                continue
            if n * sweep >= len(fan):
                ended = [t for t, cur in fan.items() if cur[1] <= now]
                if len(ended) == len(fan):
                    del live[src]
                else:
                    for t in ended:
                        del fan[t]
                if swept is None:
                    swept = {src}
                else:
                    swept.add(src)
        return () if swept is None else swept

    def keys_of(self, src: Hashable) -> dict:
        """`{trg: (start, until)}` of src's keys (stale ones included; read, never changed)."""
        return self.live.get(src, _NO_KEYS)

    def has_keys(self, src: Hashable) -> bool:
        return src in self.live

    def keyed(self) -> dict:
        """`{src: {trg: (start, until)}}` of the sources with keys (read, never changed; a
        view that follows the coverage until it is restored)."""
        return self.live

    def sources(self) -> list:
        """The sources with keys."""
        return list(self.live)

    def until(self, key: tuple) -> int | None:
        """The end of the coverage emitted for `key` (possibly `<= now`: over), or None."""
        cur = self.live.get(key[0], {}).get(key[1])
        return None if cur is None else cur[1]

    def __len__(self) -> int:
        return sum(len(fan) for fan in self.live.values()) + len(self.held)

    # ---- as a Coalescer
    def coalescer(self, held: bool = False) -> Coalescer:
        """A Coalescer holding the same coverage (the S-PATH hand-over, checkpoints); with
        `held`, the held sources' logged rows too, each key's coalesced (its rows from every
        source: a held source's keys may be its own since it got followers), the run that
        reaches its largest end kept."""
        out = Coalescer()
        if held and len(self.held):
            for (src, trg), (start, until) in self._runs().items():
                out.adopt((src, trg), start, until)
            return out
        for src, fan in self.live.items():
            for trg, (start, until) in fan.items():
                out.adopt((src, trg), start, until)
        return out

    def held_run_of(self, src: Hashable, now: int) -> dict:
        """`{trg: (start, until)}` of src's logged rows live after `now`, each target's
        coalesced (the run reaching its largest end): a held source's coverage with its
        keys' starts (state/follower_rows.py: a follower made rows takes them)."""
        spans: dict = {}
        # (the rows that ended by `now` left out, whether a purge dropped them yet or not:
        # a resumed run, whose log has none of those, reads the same)
        live = [entry for entry in self.held_of.get(src, ()) if entry[3] > now]
        for _src, trgs, start, until in sorted(live, key=_by_start):
            for trg in trgs:
                cur = spans.get(trg)
                if cur is None or start > cur[1]:  # (a break: a later run)
                    spans[trg] = (start, until)
                elif until > cur[1]:
                    spans[trg] = (cur[0], until)
        return spans

    def _runs(self) -> dict:
        """`{(src, trg): (start, until)}`: each key's rows in the held log and its own
        coverage coalesced, the run that reaches its largest end."""
        spans: dict = {}
        for src, fan in self.live.items():
            for trg, span in fan.items():
                spans[src, trg] = [span]
        for until, src, trgs, start in self.held_entries():
            for trg in trgs:
                got = spans.get((src, trg))
                if got is None:
                    spans[src, trg] = [(start, until)]
                else:
                    got.append((start, until))
        out: dict = {}
        for key, got in spans.items():
            got.sort()
            start, until = got[0]
            for s, u in got[1:]:
                if s > until:  # a break: a later run
                    start = s
                if u > until:
                    until = u
            out[key] = (start, until)
        return out

    def held_state(self) -> list:
        """The held sources' logged rows, `[[until, src, targets, start], ...]` (checkpoints:
        the keys' own coverage goes as the Coalescer's)."""
        return [[until, src, trgs, start] for until, src, trgs, start in self.held_entries()]

    def index_state(self) -> list:
        """The held rows kept by source, `[[src, [[until, targets, start], ...]], ...]`."""
        return [
            [src, [[until, trgs, start] for _s, trgs, start, until in got]]
            for src, got in self.held_of.items()
        ]

    def restore_index(self, saved: list) -> None:
        for src, got in saved:
            self.index(src, [(list(trgs), int(start), int(until)) for until, trgs, start in got])

    def restore_held(self, rows: list) -> None:
        for until, src, trgs, start in rows:
            self.hold(src, list(trgs), int(start), int(until))

    @classmethod
    def of(cls, coalescer: Coalescer) -> FanCoverage:
        """The coverage a Coalescer holds (a restored checkpoint)."""
        out = cls()
        out._load(coalescer)
        return out

    def _load(self, coalescer: Coalescer) -> None:
        """Take the keys of `coalescer` (this coverage holding none)."""
        ends: dict = {}  # (until, src) -> targets
        for (src, trg), (start, until) in coalescer.live.items():
            self.live.setdefault(src, {})[trg] = (start, until)
            ends.setdefault((until, src), []).append(trg)
        for (until, src), trgs in ends.items():
            self.heap.add(until, (src, trgs))

    STATE_VERSION = 1  # the keys (as a Coalescer's), the held log, the held rows by source

    def state(self) -> dict:
        return {
            "keys": state_of(self.coalescer()),
            "held": self.held_state(),
            "held_by_source": self.index_state(),
        }

    def restore(self, state: dict) -> None:
        keys = Coalescer()
        restore_into(keys, state["keys"])
        self.__init__()
        self._load(keys)
        self.restore_held(state["held"])
        self.restore_index(state["held_by_source"])

    def _check(self) -> None:
        """Invariants: intervals non-empty, no empty fan, and an expiry entry naming the source
        at every target's end."""
        self.heap._check()
        self.held._check()
        assert set(self.held_of) == set(self.kept), "an index without its length"
        entries = {(until, *key) for until, entry in self.heap.pairs() for key in _keys_of(entry)}
        for src, fan in self.live.items():
            assert fan, src
            for trg, (start, until) in fan.items():
                assert start < until, (src, trg, start, until)
                assert (until, src, trg) in entries, (src, trg, until)


def _by_start(entry: tuple) -> tuple:
    """A held log entry's `(start, until)`: runs coalesce in start order."""
    return entry[2], entry[3]


def _keys_of(entry: tuple) -> Iterator[tuple]:
    """The keys `(src, trg)` an expiry entry `(src, targets)` names (one of `admit_pairs`: a
    list of sources beside the targets)."""
    src, trgs = entry
    if type(src) is list:
        return zip(src, trgs)
    return ((src, trg) for trg in trgs)
