"""The closure PATH's native delta fans say whether their vertices need CSV quoting
(`Fans.plain`, from the names the closure interned: state/product_nodes.py): a writer skips
its check of plain fans' text, and must still quote what is not plain."""

from __future__ import annotations

import io

import pytest
from sgq.incremental.deltas import INTERVAL_FIELDS, DeltaView, Fans, csv_plain, rows_of
from sgq.incremental.fan_rows import FanRows, PairRows, Pairs, Sources
from sgq.incremental.state.window_closure import WindowClosure

import sgq
from sgq.stream_io import ResultWriter

FIELDS = ("time", "op", "src", "trg", "label")


def _assert_written_as_its_rows(rows: FanRows) -> None:
    """The writer gives a FanRows segment the text of its rows written one by one."""
    got, want = io.StringIO(), io.StringIO()
    ResultWriter(got, INTERVAL_FIELDS).write_segments([("Answer", rows)])
    ResultWriter(want, INTERVAL_FIELDS).write_many(
        [(s, t, "Answer", ts, exp) for s, t, ts, exp, _ in rows]
    )
    assert got.getvalue() == want.getvalue()


def _groups(names: list) -> list:
    query = sgq.compile(".window 10\n.slide 1\nAnswer(x, y) :- [a/a*](x, y).")
    engine = query.engine(history=False, deltas=True)
    view = engine.delta_view()
    a, b, c, d = names
    groups: list = []
    for batch in (
        [(a, b, "a", 1), (a, c, "a", 1), (d, a, "a", 1)],
        [(b, c, "a", 4), (c, d, "a", 6)],
        [(a, d, "a", 13)],
    ):
        engine.push_batch(batch)
        groups += view.feed_grouped(engine.drain_rows(), engine.time)
    engine.close()
    groups += view.feed_grouped(engine.drain_rows(), engine.time)
    return groups + view.close_grouped()


@pytest.mark.parametrize(
    ("names", "plain"),
    [(["p1", "p2", "p3", "p4"], True), (["p1", "a,b", 'q"x', "l\nm"], False)],
)
def test_fans_written_are_their_rows_written(names, plain):
    groups = _groups(names)
    fans = [keys for _tau, _op, keys in groups if type(keys) is Fans]
    assert fans and {f.plain for f in fans} == {plain}
    got, want = io.StringIO(), io.StringIO()
    ResultWriter(got, FIELDS).write_groups(groups)
    ResultWriter(want, FIELDS).write_many(rows_of(groups))
    assert got.getvalue() == want.getvalue()
    assert ('"a,b"' in got.getvalue()) is not plain


def test_a_closure_is_plain_until_it_interns_a_name_that_is_not():
    closure = WindowClosure(1, 0, {0})
    closure.intern("p1", 5)
    assert closure.plain
    closure.intern("a,b", 5)
    assert not closure.plain
    restored = WindowClosure(1, 0, {0})
    restored.restore(closure.state())
    assert not restored.plain
    closure.recycle(10)  # every name expired: none is left to quote
    restored.restore(closure.state())
    assert restored.plain


@pytest.mark.parametrize(("flat", "plain"), [("p3", True), ("a,b", False)])
def test_flat_keys_released_with_plain_fans_decide_their_plainness(flat, plain):
    """An instant's flat keys (a nullable PATH's ε-pairs) join its fans in one group."""
    view = DeltaView()
    view.enter_fans(1, "A", {"p1": ["p2", "p0"]}, plain=True)
    view.enter(1, [(flat, flat, "A")])
    view.leave_fans(5, "A", {"p1": ["p2"]}, plain=True)
    groups = view.close_grouped()
    assert [type(keys) for _tau, _op, keys in groups] == [Fans, Fans]
    assert [keys.plain for _tau, _op, keys in groups] == [plain, True]
    got, want = io.StringIO(), io.StringIO()
    ResultWriter(got, FIELDS).write_groups(groups)
    ResultWriter(want, FIELDS).write_many(rows_of(groups))
    assert got.getvalue() == want.getvalue()


@pytest.mark.parametrize(
    ("names", "plain"),
    [(["p1", "p2", "p3", "p4"], True), (["p1", "a,b", 'q"x', "l\nm"], False)],
)
def test_interval_fans_written_are_their_rows_written(names, plain):
    """The interval rows' fans (FanRows) carry the closure's plainness the same way."""
    query = sgq.compile(".window 10\n.slide 1\nAnswer(x, y) :- [a/a*](x, y).")
    engine = query.engine(history=False)
    a, b, c, d = names
    segments: list = []
    for batch in ([(a, b, "a", 1), (d, a, "a", 1)], [(b, c, "a", 4)], [(c, d, "a", 13)]):
        engine.push_batch(batch)
        segments += engine.drain_segments()
    engine.close()
    segments += engine.drain_segments()
    fans = [rows for _label, rows in segments if type(rows) is FanRows and rows]
    assert fans and {f.plain for f in fans} == {plain}
    assert engine.plain_vertices is plain  # (what `sgq run` hands the writer)
    got, want = io.StringIO(), io.StringIO()
    ResultWriter(got, INTERVAL_FIELDS).write_segments(segments, engine.plain_vertices)
    ResultWriter(want, INTERVAL_FIELDS).write_many(
        [(s, t, label, ts, exp) for label, rows in segments for s, t, ts, exp, _ in rows]
    )
    assert got.getvalue() == want.getvalue()
    assert ('"a,b"' in got.getvalue()) is not plain


