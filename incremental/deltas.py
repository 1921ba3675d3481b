"""The delta view of interval results: `(τ, '+'|'-', src, trg, label)` (specs/semantics.md §5).

'+' when a key enters the output snapshot, '-' when it leaves. Results arrive as rows
`(src, trg, label, ts, exp)` read as incremental/engine.py says: a start, a widening, or an
end record (an explicit deletion cut the interval: it now ends at `exp`). A key's coverage is
kept as one open segment `[start, until)`, widened by overlapping or touching rows and
shortened by end records. An event at instant τ is released only once time has passed τ (every
input with time ≤ τ consumed: `frontier > τ`), so a '-' is never premature, an end record at
the deletion time moves a not yet released '-' there, and a segment cut where it began takes
its unreleased '+' with it. The order within one instant is deterministic: '+' before '-', then
by (src, trg, label). `close()` releases the rest (time runs on).

Native producers. An engine in delta mode (`Engine(deltas=True)`, what `sgq run --emit
deltas` uses) owns its view, and an output operator that knows by itself when its results enter
and leave (PATH, operators/path_closure.py and path.py; PATTERN and UNION, operators/
native_keys.py) writes those events here with
`enter`/`leave`, bypassing rows and segments; its keys never have a segment unless it hands
them over (`adopt`). A key that leaves and enters at one instant never left: the two events
cancel when that instant is released (netted one against one: a key that leaves, enters again
and is cut by a deletion at one instant leaves).

Cost: O(1) per row fed (a widening only moves the segment's end), O(log k) per new instant
(k distinct instants pending), and one sort per released instant. Segment ends and events are
bucketed by instant (state/expiry.py's idea): window expiries fall on few slide-aligned
instants and new keys start at the round's instant, so a heap entry per instant, not per
event, orders them.
"""

from __future__ import annotations

import heapq
import math

from .state.expiry import ExpiryBuckets
from .stateful import restore_into, state_of

#: the columns of a result row in each output form: interval tuples and delta events
INTERVAL_FIELDS = ("src", "trg", "label", "ts", "exp")
DELTA_FIELDS = ("time", "op", "src", "trg", "label")


