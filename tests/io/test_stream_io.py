"""The edge readers of `sgq run` (sgq/stream_io.py): formats, headers, columns, bad lines."""

from __future__ import annotations

import csv
import io
from unittest import mock

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sgq.base.errors import UserError
from sgq.incremental.deltas import INTERVAL_FIELDS, Fans, csv_plain, rows_of
from sgq.incremental.fan_rows import FanRows

from sgq import stream_io
from sgq.stream_io import (
    ResultWriter,
    StreamError,
    _plain_csv,
    parse_columns,
    parse_lines,
    read_edges,
)


def lines(text: str):
    return io.StringIO(text)


def edges(text: str, fmt: str = "csv", columns=None, on_error=None):
    cols = parse_columns(columns) if columns else None
    return list(parse_lines(lines(text), fmt, cols, "in.csv", on_error))


def test_csv_with_and_without_header_give_the_same_edges():
    with_header = edges("src,trg,label,ts\na,b,x,1\nb,c,y,2\n")
    without = edges("a,b,x,1\nb,c,y,2\n")
    assert with_header == without == [("a", "b", "x", 1, "+"), ("b", "c", "y", 2, "+")]


def test_header_order_is_followed():
    assert edges("ts,label,trg,src,op\n5,x,b,a,-\n") == [("a", "b", "x", 5, "-")]


def test_columns_map_other_orders_and_override_no_header():
    assert edges("5,a,x,b\n", columns="ts,src,label,trg") == [("a", "b", "x", 5, "+")]


def test_five_columns_mean_op():
    assert edges("a,b,x,1,-\n") == [("a", "b", "x", 1, "-")]


def test_tsv_and_jsonl():
    assert edges("a\tb\tx\t1\n", fmt="tsv") == [("a", "b", "x", 1, "+")]
    text = '{"src": "a", "trg": "b", "label": "x", "ts": 1}\n["c", 2, "y", 3, "-"]\n'
    assert edges(text, fmt="jsonl") == [("a", "b", "x", 1, "+"), ("c", "2", "y", 3, "-")]


def test_integer_ids_are_text():
    assert edges("1,2,x,3\n") == [("1", "2", "x", 3, "+")]


def test_blank_and_comment_lines_are_ignored():
    assert edges("# a comment\n\na,b,x,1\n") == [("a", "b", "x", 1, "+")]


@pytest.mark.parametrize(
    "text, reason",
    [
        ("a,b,x\n", "expected 4 columns (src,trg,label,ts), found 3"),
        ("a,b,x,1.5\n", "time '1.5' is not an integer"),
        ("a,b,x,1,*\n", "unknown op '*' (use + or -)"),
        (",b,x,1\n", "empty src"),
        ("a,b,,1\n", "empty label"),
    ],
)
def test_bad_lines_name_file_line_and_reason(text, reason):
    with pytest.raises(StreamError) as info:
        edges(("a,b,x,0,+\n" if text.count(",") == 4 else "a,b,x,0\n") + text)
    assert str(info.value) == f"in.csv:2: {reason}"


def test_skip_mode_reports_each_bad_line_and_goes_on():
    bad = []
    got = edges(
        "a,b,x,1\noops\nb,c,x,two\nc,d,x,3\n", on_error=lambda e, line: bad.append((e.line, line))
    )
    assert got == [("a", "b", "x", 1, "+"), ("c", "d", "x", 3, "+")]
    assert bad == [(2, "oops"), (3, "b,c,x,two")]


def test_bad_utf8_is_a_bad_line(tmp_path):
    path = tmp_path / "e.csv"
    path.write_bytes(b"a,b,x,1\n\xff\xfe,b,x,2\n")
    with pytest.raises(StreamError, match=r"e.csv:2: not valid UTF-8"):
        list(read_edges(str(path)))
    bad = []
    assert list(read_edges(str(path), on_error=lambda e, l: bad.append(e.line))) == [
        ("a", "b", "x", 1, "+")
    ]
    assert bad == [2]


def test_missing_file_is_a_user_error(tmp_path):
    with pytest.raises(UserError, match="does not exist"):
        list(read_edges(str(tmp_path / "nope.csv")))


