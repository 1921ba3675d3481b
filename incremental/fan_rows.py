"""Interval rows kept as fans: the rows of an output PATH on closures (state/interval_rows.py),
which finds its results a source at a time, each source widening a set of targets to one exp at
one instant.

A fan `(src, trgs, ts, exp)` stands for the rows `(src, trg, ts, exp, None)`, trg in trgs, in
that order; `ts` is one start for all (the instant they were found: new keys) or a list of
starts beside `trgs` (a live key's widening keeps its start). Its `src` may be `Pairs`, one
source beside each target: the fan then stands for those pairs' rows. Its `src` may be
`Sources`, many sources each with a start of its own: the fan then stands for the cross
product, every source with every target, each row starting at the later of its source's and
its target's start (the followers of one successor and exp, state/follower_rows.py). The
engine keeps an output's rows as it got them (incremental/engine.py `drain_segments`), so a
fan reaches the writer whole and is written with one `join` of its targets (sgq/stream_io.py
`write_segments`): no tuple and no formatted line per row. Everything
else reads the rows one by one (iteration gives them as tuples), so FanRows goes only where
nothing but the engine's output reads it (runtime `_Context.fan_rows`). `plain` says that
every vertex in it is a string CSV writes as it is (deltas.py `csv_plain`): the producer's
closure interned no other (state/product_nodes.py), and a row appended keeps it only if its own
are; the writer then need not check its text.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator
from itertools import chain

from .deltas import csv_plain


class Sources:
    """The sources of a cross-product fan: `names[i]`'s rows start no earlier than
    `since[i]`. Lists it was given are kept: do not change them after."""

    __slots__ = ("names", "since", "latest")

    def __init__(self, names: list, since: list[int]) -> None:
        self.names = names
        self.since = since
        self.latest = max(since, default=-1)  # (a writer's shortcut: no row starts later)

    def __len__(self) -> int:
        return len(self.names)

    def rows(self, trgs: list, ts: int | list[int], exp: int) -> Iterator[tuple]:
        """The fan's rows `(src, trg, start, exp, None)`, source by source."""
        if type(ts) is int:
            for src, s in zip(self.names, self.since):
                start = ts if ts > s else s
                for trg in trgs:
                    yield (src, trg, start, exp, None)
        else:
            for src, s in zip(self.names, self.since):
                for trg, st in zip(trgs, ts):
                    yield (src, trg, st if st > s else s, exp, None)

    def __repr__(self) -> str:
        return f"Sources({self.names!r}, {self.since!r})"


class Pairs:
    """The sources of a fan of pairs: its i-th row is `(names[i], trgs[i], ts or ts[i],
    exp)`, one target per source (state/round_rows.py: the findings of one instant and level
    that widen one target each; a fan each would cost the writer a loop step per row). A list
    it was given is kept: do not change it after."""

    __slots__ = ("names",)

    def __init__(self, names: list) -> None:
        self.names = names

    def rows(self, trgs: list, ts: int | list[int], exp: int) -> Iterator[tuple]:
        """The fan's rows `(src, trg, start, exp, None)`, in order."""
        if type(ts) is int:
            for src, trg in zip(self.names, trgs):
                yield (src, trg, ts, exp, None)
        else:
            for src, trg, start in zip(self.names, trgs, ts):
                yield (src, trg, start, exp, None)

    def __repr__(self) -> str:
        return f"Pairs({self.names!r})"


class PairRows:
    """Rows of one source and one target each, gathered by exp and put out as one fan of
    `Pairs` per exp (`into`): the producers find them one at a time (state/round_rows.py: the
    findings that widen one target, the followers' rows of one source and one target), and a
    fan each would cost the writer a loop step per row."""

    __slots__ = ("by_exp",)

    def __init__(self) -> None:
        self.by_exp: dict = {}  # exp -> ([source], [target], [start])

    def add(self, src: Hashable, trg: Hashable, start: int, exp: int) -> None:
        """The row `(src, trg, start, exp)`."""
        got = self.by_exp.get(exp)
        if got is None:
            self.by_exp[exp] = ([src], [trg], [start])
        else:
            srcs, trgs, starts = got
            srcs.append(src)
            trgs.append(trg)
            starts.append(start)

    def extend(self, srcs: list, trgs: list, starts: list, exp: int) -> None:
        """The rows `(srcs[i], trgs[i], starts[i], exp)` (the lists are read, not kept: an
        expiry entry may hold them, `FanCoverage.admit_pairs`)."""
        got = self.by_exp.get(exp)
        if got is None:
            self.by_exp[exp] = (srcs[:], trgs[:], starts[:])
        else:
            have_s, have_t, have_st = got
            have_s += srcs
            have_t += trgs
            have_st += starts

    def __bool__(self) -> bool:
        return bool(self.by_exp)

    #: the most rows in one fan: the writer formats a fan whole (one text of a round's
    #: rows, which may be many, would weigh on the peak memory)
    MOST = 1 << 15

    def into(self, result: FanRows) -> None:
        """The rows as fans of `result`, one per exp (or per `MOST` rows), with one start
        where all share it."""
        most = self.MOST
        for exp, (srcs, trgs, starts) in self.by_exp.items():
            if len(srcs) == 1:
                [src], [start] = srcs, starts
                result.add(src, trgs, start, exp)
                continue
            for i in range(0, len(srcs), most):
                if len(srcs) > most:
                    s, t, st = srcs[i : i + most], trgs[i : i + most], starts[i : i + most]
                else:
                    s, t, st = srcs, trgs, starts
                [first, *_] = st
                ts = first if st.count(first) == len(st) else st
                result.add_counted([(Pairs(s), t, ts, exp)], len(t))
        self.by_exp = {}