class DeltaView:
    """Feed results (rows `(src, trg, label, ts, exp, ...)`, e.g. engine `Result`s) and the
    engine's time frontier; get the delta events it makes final."""

    __slots__ = (
        "open",
        "ends",
        "plus",
        "minus",
        "fplus",
        "fminus",
        "instants",
        "dropped",
        "upstream",
    )

    STATE_VERSION = 1

    def __init__(self) -> None:
        self.open: dict[tuple, list] = {}  # key -> [start, until]
        self.ends = ExpiryBuckets()  # until -> keys whose segment may end then
        self.plus: dict[int, list] = {}  # τ -> keys entering at τ
        self.minus: dict[int, list] = {}  # τ -> keys leaving at τ
        self.instants: list[int] = []  # heap of the instants with events
        self.dropped: dict[tuple, int] = {}  # (τ, key) -> '+' events withdrawn
        # τ -> chunks (label, {src: targets}, plain) entering / leaving at τ
        self.fplus: dict[int, list] = {}
        self.fminus: dict[int, list] = {}
        #: producers that write their events at release (operators/intersect.py): each
        #: `release_into(view, frontier)` before the view releases its own
        self.upstream: list = []

    def state(self) -> dict:
        """The checkpoint contract (incremental/stateful.py): open segments, their ends,
        the events not yet final, the withdrawn '+' events."""
        return {
            "open": self.open,
            "ends": state_of(self.ends),
            "plus": _flat_events(self.plus, self.fplus),
            "minus": _flat_events(self.minus, self.fminus),
            "withdrawn": self.dropped,
        }

    def restore(self, state: dict) -> None:
        self.open = {key: [start, until] for key, (start, until) in state["open"].items()}
        restore_into(self.ends, state["ends"])
        self.plus = {int(tau): list(keys) for tau, keys in state["plus"].items()}
        self.minus = {int(tau): list(keys) for tau, keys in state["minus"].items()}
        self.fplus, self.fminus = {}, {}
        self.instants = sorted(set(self.plus) | set(self.minus))  # a sorted list is a heap
        self.dropped = dict(state["withdrawn"])

    def _event(self, events: dict, tau: int, key: tuple) -> None:
        bucket = events.get(tau)
        if bucket is None:
            self._instant(tau)
            events[tau] = [key]
        else:
            bucket.append(key)

    def _instant(self, tau: int) -> None:
        """Before the first event at `tau` goes into one of the four event dicts."""
        if not (tau in self.plus or tau in self.minus or tau in self.fplus or tau in self.fminus):
            heapq.heappush(self.instants, tau)

    def feed(self, results, frontier=math.inf) -> list[tuple]:
        """Take new results; return the events at instants `< frontier`, in order."""
        return rows_of(self.feed_grouped(results, frontier))

    def feed_grouped(self, results, frontier=math.inf) -> list[tuple]:
        """`feed`, the events grouped per instant and sign: `(τ, '+'|'-', keys)`, keys
        sorted (what `sgq run` writes: no tuple per event)."""
        open_, plus = self.open, self.plus
        end_at, event = self.ends.add, self._event
        for r in results:
            key = (r[0], r[1], r[2])
            ts, exp = r[3], r[4]
            seg = open_.get(key)
            if seg is not None and ts <= seg[1]:
                until = seg[1]
                if exp > until:
                    seg[1] = exp
                    end_at(exp, key)
                elif exp < until and ts >= seg[0]:  # an end record
                    if exp > seg[0]:
                        seg[1] = exp
                        end_at(exp, key)
                    else:  # cut where it began: it never showed
                        del open_[key]
                        drop = (seg[0], key)
                        self.dropped[drop] = self.dropped.get(drop, 0) + 1
                continue
            if exp <= ts:
                continue
            if seg is not None:  # a gap: the old segment ends before this one starts
                event(self.minus, seg[1], key)
            open_[key] = [ts, exp]
            end_at(exp, key)
            bucket = plus.get(ts)
            if bucket is None:
                event(plus, ts, key)
            else:
                bucket.append(key)
        return self._release(frontier)

    # ---- native deltas: producers that know when their keys enter and leave
    def enter(self, tau: int, keys: list) -> None:
        """Keys `(src, trg, label)` entering the output at `tau` (a native producer: PATH by
        level closures, operators/path_closure.py). Such keys have no open segment here: their
        producer says when they leave (`leave`). A key leaving and entering at one instant
        never left: the two events cancel at release."""
        self._events(self.plus, tau, keys)

    def enter_instants(self, groups: list) -> None:
        """`enter` of several instants' keys, `[(τ, keys), ...]` (a span's results, operators/
        path.py); the key lists become the view's."""
        plus, minus, fplus, fminus = self.plus, self.minus, self.fplus, self.fminus
        instants = self.instants
        for tau, keys in groups:
            bucket = plus.get(tau)
            if bucket is None:
                if not (tau in minus or tau in fplus or tau in fminus):  # (`_instant`)
                    heapq.heappush(instants, tau)
                plus[tau] = keys
            else:
                bucket.extend(keys)

    def leave(self, tau: int, keys: list) -> None:
        """Keys leaving the output at `tau` (a native producer; see `enter`)."""
        self._events(self.minus, tau, keys)

    def _events(self, events: dict, tau: int, keys: list) -> None:
        if keys:
            bucket = events.get(tau)
            if bucket is None:
                self._event(events, tau, keys[0])
                events[tau].extend(keys[1:])
            else:
                bucket.extend(keys)

    def enter_fans(self, tau: int, label: str, fans: dict, plain: bool = False) -> None:
        """Keys entering at `tau` given per source: `{src: [trg, ...]}` under `label` (the
        closure PATH's rows; see `enter`). The dict and its target lists become the view's.
        `plain`: every vertex in them is `csv_plain` (the producer knows its names)."""
        self._fans(self.fplus, tau, label, fans, plain)

    def leave_fans(self, tau: int, label: str, fans: dict, plain: bool = False) -> None:
        """Keys leaving at `tau`, per source (see `enter_fans`)."""
        self._fans(self.fminus, tau, label, fans, plain)

    def _fans(self, events: dict, tau: int, label: str, fans: dict, plain: bool) -> None:
        if fans:
            bucket = events.get(tau)
            if bucket is None:
                self._instant(tau)
                events[tau] = bucket = []
            bucket.append((label, fans, plain))

    def adopt(self, key: tuple, start: int, until: int) -> None:
        """A native key becomes an ordinary one: its coverage `[start, until)` is open here,
        and rows widen or cut it from now on (its '+' was already given by `enter`)."""
        self.open[key] = [start, until]
        self.ends.add(until, key)

    def release_chunks(self, frontier) -> list[tuple]:
        """The events at instants `< frontier` not released yet, for a reader that keeps
        keys in sets (an intersection's side, operators/intersect.py): `(τ, '+'|'-',
        [(label, {src: [trg, ...]}), ...])` in the order of τ. While only fans were written
        (native producers, no rows), they are given as written: neither sorted nor netted,
        so a key that leaves and enters at one instant has both events there, and the reader
        takes the '-' first. Otherwise they are released as `feed_grouped` releases them
        (sorted and netted). Cost: O(sources with events), one heap step per instant."""
        if self.plus or self.minus or self.dropped or self.ends.any_by(frontier - 1):
            return [(tau, op, _chunks(keys)) for tau, op, keys in self._release(frontier)]
        out: list = []
        instants, fplus, fminus = self.instants, self.fplus, self.fminus
        pop = heapq.heappop
        while instants and instants[0] < frontier:
            tau = pop(instants)
            fout = fminus.pop(tau, None)
            if fout:
                out.append((tau, "-", [(label, fans) for label, fans, _plain in fout]))
            fin = fplus.pop(tau, None)
            if fin:
                out.append((tau, "+", [(label, fans) for label, fans, _plain in fin]))
        return out

    def close(self) -> list[tuple]:
        """End of input: every remaining event, the '-' of every open key included."""
        return rows_of(self._release(math.inf))

    def close_grouped(self) -> list[tuple]:
        """`close`, grouped as `feed_grouped` groups."""
        return self._release(math.inf)

    def _release(self, frontier) -> list[tuple]:
        for producer in self.upstream:
            producer.release_into(self, frontier)
        open_ = self.open
        for until, keys in self.ends.expired_buckets(frontier - 1):
            for key in keys:
                seg = open_.get(key)
                if seg is not None and seg[1] == until:
                    del open_[key]
                    self._event(self.minus, until, key)
        out: list = []
        instants, plus, minus, dropped = self.instants, self.plus, self.minus, self.dropped
        fplus, fminus = self.fplus, self.fminus
        while instants and instants[0] < frontier:
            tau = heapq.heappop(instants)
            entering = plus.pop(tau, None)
            leaving = minus.pop(tau, None)
            if fplus or fminus:
                fin, fout = fplus.pop(tau, None), fminus.pop(tau, None)
                if fin or fout:
                    label = (fin or fout)[0][0]
                    if not dropped and _one_label(label, fin, fout, entering, leaving):
                        _release_fans(tau, label, fin, fout, entering, leaving, out)
                        continue
                    entering = _flat_keys(fin, entering)
                    leaving = _flat_keys(fout, leaving)
            if entering and leaving:  # left and entered again at tau: never left
                both = set(entering).intersection(leaving)
                if both:
                    entering, leaving = _net(entering, leaving, both)
            if entering:
                if dropped:
                    entering = self._withdraw(tau, entering)
                entering.sort()
                out.append((tau, "+", entering))
            if leaving:
                leaving.sort()
                out.append((tau, "-", leaving))
        return out

    def _withdraw(self, tau: int, keys: list) -> list:
        """`keys` less the '+' events at `tau` withdrawn by a cut where they began."""
        dropped = self.dropped
        kept = []
        for key in keys:
            drop = (tau, key)
            n = dropped.get(drop)
            if n:
                if n == 1:
                    del dropped[drop]
                else:
                    dropped[drop] = n - 1
                continue
            kept.append(key)
        return kept


