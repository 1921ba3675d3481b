"""Spans (incremental/runtime.py `run_span`): the instants between two expiries run as one
round where the plan's output is S-PATH's native deltas; the delta events are exactly those of
one round per instant."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from incremental_support import compile_text, edge_streams, run_all, timed

import sgq

SPATH = sgq.PlanOptions(path_operator="spath")
# closures that hand over to S-PATH at the first batch of a slide holding any row: in a span
HANDING_OVER = sgq.PlanOptions(tuning=sgq.Tuning(min_rows=1, tree_cost=0))
# closures with coarse levels from the first slide on (a closure for one new level in two):
# interval rows with lower-bound ends, widened when their level comes up
COARSE = sgq.PlanOptions(path_operator="closure", tuning=sgq.Tuning(coarse_work=0, level_every=2))
CLOSURE = sgq.PlanOptions(path_operator="closure")

PROGRAMS = [
    "Answer(x, y) :- [a/b*](x, y).",
    "Answer(y, x) :- [(a|b)+/b](x, y).",  # an output RENAME that swaps
    "Answer(x, y) :- [a/b*](x, y), x != y.",  # a FILTER above PATH: rows, no spans
    "Answer(x, y) :- [a*](x, y).",  # nullable: ε-pairs are native keys, in spans too
    # a WSCAN output beside another: rows, one round per instant
    ".output Answer, Other\nAnswer(x, y) :- [a/b*](x, y).\nOther(x, y) :- c(x, y).",
    "Answer(y, x) :- a(x, y).",  # a WSCAN the only output, under a RENAME that swaps
    # a WSCAN output that a PATH reads too: one round per instant
    ".output Answer, Other\nAnswer(x, y) :- a(x, y).\nOther(x, y) :- [a/b*](x, y).",
    "P(x, y) :- [a/b*](x, y).\nAnswer(x, y) :- [P+/c](x, y).",
    "P(x, y) :- [a+](x, y).\nAnswer(x, y) :- [P/b*](x, y).",
]

edge_lists = st.lists(
    st.tuples(
        st.integers(0, 4),
        st.integers(0, 4),
        st.sampled_from("abcd"),  # d: read by no rule
        st.integers(0, 3),
        st.sampled_from("++++-"),
    ),
    min_size=1,
    max_size=40,
)


#: a stream and its window: what the tests of spans against rounds draw
STREAMS = dict(
    drawn=edge_lists,
    window=st.integers(3, 7),
    slide=st.integers(1, 3),
    deletions=st.booleans(),
)


def _stream(drawn, deletions: bool):
    return [
        (str(s), str(d), label, t, op if deletions else "+") for s, d, label, t, op in timed(drawn)
    ]


def _events(query, edges, spans: bool):
    engine = query.engine(history=False, deltas=True)
    view = engine.delta_view()
    events: list = []
    if spans:
        engine.push_batch(edges)
    else:  # one round per instant, the way `push` has always run them
        for edge in edges:
            engine.push(*edge)
        engine.flush()
    events += view.feed(engine.drain(), engine.time)
    engine.close()
    events += view.feed(engine.drain(), engine.time)
    return events + view.close()


@pytest.mark.parametrize(
    "options", [SPATH, sgq.PlanOptions(), HANDING_OVER], ids=["spath", "closure", "hand-over"]
)
@pytest.mark.parametrize("text", PROGRAMS)
@settings(max_examples=30, deadline=None)
@given(**STREAMS)
def test_spans_give_the_deltas_of_one_round_per_instant(
    text, options, drawn, window, slide, deletions
):
    _assert_spans_are_rounds(text, drawn, window, slide, deletions, options)


def _assert_spans_are_rounds(text, drawn, window, slide, deletions, options=sgq.PlanOptions()):
    """The delta events of `text` over the stream `drawn` in spans are those of one round
    per instant."""
    query = compile_text(".window 1\n" + text, window=window, slide=slide, options=options)
    edges = _stream(drawn, deletions)
    assert _events(query, edges, spans=True) == _events(query, edges, spans=False)


def _intervals(query, edges, spans: bool, paths: bool = False):
    """Interval mode: the rows in emission order, and each key's coalesced history."""
    engine = run_all(query, edges, batch=spans, paths=paths)
    return engine.drain(), engine.history