def test_a_row_appended_to_plain_fans_keeps_them_plain_only_if_it_is():
    rows = FanRows(plain=True)
    rows.add("p1", ["p2"], 1, 5)
    rows.append(("p3", "p3", 1, 5, None))
    assert rows.plain
    rows.append(("a,b", "a,b", 1, 5, None))
    assert not rows.plain


@pytest.mark.parametrize("names", [["p1", "p2", "p3", "p4"], ["p1", "a,b", 'q"x', "l\nm"]])
def test_cross_product_fans_written_are_their_rows_written(names):
    """A fan of many sources (the followers of one vertex and exp) is written as its rows:
    a source whose start is before every target's, after every target's, or between them,
    with one start for all targets or a start each."""
    a, b, c, d = names
    rows = FanRows(plain=all(csv_plain(v) for v in names))
    rows.add_fans(
        [
            (Sources([a, b, c], [1, 4, 9]), [c, d], [3, 6], 12),
            (Sources([d, a], [2, 5]), [b, c, d], 4, 10),
            (a, [b, c], [2, 3], 8),
            (Sources([b, d], [1, 5]), [c], 5, 9),  # one target, every source before it
            (Sources([c, d], [2, 7]), [a], 5, 9),  # one target: a line per source
        ]
    )
    assert len(rows) == 3 * 2 + 2 * 3 + 2 + 2 + 2
    assert list(rows)[-2:] == [(c, a, 5, 9, None), (d, a, 7, 9, None)]
    assert list(rows)[:6] == [
        (a, c, 3, 12, None),
        (a, d, 6, 12, None),
        (b, c, 4, 12, None),
        (b, d, 6, 12, None),
        (c, c, 9, 12, None),
        (c, d, 9, 12, None),
    ]
    assert list(rows)[6:8] == [(d, b, 4, 10, None), (d, c, 4, 10, None)]
    assert list(rows)[9] == (a, b, 5, 10, None)
    assert list(rows)[-4:-2] == [(b, c, 5, 9, None), (d, c, 5, 9, None)]
    _assert_written_as_its_rows(rows)


@pytest.mark.parametrize("names", [["p1", "p2", "p3", "p4"], ["p1", "a,b", 'q"x', "l\nm"]])
def test_pair_fans_written_are_their_rows_written(names):
    """A fan of pairs (a source beside each target: the one-target findings of one level)
    is written as its rows, with one start for all or a start each."""
    a, b, c, d = names
    rows = FanRows(plain=all(csv_plain(v) for v in names))
    rows.add_fans([(Pairs([a, b, c]), [b, c, d], 4, 10), (Pairs([d, a]), [a, d], [2, 5], 9)])
    rows.add(b, [a], 3, 8)
    assert len(rows) == 6
    assert list(rows) == [
        (a, b, 4, 10, None),
        (b, c, 4, 10, None),
        (c, d, 4, 10, None),
        (d, a, 2, 9, None),
        (a, d, 5, 9, None),
        (b, a, 3, 8, None),
    ]
    _assert_written_as_its_rows(rows)
    # the same rows gathered one by one (PairRows): one fan per exp, in the order given,
    # one start where all share it, one source alone as a plain fan
    pairs = PairRows()
    pairs.add(a, b, 4, 10)
    pairs.add(d, a, 2, 9)
    pairs.extend([b, c], [c, d], [4, 4], 10)
    pairs.add(a, d, 5, 9)
    pairs.add(b, a, 3, 8)
    via = FanRows(plain=rows.plain)
    pairs.into(via)
    assert not pairs
    assert [(type(src), ts) for src, _trgs, ts, _exp in via.fans] == [
        (Pairs, 4),
        (Pairs, [2, 5]),
        (type(b), 3),
    ]
    assert list(via) == list(rows)
    # the lists given are read, not kept (an expiry entry may hold them); a long run of
    # rows goes out in fans of at most MOST rows
    pairs = type("Few", (PairRows,), {"__slots__": (), "MOST": 2})()
    given = [a, b, c], [b, c, d], [1, 1, 2]
    pairs.extend(*given, 7)
    pairs.add(d, a, 1, 7)
    assert given == ([a, b, c], [b, c, d], [1, 1, 2])
    few = FanRows()
    pairs.into(few)
    assert [(src.names, ts) for src, _trgs, ts, _exp in few.fans] == [([a, b], 1), ([c, d], [2, 1])]
    assert list(few) == [
        (a, b, 1, 7, None),
        (b, c, 1, 7, None),
        (c, d, 2, 7, None),
        (d, a, 1, 7, None),
    ]


