"""An interval-annotated edge index: the operator state of PATTERN and PATH (thesis 5.4).

Holds, per `(src, trg)`, the tuple with the largest `exp` seen (coalescing with max, thesis
Def 11), reachable by src and by trg. Expired entries (`exp <= now`) are invisible to readers,
who check `exp` themselves; `purge(now)` removes them through an exp-bucketed index (state/expiry.py), without
negative tuples (the direct approach of thesis 5.4); a widened entry keeps its first expiry
item, which `purge` moves on to its exp when it comes up (one move per slide at most, where
an item per widening cost an insert and a skip each). One index per producing node: every
PATTERN, PATH, UNION and VERTICES reading that node shares it (Differential Dataflow's
arrangements). An end record from the producer (an explicit deletion, specs/semantics.md §2) `cut`s
an entry: shortened, or ended at `now`, when it stays, invisible to readers, until `purge`; so
within the round of the deletion a reader can still find what the deleted entry joined with.

Each entry also knows its `start` (specs/semantics.md §4b): the first instant of the unbroken
run of validity it belongs to, what `atom@t` binds. An insert that overlaps the entry, or abuts
it (the entry ends at `now`), continues the run; one after a gap, or for a new key, starts it
at `now` (by timeliness a tuple not on record was not valid at `now - 1`). For that an entry
that ends at `now` must still be there at `now`: the runtime purges indexes up to `now - 1`.

The map by trg is kept only once a reader asks for it (`by_targets`): a PATTERN step that
probes an input with both ends bound or from its src, and S-PATH without deletions, read rows
by src only, so an index read only so pays for one map, not two (so Q6 on the so stream: the
index of `a2q+`'s rows is its largest, and none of its readers asks).

Cost: `insert` O(1) (plus O(log k) for a new expiry instant); lookups O(1) per returned entry.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..sgt import NEVER
from ..stateful import restore_into, state_of
from .expiry import ExpiryBuckets


class Entry:
    """The coalesced tuple of one edge `(s, t)`: valid on `[ts, exp)`, derived by `wit` (the
    witness path of a derived input, or None), in a run of validity since `start`. Readers
    take its fields by name and never write them; only the EdgeIndex holding it does."""

    __slots__ = ("ts", "exp", "wit", "start")

    def __init__(self, ts: int, exp: int, wit: tuple | None, start: int) -> None:
        self.ts = ts
        self.exp = exp
        self.wit = wit
        self.start = start

    def __repr__(self) -> str:
        return f"Entry({self.ts}, {self.exp}, {self.wit!r}, start={self.start})"


def _in_exp_order(row: dict) -> bool:
    """Whether the entries of a `by_src` row iterate in nondecreasing exp."""
    last = NEVER
    for entry in row.values():
        if entry.exp < last:
            return False
        last = entry.exp
    return True


def _exp_of(item: tuple) -> int:
    return item[1].exp


class EdgeIndex:
    """`by_src[s][t]` and `by_trg[t][s]` hold the same `Entry`; `by_trg` is None until the
    first `by_targets()`, which builds it from `by_src` and keeps it from then on. Readers
    probe the two maps (`successors`/`predecessors`, or `by_src` and `by_targets()`
    themselves, read-only); only `insert`, `cut` and `purge` change them."""

    __slots__ = (
        "by_src",
        "by_trg",
        "heap",
        "count",
        "previous",
        "trackers",
        "ordering",
        "ordered",
        "top",
    )

    STATE_VERSION = 3  # entries with their run's start; the map by trg only once asked for

    def __init__(self) -> None:
        self.by_src: dict[str, dict[str, list]] = {}
        self.by_trg: dict[str, dict[str, Entry]] | None = None  # (see `by_targets`)
        self.heap = ExpiryBuckets()
        self.count = 0
        #: `{(s, t): exp before}` of the last `insert_rows` (its producer's round), while
        #: some reader asks for it (`track`: operators/functional_join.py)
        self.previous: dict = {}
        self.trackers = 0
        #: whether a reader asked for `ordered` (`order_by_exp`: state/delta_path.py)
        self.ordering = False
        #: while `ordering`: every `by_src` row iterates in nondecreasing exp
        self.ordered = False
        #: no entry expires after it (an insert at or after it keeps its row in order)
        self.top = NEVER

    def track(self) -> None:
        """Record, at each `insert_rows`, what the entries of its rows ended at before it
        (`previous`; NEVER for a new entry), for a reader that follows changes of entries."""
        self.trackers += 1

    def untrack(self) -> None:
        """One reader less that asks for `previous`."""
        self.trackers -= 1
        if not self.trackers:
            self.previous = {}

    def order_by_exp(self) -> None:
        """Keep each `by_src` row in nondecreasing exp while the input allows it, and say so in
        `ordered`: a widened entry moves to its row's end, and the first insert or `cut` that
        would break the order clears `ordered` for good. With constant windows over
        insert-only input in ts order (the common stream), rows stay ordered, and a reader
        that only wants the entries expiring after some instant reads a row from its end and
        stops at the first one before it (S-PATH's Propagate, state/delta_path.py)."""
        if self.ordering:
            return  # (asked before, or restored: its order is the run's own)
        self.ordering = True
        for row in self.by_src.values():  # (rows filled before: sorted once, in place)
            if not _in_exp_order(row):
                items = sorted(row.items(), key=_exp_of)
                row.clear()
                row.update(items)
        self.ordered = True

    def insert(self, s: str, t: str, ts: int, exp: int, wit, now: int) -> None:
        """Keep `[ts, exp)` for `(s, t)` if it outlives the stored entry (merging the two
        when the stored one still holds `now`; its run goes on when it held `now - 1`)."""
        self.insert_rows(((s, t, ts, exp, wit),), now)

    def insert_rows(self, rows, now: int | None = None) -> None:
        """`insert` of every row `(s, t, ts, exp, wit)` of an operator's output at `now` (None:
        each at its own ts, a span's rows, runtime `run_span`), in one loop: a producer's
        rows are most of an index's inserts (a closure PATH read by a PATTERN). A widened
        entry keeps its expiry item (at or before its old exp): `purge` moves it on."""
        by_src, by_trg, expiring = self.by_src, self.by_trg, self.heap.bucket
        tracked = self.trackers
        ordered, top = self.ordered, self.top
        previous = self.previous = {} if tracked else self.previous
        make = Entry.__new__  # the fields set here: no __init__ call per new entry
        new = 0
        bucket_exp = bucket = None  # the expiry list of the last new entry's exp
        for s, t, ts, exp, wit in rows:
            at = ts if now is None else now
            row = by_src.get(s)
            if row is None:
                row = by_src[s] = {}
            entry = row.get(t)
            if ordered and row and (entry is None or exp > entry.exp):  # a change
                if exp >= top:  # (nothing in the index expires later: the row stays ordered)
                    if entry is not None:
                        del row[t]  # widened: to its row's end, behind every entry it outlives
                        row[t] = entry
                else:
                    last = next(reversed(row.values()))  # (O(1) from a row's end)
                    if last is entry:
                        pass
                    elif last.exp > exp:
                        ordered = self.ordered = False
                    elif entry is not None:
                        del row[t]
                        row[t] = entry
            if exp > top:
                top = exp
            if tracked and (s, t) not in previous:  # (its first row here: as it was before)
                previous[(s, t)] = NEVER if entry is None else entry.exp
            if entry is None:
                row[t] = entry = make(Entry)
                entry.ts = ts
                entry.exp = exp
                entry.wit = wit
                entry.start = at
                if by_trg is not None:
                    col = by_trg.get(t)
                    if col is None:
                        col = by_trg[t] = {}
                    col[s] = entry
                new += 1
                if exp != bucket_exp:  # rows come in fans of one exp: its list once
                    bucket_exp, bucket = exp, expiring(exp)
                bucket.append((s, t))
            elif exp > entry.exp:
                if entry.exp < at:
                    entry.start = at  # after a gap: a new run
                if entry.exp <= at or ts < entry.ts:
                    entry.ts = ts
                entry.exp = exp
                entry.wit = wit
        self.count += new
        self.top = top

    def cut(self, s: str, t: str, exp: int, wit, now: int) -> None:
        """The producer's end record: `(s, t)` now ends at `exp` (`now <= exp`), carrying the
        witness of what still derives it (an unchanged `exp` only renews the witness). O(1)."""
        row = self.by_src.get(s)
        entry = None if row is None else row.get(t)
        if entry is None or exp > entry.exp:
            return
        entry.wit = wit
        if exp < entry.exp:
            entry.exp = exp
            self.heap.add(exp, (s, t))
            self.ordered = False  # (for good: `order_by_exp`)

    def get(self, s: str, t: str) -> Entry | None:
        """The entry of `(s, t)` (possibly expired), or None."""
        row = self.by_src.get(s)
        return None if row is None else row.get(t)

    def successors(self, s: str) -> dict[str, Entry] | None:
        """`{t: entry}` of the edges leaving `s` (read-only), or None."""
        return self.by_src.get(s)

    def predecessors(self, t: str) -> dict[str, Entry] | None:
        """`{s: entry}` of the edges entering `t` (read-only), or None."""
        return self.by_targets().get(t)

    def by_targets(self) -> dict[str, dict[str, Entry]]:
        """`by_trg`, `{t: {s: entry}}` (read-only), built from `by_src` at the first call and
        kept by every change from then on: a reader that asks once (a join step from a trg,
        a functional join's side, S-PATH's reconnection after a deletion) binds it once per
        batch, and an index no reader asks it of keeps one map, not two."""
        by_trg = self.by_trg
        if by_trg is None:
            by_trg = self.by_trg = {}
            for s, row in self.by_src.items():
                for t, entry in row.items():
                    col = by_trg.get(t)
                    if col is None:
                        by_trg[t] = {s: entry}
                    else:
                        col[s] = entry
        return by_trg

    def sources(self) -> int:
        """How many distinct sources have entries (expired ones until `purge`)."""
        return len(self.by_src)

    def targets(self) -> int:
        """How many distinct targets have entries (expired ones until `purge`)."""
        return len(self.by_targets())

    def purge(self, now: int) -> None:
        """Drop every entry with `exp <= now`; the expiry items of entries that lasted longer
        (widened since) move on to their exp."""
        by_src, by_trg = self.by_src, self.by_trg
        later: dict = {}
        for key in self.heap.expired(now):
            s, t = key
            row = by_src.get(s)
            if row is None:
                continue
            entry = row.get(t)
            if entry is None:
                continue
            if entry.exp > now:
                later[key] = entry.exp
                continue
            del row[t]
            if not row:
                del by_src[s]
            if by_trg is not None:
                col = by_trg[t]
                del col[s]
                if not col:
                    del by_trg[t]
            self.count -= 1
        add = self.heap.add
        for key, exp in later.items():
            add(exp, key)

    def entries(self) -> Iterator[tuple[str, str, Entry]]:
        """Every `(s, t, Entry)`, expired ones included."""
        for s, row in self.by_src.items():
            for t, entry in row.items():
                yield s, t, entry

    def __len__(self) -> int:
        return self.count

    def state(self) -> dict:
        """The checkpoint contract (incremental/stateful.py): every entry as a row in the
        order of `by_src`, the order of `by_trg` as sources per target (None while no reader
        asked for it), the expiry index."""
        by_trg = self.by_trg
        return {
            "edges": [(s, t, e.ts, e.exp, e.wit, e.start) for s, t, e in self.entries()],
            "sources_by_target": (
                None if by_trg is None else {t: list(col) for t, col in by_trg.items()}
            ),
            "expiry": state_of(self.heap),
            "ordering": self.ordering,
            "ordered": self.ordered,
        }

    def restore(self, state: dict) -> None:
        by_src: dict = {}
        for s, t, ts, exp, wit, start in state["edges"]:
            by_src.setdefault(s, {})[t] = Entry(ts, exp, wit, start)
        self.by_src = by_src
        saved = state["sources_by_target"]
        self.by_trg = (
            None
            if saved is None
            else {t: {s: by_src[s][t] for s in sources} for t, sources in saved.items()}
        )
        self.count = len(state["edges"])
        restore_into(self.heap, state["expiry"])
        # as the run went on (a resumed run reads rows as the first would have); a state
        # from before the order was kept: not ordered
        self.ordering = state.get("ordering", self.ordering)
        self.ordered = state.get("ordered", False)
        self.top = max((e[3] for e in state["edges"]), default=NEVER)

    def _check(self) -> None:
        """Invariants: both directions agree (where the map by trg is kept), counts match,
        every entry has a heap entry at or before its exp, intervals are non-empty (empty only
        when cut at the instant they began), no empty rows."""
        by_trg = self.by_trg
        n = 0
        self.heap._check()
        first: dict = {}
        for e, key in self.heap.pairs():
            if e < first.get(key, e + 1):
                first[key] = e
        for s, row in self.by_src.items():
            assert row, s
            for t, entry in row.items():
                n += 1
                assert by_trg is None or by_trg[t][s] is entry
                assert entry.ts <= entry.exp, (s, t, entry)
                assert first.get((s, t), entry.exp + 1) <= entry.exp, (s, t, entry)
                assert entry.exp <= self.top, (s, t, entry, self.top)
        assert not self.ordered or all(_in_exp_order(row) for row in self.by_src.values())
        if by_trg is not None:
            m = sum(len(col) for col in by_trg.values())
            assert all(by_trg.values())
            assert n == m, (n, m)
        assert n == self.count, (n, self.count)
