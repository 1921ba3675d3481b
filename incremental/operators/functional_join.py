"""A binary PATTERN whose head keys have one derivation each: their coverage read off the
inputs, with no state per key (thesis Def 33 and 5.4, specs/semantics.md §2).

`H(a, b) :- A(a, y), B(b, y)` (either orientation of each atom, head `(a, b)` or `(b, a)`)
joins on one variable y that the head drops. When one side is *functional* towards y (each b
has at most one y in B's index, as each message has one creator in `hasCreator(m, y)`), a key
`(a, b)` has exactly one derivation, through that y, and the coverage the Coalescer would have
emitted for it is the intersection of its two inputs' entries: `[max(ts_A, ts_B), min(exp_A,
exp_B))`. Both indexes hold exactly that (state/edge_index.py: the largest exp per key, the
run's first ts), so the output needs no coverage of its own: a round's rows follow from the
entries its input rows changed and what those entries ended at before the round
(`EdgeIndex.track`). A key is emitted where its end grows past what it was before the round
(or it had none reaching `now`), which is the Coalescer's `admit` (one row per key per round,
the last one it would give). With an output of tens of millions of keys (thesis SGA Q7,
`Ans(x, m) :- RL+(x, y), hasCreator(m, y)`) this is no dictionary of them all and no covered
combination re-admitted.

As the engine's interval output, the keys through one group of the functional side's entries
(one y, one end, in ts order: state/join_side.py) go out as one or two fans (fan_rows.py), and
the keys through a changed entry of that side as one cross-product fan per end of the other
side's entries of its y (`JoinSide.by_end`: SGA Q7's new message times every person reaching its
creator). As
native delta output (operators/native_keys.py) the rows go to the native keys, whose ends are
then exact: nothing is re-derived when they come up.

The sides are checked at every round: when neither is functional any more (a second y for
some b), before an explicit deletion (the runtime's `exact_ends`) and for a checkpoint, the
coverage is written out as the Coalescer's keys (`coverage`; native keys have it already),
and from then on the operator is the keyed join it would have been without this one (a
restored operator starts there): native keys' ends re-derived when they come up, and spans
of instants where the dataflow takes them (`PatternOp.spans_later`).

Cost per round: O(rows changed + keys emitted), plus a look at each changed entry's side.
"""

from __future__ import annotations

from ..fan_rows import FanRows
from ..state.coalescer import Coalescer
from ..state.join_side import JoinSide