@pytest.mark.parametrize(
    "options",
    [SPATH, HANDING_OVER, CLOSURE, COARSE],
    ids=["spath", "hand-over", "closure", "coarse"],
)
@pytest.mark.parametrize("text", PROGRAMS)
@settings(max_examples=30, deadline=None)
@given(
    drawn=edge_lists,
    window=st.integers(3, 7),
    slide=st.integers(1, 3),
    deletions=st.booleans(),
    paths=st.booleans(),
)
def test_spans_of_interval_rows_give_the_coverage_of_one_round_per_instant(
    text, options, drawn, window, slide, deletions, paths
):
    """S-PATH's rows in spans: each admitted at its own instant, so every key is covered
    exactly as one round per instant covers it; the rows are starts and widenings in time
    order per key (a later renewal in the span may show its exp early: fewer widenings)."""
    query = compile_text(".window 1\n" + text, window=window, slide=slide, options=options)
    edges = _stream(drawn, deletions)
    rows, history = _intervals(query, edges, spans=True, paths=paths)
    assert history == _intervals(query, edges, spans=False, paths=paths)[1]
    last: dict = {}
    for r in rows:
        key = (r.src, r.trg, r.label)
        assert r.ts >= last.get(key, (-1, -1))[0] or r.exp < last[key][1]  # (an end record)
        last[key] = (r.ts, r.exp)
        assert r.path is None or paths  # (an ε-pair's row has no path to show)


def _spanned_rounds(
    text: str, edges, window=10, slide=5, options=SPATH, deltas=True
) -> tuple[int, int]:
    """(spans run, per-instant rounds run) by push_batch over `edges`."""
    query = compile_text(".window 1\n" + text, window=window, slide=slide, options=options)
    engine = query.engine(history=False, deltas=deltas)
    flow = engine.dataflow
    counts = [0, 0]
    run_span, run = flow.run_span, flow.run

    def counted_span(*args):
        counts[0] += 1
        return run_span(*args)

    def counted_run(*args):
        counts[1] += 1
        return run(*args)

    flow.run_span, flow.run = counted_span, counted_run
    engine.push_batch(edges)
    return counts[0], counts[1]


def test_a_span_runs_the_instants_of_one_slide_bucket_as_one_round():
    edges = [("1", "2", "a", t) for t in range(0, 5)] + [("2", "3", "b", t) for t in (5, 6, 9)]
    assert _spanned_rounds("Answer(x, y) :- [a/b*](x, y).", edges) == (2, 0)


def test_a_span_stops_at_an_expiry_inside_the_bucket():
    # window 7, slide 5: tuples of bucket 0 expire at 7, inside bucket [5, 10)
    edges = [("1", "2", "a", t) for t in (5, 6, 7, 8)]
    assert _spanned_rounds("Answer(x, y) :- [a/b*](x, y).", edges, window=7) == (2, 0)


@pytest.mark.parametrize("deltas", [True, False], ids=["deltas", "intervals"])
def test_the_closure_path_takes_spans_too(deltas):
    """Interval rows too, where only the engine's output reads them; not rows a FILTER
    reads (each goes per instant: a widening starts before the instant it is emitted at)."""
    edges = [("1", "2", "a", t) for t in range(0, 5)] + [("2", "3", "b", t) for t in (5, 6, 9)]
    text = "Answer(x, y) :- [a/b*](x, y)."
    assert _spanned_rounds(text, edges, options=CLOSURE, deltas=deltas) == (2, 0)
    filtered = "Answer(x, y) :- [a/b*](x, y), x != y."
    assert _spanned_rounds(filtered, edges, options=CLOSURE, deltas=deltas) == (0, 8)