def rows_of_fans(fans: Iterable[tuple]) -> Iterator[tuple]:
    """The rows `(src, trg, ts, exp, None)` of fans `(src, trgs, ts or starts, exp)`."""
    for src, trgs, ts, exp in fans:
        if type(src) is Sources or type(src) is Pairs:
            yield from src.rows(trgs, ts, exp)
        elif type(ts) is int:
            for trg in trgs:
                yield (src, trg, ts, exp, None)
        else:
            for trg, start in zip(trgs, ts):
                yield (src, trg, start, exp, None)


class FanRows:
    """A round's interval rows as fans, and rows that are no fan's (`rows`, after the fans'
    rows); `len` counts rows, iteration gives row tuples."""

    __slots__ = ("fans", "n", "plain", "rows")

    def __init__(self, plain: bool = False) -> None:
        self.fans: list[tuple] = []  # (src, trgs, ts or [ts, ...], exp)
        self.n = 0
        self.plain = plain
        self.rows: list[tuple] = []  # (src, trg, ts, exp, None)

    def add(self, src: Hashable, trgs: list, ts: int | list[int], exp: int) -> None:
        """The rows `(src, trg, ts, exp)` of every trg in `trgs`, `ts` one start or a list
        beside `trgs` (lists the fan keeps: do not change them after)."""
        self.fans.append((src, trgs, ts, exp))
        self.n += len(trgs)

    def add_counted(self, fans: list[tuple], n: int) -> None:
        """`add` of each `(src, trgs, ts, exp)` in `fans`, which stand for `n` rows in all
        (the caller counted them as it made them)."""
        self.fans += fans
        self.n += n

    def add_fans(self, fans: list[tuple]) -> None:
        """`add` of each `(src, trgs, ts, exp)` in `fans`."""
        self.fans += fans
        self.n += sum(
            [
                len(trgs) * len(src) if type(src) is Sources else len(trgs)
                for src, trgs, _ts, _exp in fans
            ]
        )

    def follow_with(self, other: FanRows) -> None:
        """`other`'s rows after these, kept as fans: only while these hold no row that is no
        fan's (those come after the fans' rows)."""
        assert not self.rows, "rows that are no fan's come last"
        self.fans += other.fans
        self.n += other.n - len(other.rows)
        self.plain = self.plain and other.plain
        self.extend(other.rows)

    def extend(self, rows: list[tuple]) -> None:
        """Rows `(src, trg, ts, exp, None)` as they are, no fan's (their vertices unchecked:
        the whole is no longer `plain`)."""
        if rows:
            self.rows += rows
            self.n += len(rows)
            self.plain = False

    def append(self, row: tuple) -> None:
        """One row `(src, trg, ts, exp, path)` (its path is None: fans carry none)."""
        src, trg, ts, exp, _path = row
        self.fans.append((src, [trg], ts, exp))
        self.n += 1
        if self.plain and not (csv_plain(src) and csv_plain(trg)):
            self.plain = False

    def __len__(self) -> int:
        return self.n

    def __bool__(self) -> bool:
        return self.n > 0

    def __iter__(self) -> Iterator[tuple]:
        if self.rows:
            return chain(rows_of_fans(self.fans), self.rows)
        return rows_of_fans(self.fans)

    def __add__(self, other: Iterable[tuple]) -> list[tuple]:
        return [*self, *other]

    def __radd__(self, other: Iterable[tuple]) -> list[tuple]:
        return [*other, *self]

    def __eq__(self, other: object) -> bool:
        """Equal to a FanRows or a list of the same rows in the same order."""
        if isinstance(other, (FanRows, list)):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"FanRows({list(self)!r})"