class Fans(list):
    """The keys of one released group as `(src, [trg, ...])` sorted by src, each target list
    sorted, all under `label`: the order of the flat keys `(src, trg, label)` sorted.
    `plain`: every vertex in it is `csv_plain` (a writer need not check them)."""

    __slots__ = ("label", "plain")

    def __init__(self, label: str, fans: list, plain: bool = False) -> None:
        super().__init__(fans)
        self.label = label
        self.plain = plain

    def keys(self) -> list[tuple]:
        """The flat keys `(src, trg, label)`, in order."""
        label = self.label
        return [(s, t, label) for s, trgs in self for t in trgs]


def csv_plain(v) -> bool:
    """Whether vertex `v` is a string that CSV writes as it is: no delimiter, quote or line
    break in it (the csv module quotes those).

    >>> csv_plain("p1"), csv_plain("a,b"), csv_plain(None)
    (True, False, False)
    """
    return type(v) is str and not ("," in v or '"' in v or "\n" in v or "\r" in v)


def group_keys(keys) -> list:
    """A group's flat keys (a `Fans` group's expanded)."""
    return keys.keys() if type(keys) is Fans else keys


def rows_of(groups) -> list[tuple]:
    """Delta rows `(τ, op, src, trg, label)` of `(τ, op, keys)` groups."""
    return [(tau, op, s, t, label) for tau, op, keys in groups for s, t, label in group_keys(keys)]


def _one_label(label: str, fin, fout, entering, leaving) -> bool:
    """Whether every event of an instant, fans and flat keys, is under `label`."""
    return (
        all(f[0] == label for f in fin or ())
        and all(f[0] == label for f in fout or ())
        and all(k[2] == label for k in entering or ())
        and all(k[2] == label for k in leaving or ())
    )