@pytest.mark.parametrize("options", [SPATH, sgq.PlanOptions()], ids=["spath", "closure"])
def test_a_nullable_path_takes_spans_with_its_epsilon_pairs(options):
    edges = [("1", "2", "a", t) for t in range(0, 5)] + [("2", "3", "b", t) for t in (5, 6, 9)]
    text = "Answer(x, y) :- [a*/b*](x, y)."
    assert _spanned_rounds(text, edges, options=options) == (2, 0)


@pytest.mark.parametrize("options", [SPATH, sgq.PlanOptions()], ids=["spath", "closure"])
def test_an_epsilon_pair_ending_at_a_spans_start_leaves_before_it_enters_again(options):
    # window = slide = 3: (0, 0)'s coverage ends at 3, where the second span starts; it is
    # not continued at 3, so it leaves at 3 and enters again at 4 (found by the property test)
    edges = [("0", "0", "a", t, "+") for t in (0, 0, 1)] + [
        ("1", "1", "a", 3, "+"),
        ("0", "0", "a", 4, "+"),
    ]
    query = compile_text(
        ".window 1\nAnswer(x, y) :- [a*](x, y).", window=3, slide=3, options=options
    )
    events = _events(query, edges, spans=True)
    assert events == _events(query, edges, spans=False)
    assert [e for e in events if e[2] == "0"] == [
        (0, "+", "0", "0", "Answer"),
        (3, "-", "0", "0", "Answer"),
        (4, "+", "0", "0", "Answer"),
        (6, "-", "0", "0", "Answer"),
    ]


NESTED = "P(x, y) :- [a/b*](x, y).\nAnswer(x, y) :- [P+/c](x, y)."
# a stream on which the inner PATH's rows, taken in spans, gave the outer one fewer results
NESTED_STREAM = [
    (str(s), str(d), label, t, "+")
    for s, d, label, t in [
        (0, 1, "a", 1), (3, 2, "a", 3), (1, 1, "a", 3), (0, 2, "c", 5), (2, 0, "c", 6),
        (2, 2, "b", 6), (1, 2, "d", 7), (0, 4, "b", 8), (1, 1, "a", 8), (2, 3, "a", 9),
        (1, 4, "d", 9), (4, 2, "a", 9), (3, 3, "c", 10), (1, 2, "c", 12), (0, 2, "a", 13),
        (3, 3, "d", 14), (3, 2, "a", 15), (0, 2, "b", 15), (2, 3, "c", 16), (3, 1, "c", 16),
        (0, 3, "d", 16), (2, 2, "c", 17), (4, 3, "b", 17), (4, 3, "d", 18), (3, 2, "a", 18),
    ]
]  # fmt: skip


def test_a_wscan_output_takes_spans_where_it_is_the_only_output_and_no_operator_reads_it():
    """A WSCAN whose rows only the output has, the only output, runs in spans, its rows
    keeping their keys' coalesced starts and their time order (the property tests above hold
    them to one round per instant). One that a PATH reads too would give that PATH each row
    at its coalesced start, and one beside another output would show its rows out of time
    order with that output's: one round per instant."""
    edges = [("1", "2", "a", t) for t in range(0, 5)] + [("2", "3", "b", t) for t in (5, 6, 9)]
    for deltas in (True, False):
        assert _spanned_rounds(PROGRAMS[5], edges, deltas=deltas) == (1, 0)
    # a key renewed in a later bucket: its row starts where its coverage does, at 0
    renewed = [("1", "2", "a", 0), ("3", "4", "a", 4), ("1", "2", "a", 6), ("5", "6", "a", 7)]
    query = compile_text(".window 1\n" + PROGRAMS[5], window=10, slide=5)
    rows = _intervals(query, renewed, spans=True)[0]
    assert rows == _intervals(query, renewed, spans=False)[0]
    assert [(r.src, r.ts, r.exp) for r in rows if r.src == "2"] == [("2", 0, 10), ("2", 0, 15)]
    edges += [("2", "3", "c", 9)]
    assert _spanned_rounds(PROGRAMS[4], edges) == (0, 8)
    assert _spanned_rounds(PROGRAMS[6], edges) == (0, 8)