class FunctionalJoin:
    """The rows of a two-input PATTERN (see the module) while one side is functional."""

    __slots__ = ("sides", "reverse", "fans")

    def __init__(self, indexes: list, y_is_trg: tuple, reverse: bool, fans: bool) -> None:
        index_a, index_b = indexes
        at_a, at_b = y_is_trg
        index_a.track()
        index_b.track()
        self.reverse = reverse  # the head is (b, a): input 1's vertex first
        #: the rows go to the engine's output only: as fans where they can (fan_rows.py),
        #: a changed entry of input 0 (of 1, reversed) with a group of the other's
        self.fans = fans
        self.sides = (
            JoinSide(index_a, at_a, fans and reverse, fans and not reverse),
            JoinSide(index_b, at_b, fans and not reverse, fans and reverse),
        )

    @classmethod
    def of(cls, bindings: list, head: tuple, conditions: list, indexes: list, fans: bool):
        """The FunctionalJoin of a PATTERN with these variable slots, or None when it is not
        of the shape `H(a, b) :- A(a, y), B(b, y)` (no condition, two distinct inputs);
        `fans`: its rows may go out as fans."""
        if len(bindings) != 2 or conditions:
            return None
        index_a, index_b = indexes
        if index_a is index_b:
            return None
        (s0, t0), (s1, t1) = bindings
        if s0 == t0 or s1 == t1:
            return None
        shared = {s0, t0} & {s1, t1}
        if len(shared) != 1:
            return None
        (y,) = shared
        a = s0 if t0 == y else t0
        b = s1 if t1 == y else t1
        if head == (a, b):
            reverse = False
        elif head == (b, a):
            reverse = True
        else:
            return None
        return cls(indexes, (t0 == y, t1 == y), reverse, fans)

    def process(self, batches: list, now: int) -> list | None:
        """The output rows of a round whose input rows are `batches` (already in the indexes),
        or None when no side is functional any more: the keyed join takes over from the
        coverage emitted before this round (`coverage`), and joins this round."""
        side_a, side_b = self.sides
        batch_a, batch_b = batches
        changed_a = side_a.changed(batch_a, now)
        changed_b = side_b.changed(batch_b, now)
        if not self.functional:
            return None
        side_a.regroup(changed_a)
        side_b.regroup(changed_b)
        side_a.sort(changed_a)
        side_b.sort(changed_b)
        out: list | FanRows = FanRows() if self.fans else []
        if changed_a:
            _emit(out, changed_a, side_a.by_y, side_b, changed_b, now, not self.reverse)
        if changed_b:
            _emit(out, changed_b, side_b.by_y, side_a, changed_a, now, self.reverse, True)
        return out

    def purge(self, now: int) -> None:
        for side in self.sides:
            side.purge(now)

    @property
    def functional(self) -> bool:
        """Whether a side still has one y per vertex (the join goes on)."""
        side_a, side_b = self.sides
        return side_a.functional or side_b.functional

    def coverage(self, now: int, batches: list | None = None) -> Coalescer:
        """The Coalescer the keyed join would hold: each key whose coverage reaches past
        `now`, `[max ts, min exp)` of its entries (`batches`: the current round's input rows,
        already in the indexes, whose entries count with their ends before the round: a
        hand-over in the middle of it)."""
        side_a, side_b = self.sides
        batch_a, batch_b = batches if batches is not None else (None, None)
        prev_a = side_a.previous() if batch_a else {}
        prev_b = side_b.previous() if batch_b else {}
        out = Coalescer()
        adopt = out.adopt
        by_y_b = side_b.by_y
        a_first = not self.reverse
        for y, group_a in side_a.by_y.items():
            group_b = by_y_b.get(y)
            if not group_b:
                continue
            for a, ea in group_a.items():
                end_a = prev_a.get((a, y), ea.exp)
                if end_a <= now:
                    continue
                for b, eb in group_b.items():
                    end_b = prev_b.get((b, y), eb.exp)
                    end = end_a if end_a < end_b else end_b
                    if end <= now:
                        continue
                    start = ea.ts if ea.ts > eb.ts else eb.ts
                    adopt((a, b) if a_first else (b, a), start, end)
        return out

    def untrack(self) -> None:
        """Stop recording the inputs' old ends (the keyed join needs none)."""
        for side in self.sides:
            side.untrack()


def _emit(
    out: list | FanRows,
    changed: dict,
    mine_by_y: dict,
    other: JoinSide,
    other_changed: dict,
    now: int,
    a_first: bool,
    second: bool = False,
) -> None:
    """The rows of the keys `(a, b)` through each changed entry `(a, y)` of one side:
    `changed` `{y: {a: end before}}`, the side's entries `mine_by_y`, the `other` side and
    its changed entries `other_changed` (their ends before). A key goes out when its end, the
    smaller of its entries', grows past what it was before the round, or past `now` if that
    was not live. `second` (the other side's pass): keys through a changed entry of the first
    side were emitted by the first pass. Into a FanRows `out`, the keys through one of the
    other side's groups go as one fan when their starts are all this entry's."""
    other_by_y = other.by_y
    fans = out if type(out) is FanRows else None
    groups = other.groups if a_first and fans is not None else None
    # the other side's entries by end: keys `(b, a)` through a y go as one fan per end
    by_end = other.by_end if not a_first and fans is not None else None
    cross: list = []
    rows = [] if fans is not None else out
    grouped: list = []  # the fans of the other side's groups, with `count` rows
    count = 0
    for y, group in changed.items():
        others = other_by_y.get(y)
        if not others:
            continue
        entries = mine_by_y[y]
        moved = other_changed.get(y)
        if moved is not None:  # entries of y changed on both sides
            _rows_both_changed(rows, group, entries, others, moved, now, a_first, second)
        # else the other side's entries of y are unchanged: a key's end grows iff the other
        # entry outlives the old end of this one (or `now`, if that was not live)
        elif groups is not None and (buckets := groups.get(y)) is not None:
            count += _group_fans(other, buckets, group, entries, now, grouped)
        elif by_end is not None and (ended := other.sources(y)) is not None:
            _end_fans(cross, group, entries, ended, now)
        else:
            for a, before in group.items():
                ea = entries[a]
                floor = before if before > now else now
                _rows_past(rows, a, ea.ts, ea.exp, others, floor, (), a_first)
    if fans is not None:
        if grouped:
            fans.add_counted(grouped, count)
        if cross:
            fans.add_fans(cross)
        fans.extend(rows)