def _gather(fans, keys) -> dict:
    """`{src: [trg, ...]}` of one sign's fans and flat keys at an instant (one label). The
    lists may be shared with other sources' (sorting one in place is harmless)."""
    by_src: dict = {}
    own: set = set()  # the sources whose list is this function's (a producer's may be shared)
    for _label, chunk, _plain in fans or ():
        if not by_src:  # the first chunk is the view's: it becomes the result, lists shared
            by_src = chunk
            continue
        for src, trgs in chunk.items():
            got = by_src.get(src)
            if got is None:
                by_src[src] = trgs
            elif src in own:
                got.extend(trgs)
            else:
                by_src[src] = got + trgs
                own.add(src)
    for src, trg, _label in keys or ():
        got = by_src.get(src)
        if got is None:
            by_src[src] = [trg]
            own.add(src)
        elif src in own:
            got.append(trg)
        else:
            by_src[src] = [*got, trg]
            own.add(src)
    return by_src


def _release_fans(tau: int, label: str, fin, fout, entering, leaving, out: list) -> None:
    """Release one instant that has fans, as `Fans` groups ('+' first), netted per key as
    flat keys are (`_net`)."""
    gained, lost = _gather(fin, entering), _gather(fout, leaving)
    if gained and lost:
        for src in gained.keys() & lost.keys():
            plus, minus = gained[src], lost[src]
            both = set(plus).intersection(minus)
            if both:
                gained[src], lost[src] = _net(plus, minus, both)
    done: set = set()  # the ids of the lists sorted (sources share their producer's lists)
    plain = (
        all(c[2] for c in fin or ())
        and all(c[2] for c in fout or ())
        and all(csv_plain(s) and csv_plain(t) for s, t, _label in entering or ())
        and all(csv_plain(s) and csv_plain(t) for s, t, _label in leaving or ())
    )
    for op, by_src in (("+", gained), ("-", lost)):
        fans = []
        for src in sorted(by_src):
            trgs = by_src[src]
            if trgs:
                if len(trgs) > 1 and id(trgs) not in done:
                    trgs.sort()
                    done.add(id(trgs))
                fans.append((src, trgs))
        if fans:
            out.append((tau, op, Fans(label, fans, plain)))


def _chunks(keys) -> list[tuple]:
    """A released group's keys as `[(label, {src: [trg, ...]}), ...]`."""
    if type(keys) is Fans:
        return [(keys.label, {src: trgs for src, trgs in keys})]
    by_label: dict = {}
    for src, trg, label in keys:
        by_label.setdefault(label, {}).setdefault(src, []).append(trg)
    return list(by_label.items())


def _flat_keys(fans, keys) -> list | None:
    """An instant's fans as flat keys, after its flat `keys`."""
    if not fans:
        return keys
    flat = list(keys or ())
    for label, chunk, _plain in fans:
        for src, trgs in chunk.items():
            flat.extend([(src, trg, label) for trg in trgs])
    return flat


def _flat_events(events: dict, fans: dict) -> dict:
    """`{τ: flat keys}` of the flat and the fanned events (a checkpoint holds them flat)."""
    out = {tau: list(keys) for tau, keys in events.items()}
    for tau, fanned in fans.items():
        out[tau] = _flat_keys(fanned, out.get(tau))
    return out


def delta_rows(results) -> list[tuple]:
    """The whole delta view of a finished run's results."""
    view = DeltaView()
    return view.feed(results) + view.close()


def _net(entering: list, leaving: list, both: set) -> tuple[list, list]:
    """The events at one instant of the keys in `both`, which have '+' and '-' there, netted
    one against one: a key whose '-' outnumber its '+' leaves (a native key that left, entered
    again, and was then cut by a deletion at that instant), one whose '+' do enters, and one
    with as many of each never changed."""
    net: dict = dict.fromkeys(both, 0)
    for key in entering:
        if key in net:
            net[key] += 1
    for key in leaving:
        if key in net:
            net[key] -= 1
    entering = [k for k in entering if k not in both]
    leaving = [k for k in leaving if k not in both]
    for key, n in net.items():
        if n > 0:
            entering.append(key)
        elif n < 0:
            leaving.append(key)
    return entering, leaving


def fans_by_instant(events, reverse: bool, out: dict) -> None:
    """Add events `((src, trg), instant)` to `out` as `{instant: {src: [trg, ...]}}`
    (`reverse`: `{trg: [src, ...]}`): a native producer's keys as `enter_fans` and
    `leave_fans` take them."""
    fans = None
    last = None
    for (src, trg), tau in events:
        if tau != last:
            fans = out.get(tau)
            if fans is None:
                out[tau] = fans = {}
            last = tau
        if reverse:
            src, trg = trg, src
        trgs = fans.get(src)
        if trgs is None:
            fans[src] = [trg]
        else:
            trgs.append(trg)