def test_rows_another_path_reads_go_per_instant():
    """A widening row starts at its key's coalesced start, before the instant it comes at:
    a reader taking it as an sgt of that start would relax it without the edges since. So a
    PATH whose rows another PATH reads takes no span; the output PATH still does."""
    query = compile_text(".window 1\n" + NESTED, window=5, slide=2, options=SPATH)
    inner, outer = [op for op in query.engine().dataflow.ops if type(op).__name__ == "PathOp"]
    assert not inner.spans() and outer.spans()
    spanned = _intervals(query, NESTED_STREAM, spans=True)[1]
    assert spanned == _intervals(query, NESTED_STREAM, spans=False)[1]
    assert _events(query, NESTED_STREAM, spans=True) == _events(query, NESTED_STREAM, spans=False)


def test_a_deletion_runs_in_a_round_of_its_own_and_filtered_rows_per_instant():
    minus = [("1", "2", "a", 0, "+"), ("1", "2", "a", 1, "-"), ("1", "2", "a", 2, "+")]
    # the span at 0, the '-' in a round of its own; after it the results are rows (S-PATH's
    # `_stop_native`) for good, and S-PATH's rows take spans too
    assert _spanned_rounds("Answer(x, y) :- [a/b*](x, y).", minus) == (2, 1)
    rows = [("1", "2", "a", t) for t in range(3)]
    assert _spanned_rounds("Answer(x, y) :- [a/b*](x, y), x != y.", rows) == (0, 3)


@pytest.mark.parametrize("text", [PROGRAMS[0], PROGRAMS[2]], ids=["spans", "rows"])
def test_edges_no_rule_reads_move_the_frontier_once_per_batch(text):
    """Edges of a label no rule reads only move time on: the frontier follows them at the
    next round or at the batch's end (one settle), not at each of their instants; the
    deltas are those of the stream without them."""
    query = compile_text(".window 1\n" + text, window=10, slide=5)
    read = [("1", "2", "a", 0), ("2", "3", "b", 3), ("2", "4", "b", 12)]
    unread = [("7", "8", "d", t) for t in range(1, 60)]
    edges = sorted(read + unread, key=lambda e: e[3])
    engine = query.engine(history=False, deltas=True)
    settles = []
    settle = engine.dataflow.settle
    engine.dataflow.settle = lambda frontier: (settles.append(frontier), settle(frontier))
    engine.push_batch(edges)
    assert engine.time == 59 and engine.stats()["ignored_edges"] == len(unread)
    assert len(settles) <= 8, settles
    view = engine.delta_view()
    got = view.feed(engine.drain(), engine.time)
    engine.close()
    got += view.feed(engine.drain(), engine.time) + view.close()
    without = _events(query, [(*e, "+") for e in read], spans=False)
    assert got == without


def test_spans_take_any_vertex_and_time_values_push_does():
    """`push_batch` by spans reads the edges the reader makes (strings, int times) without
    converting them; any other values are converted and checked as `push` does: numbers as
    vertices and labels are their text, a time given as text its integer, and a time that goes
    back, that is no integer, or comes after `close` is the same error."""
    query = compile_text(".window 4\nAnswer(x, y) :- [a/b*](x, y).")
    plain = [("1", "2", "a", 0), ("2", "3", "b", 1), ("3", "1", "b", 2)]
    other = [(1, 2, "a", "0"), (2, 3, "b", 1), (3, 1, "b", "2")]
    assert _events(query, other, spans=True) == _events(query, plain, spans=True)
    for bad, message in [
        ([("1", "2", "a", 3), ("2", "3", "b", 2)], "earlier than time 3"),
        ([("1", "2", "a", "soon")], "is not an integer"),
    ]:
        engine = query.engine(history=False, deltas=True)
        with pytest.raises(sgq.UserError, match=message):
            engine.push_batch(bad)
    engine = query.engine(history=False, deltas=True)
    engine.close()
    with pytest.raises(sgq.UserError, match="closed"):
        engine.push_batch(plain)