@pytest.mark.parametrize(
    "spec, message",
    [
        ("src,trg,label", "lacks ts"),
        ("src,trg,label,ts,when", "unknown column 'when'"),
        ("src,src,label,ts,trg", "names src twice"),
    ],
)
def test_bad_columns(spec, message):
    with pytest.raises(UserError, match=message):
        parse_columns(spec)


def test_result_writer_csv_and_jsonl():
    out = io.StringIO()
    w = ResultWriter(out, INTERVAL_FIELDS)
    w.write(("a", "b", "Ans", 1, 11))
    assert out.getvalue() == "src,trg,label,ts,exp\na,b,Ans,1,11\n"
    out = io.StringIO()
    w = ResultWriter(out, INTERVAL_FIELDS, "jsonl")
    w.write(("a", "b", "Ans", 1, 11))
    assert out.getvalue() == '{"src": "a", "trg": "b", "label": "Ans", "ts": 1, "exp": 11}\n'


_field = st.one_of(
    st.text(alphabet='ab,"\r\n N0one', max_size=5),
    st.integers(),
    st.none(),
    st.sampled_from([float("inf"), 1.5]),
)


@given(st.lists(st.tuples(_field, _field, _field, _field, _field), max_size=6))
def test_plain_csv_writes_what_the_csv_module_writes(rows):
    """The fast five-field path gives the csv module's bytes, or declines (then the csv
    module writes the batch)."""
    want = io.StringIO()
    csv.writer(want, lineterminator="\n").writerows(rows)
    text = _plain_csv(rows)
    if text is not None:
        assert text == want.getvalue()
    got = io.StringIO()
    ResultWriter(got, ("a", "b", "c", "d", "e"), header=False).write_many(rows)
    assert got.getvalue() == want.getvalue()


@given(
    st.lists(st.tuples(_field, _field, _field, _field, _field, _field), max_size=6),
    st.sampled_from(["csv", "jsonl"]),
)
def test_engine_rows_write_what_their_five_fields_write(rows, fmt):
    """`write_results` (what `sgq run` uses for interval rows) leaves the sixth field out and
    writes the bytes `write_many` writes for the five-field rows, quoting included."""
    want, got = io.StringIO(), io.StringIO()
    w = ResultWriter(want, INTERVAL_FIELDS, fmt)
    w.write_many([r[:5] for r in rows])
    g = ResultWriter(got, INTERVAL_FIELDS, fmt)
    g.write_results(rows)
    assert got.getvalue() == want.getvalue() and g.rows == w.rows == len(rows)


@given(
    st.lists(
        st.tuples(_field, st.lists(st.tuples(_field, _field, _field, _field, _field), max_size=4)),
        max_size=4,
    ),
    st.sampled_from(["csv", "jsonl"]),
)
def test_engine_segments_write_what_their_rows_write(segments, fmt):
    """`write_segments` (what `sgq run` uses for interval rows without a checkpoint) puts each
    segment's label in as the third field and writes the bytes `write_many` writes for the
    five-field rows, quoting included."""
    rows = [(s, t, label, ts, exp) for label, seg in segments for s, t, ts, exp, _ in seg]
    want, got = io.StringIO(), io.StringIO()
    w = ResultWriter(want, INTERVAL_FIELDS, fmt)
    w.write_many(rows)
    g = ResultWriter(got, INTERVAL_FIELDS, fmt)
    g.write_segments(segments)
    assert got.getvalue() == want.getvalue() and g.rows == w.rows == len(rows)


# vertices mostly plain (the fast path), sometimes what needs quoting or is no string
_vertex = st.text(alphabet="ab0p", min_size=1, max_size=3) | _field
_fan = st.tuples(
    _vertex, st.lists(_vertex, max_size=3), st.integers(-2, 12), st.integers()
).flatmap(
    # one start for the fan, or a start per target
    lambda f: st.one_of(
        st.just(f),
        st.lists(st.integers(0, 9), min_size=len(f[1]), max_size=len(f[1])).map(
            lambda starts: (f[0], f[1], starts, f[3])
        ),
    )
)


