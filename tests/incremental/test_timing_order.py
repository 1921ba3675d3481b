"""Time variables and timing-order comparisons (specs/semantics.md §4b) on hand-made streams:
the start a variable binds (runs of validity: abutting, gaps, deletions, derived tuples), the
delta view worked out by hand, and the pruning that keeps an edge which must come first
from probing anything."""

from __future__ import annotations

import snapshot_reference as ref
from incremental_support import assert_matches_reference, compile_text, norm
from sgq.incremental.deltas import delta_rows

ORDERED = ".window 10\nAnswer(x, w) :- a(x, y)@t1, b(y, z)@t2, c(z, w)@t3, t1 < t2, t2 < t3."


def deltas(text: str, edges) -> list:
    """The engine's delta view, after checking it against the reference at every change
    point (both emit modes)."""
    query = compile_text(text)
    edges = norm(edges)
    assert_matches_reference(query, edges, check_state=True)
    eng = query.engine()
    eng.push_batch(edges)
    eng.close()
    got = delta_rows(eng.drain())
    assert got == ref.delta_view(query.checked, edges)
    return got


def test_a_path_counts_only_in_arrival_order():
    in_order = [(1, 2, "a", 1), (2, 3, "b", 2), (3, 4, "c", 3)]
    assert deltas(ORDERED, in_order) == [
        (3, "+", "1", "4", "Answer"),
        (11, "-", "1", "4", "Answer"),
    ]
    out_of_order = [(2, 3, "b", 1), (1, 2, "a", 2), (3, 4, "c", 3)]
    assert deltas(ORDERED, out_of_order) == []


def test_a_renewed_edge_keeps_its_start_and_one_after_a_gap_gets_a_new_one():
    text = ".window 5\nAnswer(x, z) :- a(x, y)@t1, b(y, z)@t2, t1 < t2."
    # a(1, 2) on [0, 5), renewed at 3 and again at 8 (abutting [3, 8) at 8): one run from 0
    renewed = [(1, 2, "a", 0), (2, 3, "b", 2), (1, 2, "a", 3), (2, 3, "b", 4), (1, 2, "a", 8)]
    assert deltas(text, renewed) == [(2, "+", "1", "3", "Answer"), (9, "-", "1", "3", "Answer")]
    # after a gap (a valid on [0, 5), again from 6) the new start 6 is after b's start 2
    gap = [(1, 2, "a", 0), (2, 3, "b", 2), (1, 2, "a", 6), (2, 3, "b", 6)]
    assert deltas(text, gap) == [(2, "+", "1", "3", "Answer"), (5, "-", "1", "3", "Answer")]


def test_a_deletion_ends_a_run_and_a_later_insert_starts_another():
    text = ".window 10\nAnswer(x, z) :- a(x, y)@t1, b(y, z)@t2, t1 <= t2 - 2."
    edges = [
        (1, 2, "a", 0),
        (2, 3, "b", 3),  # 0 <= 3 - 2: a result from 3
        (1, 2, "a", 4, "-"),  # cut at 4
        (1, 2, "a", 5),  # a new run from 5: 5 <= 3 - 2 fails
        (2, 3, "b", 4, "-"),
    ]
    edges = sorted(edges, key=lambda e: e[3])
    assert deltas(text, edges) == [(3, "+", "1", "3", "Answer"), (4, "-", "1", "3", "Answer")]


def test_a_derived_tuple_starts_when_its_first_derivation_does():
    text = (
        ".window 6\n.output Answer\n"
        "D(x, y) :- a(x, y).\nD(x, y) :- b(x, y).\n"
        "Answer(x, z) :- D(x, y)@t1, c(y, z)@t2, t1 < t2."
    )
    # D(1, 2) from a on [0, 6), then from b on [4, 10): one run of D from 0, so both c(2, 3)
    # at 3 and c(2, 4) at 7 come after it
    edges = [(1, 2, "a", 0), (2, 3, "c", 3), (1, 2, "b", 4), (2, 4, "c", 7)]
    assert deltas(text, edges) == [
        (3, "+", "1", "3", "Answer"),
        (7, "+", "1", "4", "Answer"),
        (9, "-", "1", "3", "Answer"),
        (10, "-", "1", "4", "Answer"),
    ]


def test_closures_and_path_atoms_bind_their_derived_start():
    text = ".window 8\nAnswer(x, z) :- a+(x, y)@t1, [b/c](y, z)@t2, t1 > t2, x != z."
    edges = [(2, 3, "b", 0), (3, 4, "c", 1), (1, 2, "a", 2), (0, 1, "a", 3), (2, 3, "b", 9)]
    got = deltas(text, edges)
    assert (2, "+", "1", "4", "Answer") in got and (3, "+", "0", "4", "Answer") in got


class _Counted(dict):
    """An index map that records every read (what a join probes)."""

    reads: list

    def get(self, key, default=None):
        self.reads.append(key)
        return super().get(key, default)

    def __getitem__(self, key):
        self.reads.append(key)
        return super().__getitem__(key)


def _count_reads(eng, labels) -> list:
    """Every later read of the `by_src`/`by_trg` maps of the indexes of `labels`' WSCANs."""
    reads: list = []
    flow = eng.dataflow
    for label in labels:
        for i in flow.wscans[label]:
            index = flow.indexes[i]
            index.by_targets()  # (kept from now on: its reads are counted too)
            for name in ("by_src", "by_trg"):
                counted = _Counted(getattr(index, name))
                counted.reads = reads
                setattr(index, name, counted)
    return reads


def test_an_edge_that_must_come_first_probes_nothing():
    """The timing order prunes before the join: `a` must precede `b` and `c`, so an `a`
    arriving now cannot meet a `b` yet, and its join stops before any probe of the others'
    indexes (it reads only its own entry, for its start)."""
    query = compile_text(ORDERED)
    eng = query.engine()
    eng.push_batch([(2, 3, "b", 1), (3, 4, "c", 2), (2, 5, "b", 2)])
    others = _count_reads(eng, "bc")
    eng.push_batch([(1, 2, "a", 3)])
    assert others == []
    eng.push_batch([(4, 6, "c", 4)])  # the last edge in the order joins, and probes
    assert others


def test_a_renewed_run_that_must_come_first_still_joins():
    """An `a` renewed while valid keeps its start (it began before `now`): unlike a fresh
    one it can precede a `b` on record, so it joins and extends the match it is part of."""
    text = ".window 5\nAnswer(x, z) :- a(x, y)@t1, b(y, z)@t2, t1 < t2."
    edges = [(1, 2, "a", 0), (2, 3, "b", 1), (1, 2, "a", 3)]
    assert deltas(text, edges) == [(1, "+", "1", "3", "Answer"), (6, "-", "1", "3", "Answer")]