@pytest.mark.parametrize("options", [CLOSURE, COARSE], ids=["closure", "coarse"])
@pytest.mark.parametrize("text", PROGRAMS)
@settings(max_examples=30, deadline=None)
@given(drawn=edge_lists, window=st.integers(3, 7), slide=st.integers(1, 3))
def test_closure_interval_rows_of_spans_are_those_of_one_round_per_instant(
    text, options, drawn, window, slide
):
    """The closure PATH runs a span's instants one by one, dropping the levels before each
    at its start as `overdue` drops them between rounds: the same rows in the same order."""
    query = compile_text(".window 1\n" + text, window=window, slide=slide, options=options)
    edges = _stream(drawn, deletions=False)
    assert _intervals(query, edges, spans=True)[0] == _intervals(query, edges, spans=False)[0]


PATTERNS = [
    "Answer(m1, m2) :- a(x, y), b(m1, x), b(m2, y), c(m2, m1).",  # cyclic, a meet (SGA Q5)
    "Answer(x, z) :- a(x, y), b(y, z).",
    "Answer(x, z) :- a(x, y), a(y, z), x != z.",  # one input twice, a condition
    "Answer(x, y) :- a(x, y), b(y, x).",  # both head variables bound by each atom
    # one atom: its tuples, filtered, are the keys in head order
    "Answer(y, x) :- a(x, y), x != y.",
    'Answer(x, x) :- a(x, y), y != "1".',  # one head variable twice: keys merge
]


@pytest.mark.parametrize("text", PATTERNS)
@settings(max_examples=40, deadline=None)
@given(**STREAMS)
def test_a_native_pattern_in_spans_gives_the_deltas_of_one_round_per_instant(
    text, drawn, window, slide, deletions
):
    """PATTERN's keys of a span enter at their earliest combination, whichever input batch
    found it, and a key ending where a span would start leaves before it enters again."""
    _assert_spans_are_rounds(text, drawn, window, slide, deletions)


JOINED_ROWS = [
    "Answer(x, z) :- a(x, y), b(y, m), c(m, z).",  # a chain: a PATTERN over a nested one
    "P(x, y) :- a(x, m), b(m, y).\nAnswer(x, z) :- P(x, y), c(y, z).",
    "P(x, y) :- a(x, m), b(m, y).\nQ(x, y) :- P(x, m), c(m, y).\nAnswer(x, z) :- Q(x, y), a(y, z).",
    "P(x, y) :- a(x, y), b(y, x).\nAnswer(m1, m2) :- P(x, y), c(m1, x), c(m2, y), a(m2, m1).",
    "P(x, y) :- a(x, m), b(m, y).\nAnswer(x, y) :- [P+](x, y).",  # read by a closure PATH
    "P(x, y) :- a(x, m), b(m, y).\nAnswer(x, y) :- [P/c*](x, y).",
    "P(y, x) :- a(x, y), x != y.\nAnswer(x, z) :- P(x, y), b(y, z).",  # one atom's rows
]
KEYED = sgq.PlanOptions(tuning=sgq.Tuning(functional_joins=False))


@pytest.mark.parametrize("functional", [True, False], ids=["functional", "keyed"])
@pytest.mark.parametrize("text", JOINED_ROWS)
@settings(max_examples=40, deadline=None)
@given(**STREAMS)
def test_pattern_rows_another_pattern_reads_in_spans_give_the_deltas_of_one_round_per_instant(
    text, functional, drawn, window, slide, deletions
):
    """A PATTERN whose rows only operators read takes spans: a key enters at its earliest
    combination, a widening comes from the span's first instant, and the reader's index
    keeps what one round per instant would (with a functional join, from when it ends);
    a PATH reader's results are those of one round per instant too, by S-PATH or the
    closure, as deltas and as interval coverage."""
    for path_operator in ("auto", "spath"):
        options = sgq.PlanOptions(
            path_operator=path_operator, tuning=sgq.Tuning(functional_joins=functional)
        )
        _assert_spans_are_rounds(text, drawn, window, slide, deletions, options)
        query = compile_text(".window 1\n" + text, window=window, slide=slide, options=options)
        edges = _stream(drawn, deletions)
        assert _intervals(query, edges, spans=True)[1] == _intervals(query, edges, spans=False)[1]