@given(
    st.lists(st.tuples(st.sampled_from(["Ans", "a,b"]), st.lists(_fan, max_size=6)), max_size=3),
    st.sampled_from([1, 2, 3, 1 << 15]),
)
def test_fan_rows_write_what_their_rows_write(segments, chunk):
    """A FanRows segment (an output PATH's rows as fans, incremental/fan_rows.py) writes the
    bytes and count of the same rows as tuples, quoting and non-string vertices included,
    however its fans fall into the writer's pieces of about `chunk` lines."""
    fan_segments, row_segments = [], []
    for label, fans in segments:
        rows = FanRows()
        for src, trgs, ts, exp in fans:
            rows.add(src, trgs, ts, exp)
        fan_segments.append((label, rows))
        row_segments.append((label, list(rows)))
        assert len(rows) == len(list(rows)) == sum(len(f[1]) for f in fans)
    want, got = io.StringIO(), io.StringIO()
    w = ResultWriter(want, INTERVAL_FIELDS)
    w.write_segments(row_segments)
    g = ResultWriter(got, INTERVAL_FIELDS)
    with mock.patch.object(stream_io, "_CHUNK", chunk):
        g.write_segments(fan_segments)
    assert got.getvalue() == want.getvalue() and g.rows == w.rows


def test_fan_rows_are_their_rows_in_order():
    rows = FanRows()
    rows.add("x", ["a", "b"], 3, 9)
    rows.add("y", ["c", "d"], [1, 2], 8)
    rows.append(("z", "z", 0, 5, None))
    want = [
        ("x", "a", 3, 9, None),
        ("x", "b", 3, 9, None),
        ("y", "c", 1, 8, None),
        ("y", "d", 2, 8, None),
        ("z", "z", 0, 5, None),
    ]
    assert list(rows) == want and rows == want and len(rows) == 5 and rows
    assert rows + [("e", "f", 1, 2, None)] == want + [("e", "f", 1, 2, None)]
    assert not FanRows() and len(FanRows()) == 0


def test_plain_csv_takes_ordinary_rows_and_declines_quoting():
    assert _plain_csv([(5, "+", "m1", "p2", "Answer")]) == "5,+,m1,p2,Answer\n"
    assert _plain_csv([(5, "+", "m,1", "p2", "Answer")]) is None
    assert _plain_csv([(5, "+", None, "p2", "Answer")]) is None


@given(
    st.lists(
        st.tuples(
            st.integers(0, 9),
            st.sampled_from("+-"),
            st.lists(st.tuples(_field, _field, _field), max_size=4),
        ),
        max_size=4,
    ),
    st.sampled_from(["csv", "jsonl"]),
)
def test_grouped_delta_rows_write_what_their_rows_write(groups, fmt):
    """`write_groups` (what `sgq run --emit deltas` uses) writes the bytes `write_many` writes
    for the same rows, quoting included."""
    rows = [(tau, op, *key) for tau, op, keys in groups for key in keys]
    want, got = io.StringIO(), io.StringIO()
    fields = ("time", "op", "src", "trg", "label")
    w = ResultWriter(want, fields, fmt)
    w.write_many(rows)
    g = ResultWriter(got, fields, fmt)
    g.write_groups(groups)
    assert got.getvalue() == want.getvalue() and g.rows == w.rows == len(rows)


_vertex = st.one_of(st.sampled_from(["a", "b", "p1", "m2"]), _field)


@st.composite
def _delta_group(draw):
    """A released group: flat keys, or `Fans` (one label, sources and targets sorted)."""
    tau, op = draw(st.integers(0, 9)), draw(st.sampled_from("+-"))
    if draw(st.booleans()):
        return tau, op, draw(st.lists(st.tuples(_vertex, _vertex, _vertex), max_size=4))
    label = draw(st.sampled_from(["knows", "a,b", 'q"']))
    fans = draw(st.lists(st.tuples(_vertex, st.lists(_vertex, min_size=1, max_size=3)), max_size=3))
    plain = all(csv_plain(s) and all(csv_plain(t) for t in trgs) for s, trgs in fans)
    return tau, op, Fans(label, fans, plain=plain and draw(st.booleans()))