def _group_fans(other: JoinSide, buckets, group: dict, entries: dict, now: int, grouped) -> int:
    """Into `grouped`, the fans of the keys through the changed entries `group` `{a: end
    before}` of one y and the other side's groups `buckets` of that y (unchanged): cross fans
    when several entries changed (`JoinSide.fans_across`), else one fan per group that ends
    after the entry's old end or `now` (`JoinSide.fans_past`). Returns the keys added."""
    if len(group) > 1:
        return other.fans_across(buckets, group, entries, now, grouped)
    count = 0
    for a, before in group.items():
        ea = entries[a]
        floor = before if before > now else now
        count += other.fans_past(buckets, a, ea.ts, ea.exp, floor, grouped)
    return count


def _end_fans(cross: list, group: dict, entries: dict, ended: dict, now: int) -> None:
    """Into `cross`, the keys `(b, a)` through the changed entries `group` `{a: end before}`
    of one y whose other side's entries are unchanged: one cross-product fan per end of
    those entries (`ended`, `{end: Sources}`) that outlives the key's old end (or `now`)."""
    for a, before in group.items():
        ea = entries[a]
        end_a, ts_a = ea.exp, ea.ts
        floor = before if before > now else now
        cross += [
            (srcs, [a], ts_a, end_a if end_a < end_b else end_b)
            for end_b, srcs in ended.items()
            if end_b > floor
        ]


def _rows_both_changed(
    rows: list, group: dict, entries: dict, others: dict, moved: dict, now, a_first, second
) -> None:
    """The rows of the keys through the changed entries `group` `{a: end before}` of one y
    whose other side's entries changed too (`moved`, `{b: end before}`). A key's old end is
    the smaller of its entries' old ends; in the `second` pass the keys through a changed
    entry of the first side are skipped (the first pass emitted them)."""
    for a, before in group.items():
        ea = entries[a]
        end_a, ts_a = ea.exp, ea.ts
        if second:
            floor = before if before > now else now
            _rows_past(rows, a, ts_a, end_a, others, floor, moved, a_first)
            continue
        pairs = []
        for b, eb in others.items():
            end_b = eb.exp
            if end_b <= now:
                continue
            end = end_a if end_a < end_b else end_b
            before_b = moved.get(b, end_b)
            was = before if before < before_b else before_b
            if end > was:  # (end > now: a key that was not live grows)
                pairs.append((b, eb))
        if pairs:
            _rows(rows, a, ts_a, end_a, pairs, a_first)


def _rows_past(rows: list, a, ts_a: int, end_a: int, others: dict, floor: int, skip, a_first):
    """`_rows` of the entries of `others` `{b: entry}` that end after `floor`, but those
    in `skip` (one pass, no list of pairs)."""
    if a_first:
        rows += [
            (a, b, ts_a if ts_a > eb.ts else eb.ts, end_a if end_a < eb.exp else eb.exp, None)
            for b, eb in others.items()
            if eb.exp > floor and b not in skip
        ]
    else:
        rows += [
            (b, a, ts_a if ts_a > eb.ts else eb.ts, end_a if end_a < eb.exp else eb.exp, None)
            for b, eb in others.items()
            if eb.exp > floor and b not in skip
        ]


def _rows(rows: list, a, ts_a: int, end_a: int, found: list, a_first: bool) -> None:
    """The rows of the keys through entry `a` (`[ts_a, end_a)`) and each `(b, entry)` of
    `found`: valid from the later start to the earlier end, `(a, b)` or `(b, a)`."""
    if a_first:
        rows += [
            (a, b, ts_a if ts_a > eb.ts else eb.ts, end_a if end_a < eb.exp else eb.exp, None)
            for b, eb in found
        ]
    else:
        rows += [
            (b, a, ts_a if ts_a > eb.ts else eb.ts, end_a if end_a < eb.exp else eb.exp, None)
            for b, eb in found
        ]