def test_a_widening_in_a_span_leaves_the_readers_span_where_it_is():
    """P(0, 0) widens in a span (its `a` edge renewed): its row comes from the span's first
    instant, not from the key's start, which would have made the reader join as of an
    instant before the span and enter keys again there (found by the property test)."""
    drawn = [(0, 0, "a", 1, "+")] * 4 + [(0, 0, "a", 2, "+")] * 4 + [(0, 0, "c", 2, "+")]
    drawn += [(0, 0, "a", 1, "+")] * 3 + [(0, 0, "a", 2, "+"), (0, 0, "b", 1, "+")]
    drawn += [(0, 0, "a", 1, "+")] * 2 + [(0, 0, "b", 0, "+")]
    _assert_spans_are_rounds(JOINED_ROWS[3], drawn, window=9, slide=3, deletions=False)


def test_pattern_rows_take_spans_where_only_operators_read_them():
    edges = [("1", "2", "a", t) for t in range(0, 5)] + [
        ("2", "3", "b", 5),
        ("1", "5", "a", 6),
        ("2", "3", "b", 6),
        ("3", "4", "c", 6),
        ("1", "6", "a", 7),
        ("3", "4", "c", 7),
        ("5", "3", "b", 8),
        ("2", "3", "b", 9),
    ]
    for text in (JOINED_ROWS[0], JOINED_ROWS[1], JOINED_ROWS[4]):
        assert _spanned_rounds(text, edges, options=KEYED) == (2, 2)
    # the output's own rows (deferred widenings): one round per instant
    assert _spanned_rounds(JOINED_ROWS[0], edges, options=KEYED, deltas=False) == (0, 10)


def test_a_native_pattern_takes_spans_but_not_from_an_expiry_instant():
    text = PATTERNS[0]  # (a two-atom chain starts as a FunctionalJoin: per instant)
    # window 10, slide 5: tuples expire at 10, 15, ...; 0 and 5 count as expiry instants too
    edges = [("1", "2", "a", t) for t in range(1, 5)] + [("2", "3", "b", t) for t in (6, 7, 9)]
    assert _spanned_rounds(text, edges) == (2, 0)
    # window 7, slide 5: tuples of bucket 0 expire at 7; the round at 7 runs alone
    edges = [("1", "2", "a", t) for t in (5, 6, 7, 8)]
    assert _spanned_rounds(text, edges, window=7) == (2, 1)
    assert _spanned_rounds(text, edges, window=7, deltas=False) == (0, 4)  # rows: per instant
    # one atom under a condition: spans too
    assert _spanned_rounds(PATTERNS[4], edges, window=7) == (2, 1)


def test_one_atoms_tuples_of_a_span_that_make_one_key_enter_it_at_the_earliest():
    # `Answer(x, x)`: (0, 2), (0, 3), (0, 4) are one key (0, 0), found at 1 in the span
    query = compile_text(".window 1\n" + PATTERNS[5], window=10, slide=5)
    edges = [("0", "2", "a", 1, "+"), ("0", "3", "a", 2, "+"), ("0", "4", "a", 3, "+")]
    events = _events(query, edges, spans=True)
    assert events == _events(query, edges, spans=False)
    assert events == [(1, "+", "0", "0", "Answer"), (10, "-", "0", "0", "Answer")]


