"""One side of a join on a single variable y, as operators/functional_join.py reads it: the
entries a round's rows changed and what they ended at before, whether each a has one y
(functional), and, for a functional side whose entries become fans of output rows, its
entries by y and end.

The groups `{y: {end: [as, their ts, handed out]}}` hold the side's live entries by y and end
(window ends are slide-aligned: a few ends per y), each group in the order of its entries' ts,
so that a reader splits it by a start with one bisection. A group's lists that were handed out
(`fans_past`: a fan holds them as they are) are copied before their next change, and changed in
place otherwise: a copy costs no more than the rows the fans that took the lists stand for.

The other side of such a join keeps its live entries by y and end too (`by_end`, `{y: {end:
[{a: its ts}, Sources or None]}}`), unordered, with the cross-product fan's sources copied from
a group when first asked for and kept until the group changes (fan_rows.py `Sources`): a
changed entry of the grouped side then joins the other side's groups of its y, one fan per end.
(An entry's ts changes only with its end, so a group holds its entries' ts as they are.)
"""

from __future__ import annotations

from bisect import bisect_right
from typing import TYPE_CHECKING

from ..fan_rows import Sources

if TYPE_CHECKING:
    from .edge_index import EdgeIndex


class JoinSide:
    """One input `(a, y)` of a join on y: its index, the map from y to `{a: entry}`
    (`by_y`), the map from a to `{y: entry}` (its functionality), where a and y sit in its
    rows, and what changed in a round."""

    __slots__ = ("index", "by_y", "by_own", "y_is_trg", "functional", "groups", "by_end")

    def __init__(self, index: EdgeIndex, y_is_trg: bool, grouped: bool, ended: bool) -> None:
        self.index = index
        self.y_is_trg = y_is_trg
        self.by_y = index.by_targets() if y_is_trg else index.by_src
        self.by_own = index.by_src if y_is_trg else index.by_targets()
        self.functional = True  # each a has at most one y in the index
        #: while functional, with fans wanted: the groups of the module's docstring
        self.groups: dict | None = {} if grouped else None
        #: the other side's groups of the module's docstring
        self.by_end: dict | None = {} if ended else None

    def changed(self, batch: list, now: int) -> dict:
        """`{y: {a: end before the round}}` of the entries this round's rows widened to an
        end past `now` (the index holds them already, `EdgeIndex.track` their old ends); each
        marks the side not functional when its a has a second y."""
        if not batch:
            return {}
        previous = self.index.previous  # the rows of `batch`: its producer's insert
        by_y, by_own, y_is_trg = self.by_y, self.by_own, self.y_is_trg
        out: dict = {}
        functional = self.functional
        for key, before in previous.items():
            s, t = key
            y, a = (t, s) if y_is_trg else (s, t)
            entry = by_y[y][a]
            if entry.exp <= now or entry.exp == before:
                continue
            group = out.get(y)
            if group is None:
                out[y] = {a: before}
            else:
                group[a] = before
            if functional and len(by_own[a]) > 1:
                functional = False
        self.functional = functional
        return out

    def regroup(self, changed: dict) -> None:
        """Move the changed entries `{y: {a: end before}}` to the groups of their new ends
        (state/edge_index.py keeps one entry per key: each a is in one group)."""
        groups = self.groups
        if groups is None:
            return
        if not self.functional:
            self.groups = None
            return
        by_y = self.by_y
        for y, changes in changed.items():
            buckets = groups.get(y)
            if buckets is None:
                buckets = groups[y] = {}
            entries = by_y[y]
            for a, before in changes.items():
                bucket = buckets.get(before)
                if bucket is not None and a in bucket[0]:  # widened: out of its old group
                    if len(bucket[0]) == 1:
                        del buckets[before]
                    else:
                        members, starts = _own(bucket)
                        i = members.index(a)
                        del members[i]
                        del starts[i]
                entry = entries[a]
                ts = entry.ts
                bucket = buckets.get(entry.exp)
                if bucket is None:
                    buckets[entry.exp] = [[a], [ts], False]
                    continue
                members, starts = _own(bucket)
                if ts >= starts[-1]:
                    members.append(a)
                    starts.append(ts)
                else:
                    i = bisect_right(starts, ts)
                    members.insert(i, a)
                    starts.insert(i, ts)

    def sort(self, changed: dict) -> None:
        """Move the changed entries `{y: {a: end before}}` to the `by_end` groups of their
        new ends."""
        by_end = self.by_end
        if by_end is None:
            return
        by_y = self.by_y
        for y, changes in changed.items():
            ends = by_end.get(y)
            if ends is None:
                ends = by_end[y] = {}
            entries = by_y[y]
            for a, before in changes.items():
                group = ends.get(before)
                if group is not None and a in group[0]:
                    del group[0][a]
                    group[1] = None
                    if not group[0]:
                        del ends[before]
                entry = entries[a]
                end = entry.exp
                group = ends.get(end)
                if group is None:
                    ends[end] = [{a: entry.ts}, None]
                else:
                    group[0][a] = entry.ts
                    group[1] = None

    def sources(self, y) -> dict:
        """`{end: Sources}` of the `by_end` groups of y (each built once per change)."""
        ends = self.by_end.get(y)
        if not ends:
            return {}
        out = {}
        for end, group in ends.items():
            srcs = group[1]
            if srcs is None:
                members = group[0]
                srcs = group[1] = Sources(list(members), list(members.values()))
            out[end] = srcs
        return out

    @staticmethod
    def fans_past(buckets: dict, a, ts_a: int, end_a: int, floor: int, out: list) -> int:
        """Append to `out` the fans `(a, members, start or starts, end)` of the keys through
        entry `a` (`[ts_a, end_a)` of the other side) and each of y's groups `buckets` that
        ends after `floor`; returns how many keys they hold. A key starts at the later of
        its entries' ts: the members up to ts_a at ts_a, the rest at their own. A group whose
        lists go out as they are is marked handed out (copied before its next change)."""
        count = 0
        for end_b, bucket in buckets.items():
            if end_b > floor:
                end = end_a if end_a < end_b else end_b
                members, starts = bucket[0], bucket[1]
                count += len(members)
                if ts_a >= starts[-1]:
                    out.append((a, members, ts_a, end))
                    bucket[2] = True
                elif ts_a < starts[0]:
                    out.append((a, members, starts, end))
                    bucket[2] = True
                else:
                    k = bisect_right(starts, ts_a)
                    out.append((a, members[:k], ts_a, end))
                    out.append((a, members[k:], starts[k:], end))
        return count

    @classmethod
    def fans_across(cls, buckets: dict, group: dict, entries: dict, now: int, out: list) -> int:
        """`fans_past` of the changed entries `group` `{a: end before}` of one y (`entries`
        `{a: entry}`) together: those of one end and floor go as cross-product fans, one per
        group of y, the source (`Sources`) with their own starts; returns how many keys."""
        alike: dict = {}
        for a, before in group.items():
            entry = entries[a]
            key = (entry.exp, before if before > now else now)
            same = alike.get(key)
            if same is None:
                alike[key] = ([a], [entry.ts])
            else:
                same[0].append(a)
                same[1].append(entry.ts)
        count = 0
        for (end_a, floor), (names, since) in alike.items():
            if len(names) == 1:
                count += cls.fans_past(buckets, names[0], since[0], end_a, floor, out)
                continue
            src = Sources(names, since)
            low = min(since)
            keys = 0
            for end_b, bucket in buckets.items():
                if end_b > floor:
                    members, starts = bucket[0], bucket[1]
                    keys += len(members)
                    # each row starts at the later of its two starts (Sources): one start
                    # for all when every source starts after every member
                    ts = starts[-1] if low >= starts[-1] else starts
                    out.append((src, members, ts, end_a if end_a < end_b else end_b))
                    bucket[2] = True
            count += keys * len(names)
        return count

    def previous(self) -> dict:
        """`{(a, y): end before the round}` of the entries the side's rows of the round
        changed (valid while the round's batch of this side is not empty)."""
        if self.y_is_trg:
            return dict(self.index.previous)
        return {(t, s): end for (s, t), end in self.index.previous.items()}

    def untrack(self) -> None:
        """Its index need not record old ends for it any more."""
        self.index.untrack()
        self.groups = self.by_end = None

    def purge(self, now: int) -> None:
        """Drop the groups that ended at or before `now`."""
        for groups in (self.groups, self.by_end):
            if groups:
                _drop_ended(groups, now)


def _drop_ended(groups: dict, now: int) -> None:
    """Of `{y: {end: group}}`, drop the groups with end `<= now`."""
    for y in list(groups):
        buckets = groups[y]
        for end in [end for end in buckets if end <= now]:
            del buckets[end]
        if not buckets:
            del groups[y]


def _own(bucket: list) -> tuple[list, list]:
    """A group's lists, to change in place: copies first when they were handed out."""
    if bucket[2]:
        bucket[0], bucket[1], bucket[2] = list(bucket[0]), list(bucket[1]), False
    return bucket[0], bucket[1]