@given(st.lists(_delta_group(), max_size=6), st.sampled_from([1, 2, 5, 1 << 15]))
def test_delta_groups_joined_across_groups_write_what_their_rows_write(groups, every):
    """`write_groups` joins the lines of many groups before it writes (and checks) them:
    flat and fanned groups, quoting and keys that are not strings, whatever the groups
    before and after them, give the bytes of `write_many`."""
    import sgq.stream_io as stream_io

    rows = rows_of(groups)
    want, got = io.StringIO(), io.StringIO()
    fields = ("time", "op", "src", "trg", "label")
    ResultWriter(want, fields).write_many(rows)
    before = stream_io._GROUPED_ROWS
    stream_io._GROUPED_ROWS = every  # (small: the text is written every few rows)
    try:
        g = ResultWriter(got, fields)
        g.write_groups(groups)
    finally:
        stream_io._GROUPED_ROWS = before
    assert got.getvalue() == want.getvalue() and g.rows == len(rows)


_plain_vertex = st.text(st.sampled_from("ab1-_ é"), min_size=1, max_size=4)


@st.composite
def _plain_delta_group(draw):
    """A released group whose every vertex and label CSV writes as it is."""
    tau, op = draw(st.integers(0, 9)), draw(st.sampled_from("+-"))
    label = draw(st.sampled_from(["knows", "Answer", "a b"]))
    if draw(st.booleans()):
        keys = st.tuples(_plain_vertex, _plain_vertex, st.just(label))
        return tau, op, draw(st.lists(keys, max_size=4))
    fans = st.tuples(_plain_vertex, st.lists(_plain_vertex, min_size=1, max_size=3))
    return tau, op, Fans(label, draw(st.lists(fans, max_size=3)), plain=draw(st.booleans()))


@given(st.lists(_plain_delta_group(), max_size=6))
def test_delta_groups_known_plain_write_what_their_rows_write_unchecked(groups):
    """`write_groups(plain=True)` (every vertex and label known plain: `sgq run` with
    `Engine.plain_vertices`) writes without checking the text, the bytes of `write_many`."""
    rows = rows_of(groups)
    want, got = io.StringIO(), io.StringIO()
    fields = ("time", "op", "src", "trg", "label")
    ResultWriter(want, fields).write_many(rows)
    with mock.patch.object(stream_io, "_needs_csv", side_effect=AssertionError("checked")):
        g = ResultWriter(got, fields)
        g.write_groups(groups, plain=True)
    assert got.getvalue() == want.getvalue() and g.rows == len(rows)


@st.composite
def _fan_rows(draw):
    """A round's FanRows: fans (one start or one per target) and rows that are no fan's."""
    rows = FanRows(plain=draw(st.booleans()))
    for src in draw(st.lists(_vertex, max_size=3)):
        trgs = draw(st.lists(_vertex, min_size=1, max_size=3))
        if draw(st.booleans()):
            rows.add(src, trgs, draw(st.integers(0, 9)), 10)
        else:
            rows.add(src, trgs, [draw(st.integers(0, 9)) for _ in trgs], 10)
    rows.extend(draw(st.lists(st.tuples(_vertex, _vertex, st.just(1), st.just(5), st.none()))))
    return rows


@given(st.lists(_fan_rows(), min_size=1, max_size=4))
def test_fan_rows_followed_by_others_are_all_their_rows_in_order(rounds):
    """`follow_with` (a span's rounds of closure rows, operators/path_closure.py): the rows
    of each round after the last's, kept as fans while no row that is no fan's came yet."""
    taken = [rounds[0]]
    for r in rounds[1:]:
        if taken[-1].rows:
            break  # (not taken: the caller makes a list)
        taken.append(r)
    want = [row for r in taken for row in r]
    plain = all(r.plain for r in taken)
    got = taken[0]
    for r in taken[1:]:
        got.follow_with(r)
    assert list(got) == want and len(got) == len(want) and got.plain == plain