def test_a_pattern_key_ending_at_an_expiry_instant_enters_again_later_in_the_bucket():
    # window = slide = 3: (1, 3)'s coverage ends at 3; at 5 a new b edge derives it again
    text = "Answer(x, z) :- a(x, y), b(y, z), c(x, z)."
    edges = [("1", "2", "a", 0), ("2", "3", "b", 1), ("1", "3", "c", 2), ("5", "6", "a", 3)]
    edges += [("1", "2", "a", 4), ("1", "3", "c", 4), ("2", "3", "b", 5)]
    query = compile_text(".window 1\n" + text, window=3, slide=3)
    events = _events(query, edges, spans=True)
    assert events == _events(query, edges, spans=False)
    assert [e for e in events if e[2] == "1"] == [
        (2, "+", "1", "3", "Answer"),
        (3, "-", "1", "3", "Answer"),
        (5, "+", "1", "3", "Answer"),
        (6, "-", "1", "3", "Answer"),
    ]


GUARDED = [
    PATTERNS[0],  # c(m2, m1): the guard on the head reversed
    "Answer(x, z) :- a(x, y), b(y, z), c(x, z).",
    "Answer(x, z) :- a(x, y), b(y, z), c(x, z), x != z.",
    "Answer(x, y) :- a(x, y), b(y, x).",
    "Answer(y, x) :- a(x, y), x != y.",  # one atom, its own guard
]
# a span's keys from the guard atom always, or from the new tuples always (with the ends
# re-derived from the start: the guard serves only then)
FROM_GUARD = sgq.PlanOptions(tuning=sgq.Tuning(guard_scan=float("inf"), renewed_share=0))
FROM_NEW_TUPLES = sgq.PlanOptions(tuning=sgq.Tuning(guard_scan=0, renewed_share=0))


@pytest.mark.parametrize("text", GUARDED)
@settings(max_examples=40, deadline=None)
@given(
    # 3 vertices: pairs recur, cycles close; deletions on half the streams
    edges=edge_streams(("a", "b", "c"), max_size=60, gaps=(0, 0, 1, 1)),
    window=st.integers(6, 12),
    slide=st.integers(2, 6),
    deletions=st.booleans(),
)
def test_keys_found_from_the_guard_are_those_of_one_round_per_instant(
    text, edges, window, slide, deletions
):
    """A span's keys found from the guard atom (the candidates not live at its start, each
    derived with the head bound) enter when the new tuples' joins and one round per instant
    say they do."""
    if not deletions:
        edges = [edge for edge in edges if edge[4] == "+"]
    runs = [
        compile_text(".window 1\n" + text, window=window, slide=slide, options=options)
        for options in (FROM_GUARD, FROM_NEW_TUPLES)
    ]
    per_instant = _events(runs[1], edges, spans=False)
    assert _events(runs[0], edges, spans=True) == per_instant
    assert _events(runs[1], edges, spans=True) == per_instant


def test_a_span_whose_pairs_recur_finds_its_keys_from_the_guard(monkeypatch):
    """Pairs that recur slide after slide renew live keys: once they are most of the tuples
    taken, the ends are re-derived (`Tuning.renewed_share`), and the span scans the guard
    for the few keys that may enter instead of joining every new tuple."""
    from sgq.incremental.operators.pattern import PatternOp

    taken = []
    guarded = PatternOp._guarded_keys

    def spy(self, batches, first):
        keys = guarded(self, batches, first)
        taken.append(keys is not None)
        return keys

    monkeypatch.setattr(PatternOp, "_guarded_keys", spy)
    text = PATTERNS[0]
    edges = []
    for t in range(0, 40, 2):  # the same 4-cycle every other instant, one key more at 21
        edges += [("x", "y", "a", t), ("1", "x", "b", t), ("2", "y", "b", t), ("2", "1", "c", t)]
        if t == 20:
            edges += [("3", "x", "b", t + 1), ("2", "3", "c", t + 1)]
    soon = sgq.PlanOptions(tuning=sgq.Tuning(renewals_seen=8))
    query = compile_text(".window 1\n" + text, window=10, slide=5, options=soon)
    events = _events(query, edges, spans=True)
    assert events == _events(query, edges, spans=False)
    assert any(taken)
    assert (21, "+", "3", "2", "Answer") in events