@pytest.mark.parametrize("names", [["p1", "p2", "p3", "p4"], ["p1", "a,b", 'q"x', "l\nm"]])
def test_one_source_fans_are_written_from_the_later_start(names):
    """A cross product of one source with one start for all targets (most of them: a
    creator's posts of one day are few) is written as a plain fan from the later of the
    source's and the targets' start; a plain fan of one target as its one line."""
    a, b, c, d = names
    rows = FanRows(plain=all(csv_plain(v) for v in names))
    rows.add_fans(
        [
            (Sources([a], [7]), [b, c], 4, 12),  # the source made after the targets' start
            (Sources([b], [2]), [c, d, a], 4, 12),  # before it
            (Sources([c], [3]), [a], 5, 9),
            (d, [a], 6, 9),
            (a, [b, c, d], 6, 11),
        ]
    )
    assert len(rows) == 2 + 3 + 1 + 1 + 3
    assert list(rows)[:4] == [
        (a, b, 7, 12, None),
        (a, c, 7, 12, None),
        (b, c, 4, 12, None),
        (b, d, 4, 12, None),
    ]
    _assert_written_as_its_rows(rows)


@pytest.mark.parametrize("names", [["p1", "p2", "p3", "p4"], ["p1", "a,b", 'q"x', "l\nm"]])
def test_fans_sharing_lists_are_written_with_their_own_label_and_exp(names):
    """Producers hand the same target and start lists to many fans, round after round; a
    writer that keeps their lines between calls still writes each fan's label and exp."""
    a, b, c, d = names
    trgs, starts = [b, c, d], [1, 2, 3]
    segments = []
    for label, exp in (("Answer", 9), ("Other", 9), ("Answer", 12), ("Answer", 9)):
        rows = FanRows(plain=all(csv_plain(v) for v in names))
        rows.add(a, trgs, starts, exp)
        rows.add(d, trgs, starts, exp)
        rows.add(c, [b, c, d], [1, 2, 3], exp)  # equal lists, other objects
        segments.append((label, rows))
    got, want = io.StringIO(), io.StringIO()
    writer = ResultWriter(got, INTERVAL_FIELDS)
    for segment in segments:
        writer.write_segments([segment])
    ResultWriter(want, INTERVAL_FIELDS).write_many(
        [(s, t, label, ts, exp) for label, rows in segments for s, t, ts, exp, _ in rows]
    )
    assert got.getvalue() == want.getvalue()
    assert writer.rows == 4 * 9


def test_an_engine_knows_whether_every_vertex_pushed_is_plain():
    query = sgq.compile(".window 10\n.slide 1\nAnswer(x, y) :- a(x, y).")
    engine = query.engine(history=False)
    engine.push_batch([("p1", "p2", "a", 1), ("p2", "p3", "b", 2)])
    assert engine.plain_vertices
    restored = query.engine(history=False)
    restored.restore(engine.state())
    assert restored.plain_vertices
    engine.push_batch([("p1", "x\ry", "a", 3)])
    assert not engine.plain_vertices
    engine.push_batch([("p1", "p2", "a", 4)])
    assert not engine.plain_vertices  # (for good)
    restored.restore(engine.state())
    assert not restored.plain_vertices


@pytest.mark.parametrize(
    ("names", "plain"),
    [(["p1", "p2", "p3", "p4"], True), (["p1", "a,b", 'q"x', "l\nm"], False)],
)
def test_epsilon_pairs_keep_an_instant_plain_when_their_vertices_are(names, plain):
    """The ε-pairs of a nullable PATH (native keys of its own) share each instant's group
    with the closure's fans: they say whether their vertices are plain, so a plain instant
    stays plain, and one that is not is still quoted."""
    query = sgq.compile(".window 10\n.slide 1\nAnswer(x, y) :- [a*](x, y).")
    engine = query.engine(history=False, deltas=True)
    view = engine.delta_view()
    a, b, c, d = names
    groups: list = []
    for batch in ([(a, b, "a", 1), (b, c, "a", 1)], [(c, d, "a", 4)], [(d, a, "a", 13)]):
        engine.push_batch(batch)
        groups += view.feed_grouped(engine.drain_rows(), engine.time)
    engine.close()
    groups += view.feed_grouped(engine.drain_rows(), engine.time)
    groups += view.close_grouped()
    fans = [keys for _tau, _op, keys in groups if type(keys) is Fans]
    assert fans and {f.plain for f in fans} == {plain}
    assert any((v, v, "Answer") in f.keys() for f in fans for v in names)  # ε-pairs among them
    got, want = io.StringIO(), io.StringIO()
    ResultWriter(got, FIELDS).write_groups(groups)
    ResultWriter(want, FIELDS).write_many(rows_of(groups))
    assert got.getvalue() == want.getvalue()
