"""prepare_validate accepts and rejects exactly what `sgq run`'s reader does (no Spark)."""

from __future__ import annotations

import io
import os
import tempfile

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sgq.base.errors import UserError

from sgq.prepare_validate import (
    GOOD,
    iso_to_epoch,
    plan_file,
    raw_format,
    validate_lines,
)
from sgq.stream_io import StreamError, decoded_lines, parse_lines

_IDS = st.sampled_from(["a", "b", "42", " c", "", "x y", '"q"', "é", "\ufeffa"])
_TS = st.sampled_from(
    ["1", "7", " 3 ", "-2", "x", "", "1.5", "99999999999999", "1_0", "+5", "\u0661", str(1 << 63)]
)
_OPS = st.sampled_from(["+", "-", "", "*", " - "])
_VALUES = st.sampled_from(["15", "-3", "1.5", '"7"', "nan", " 2 ", "abc", ""])  # properties


@st.composite
def _delimited_line(draw, sep: str) -> bytes:
    kind = draw(st.integers(0, 9))
    if kind == 0:
        return b""
    if kind == 1:
        return b"# comment"
    if kind == 2:
        names = draw(st.permutations(["src", "trg", "label", "ts"]))
        # a bad header too; property columns after sgq's own
        extra = draw(st.sampled_from([[], [], ["op"], ["src"], ["weight"], ["op", "w", "k"]]))
        bom = draw(st.sampled_from(["", "", "\ufeff"]))
        return (bom + sep.join([*names, *extra])).encode()
    if kind == 3:
        return draw(st.binary(max_size=12))
    if kind == 4:
        return b"\xff\xfe" + sep.encode() + b"a"
    fields = [draw(_IDS), draw(_IDS), draw(_IDS), draw(_TS)]
    if draw(st.booleans()):
        fields.append(draw(_OPS))
        fields += draw(st.lists(_VALUES, max_size=2))
    if kind == 5:
        fields = fields[: draw(st.integers(0, len(fields)))]
    line = sep.join(fields).encode()
    if kind == 6:
        line += b"\r"
    return line


@st.composite
def _json_line(draw) -> bytes:
    kind = draw(st.integers(0, 6))
    if kind == 0:
        return b"  "
    if kind == 1:
        return draw(st.binary(max_size=12))
    if kind == 2:
        vals = [draw(_IDS), draw(_IDS), draw(_IDS), draw(_TS), draw(_OPS)]
        n = draw(st.integers(2, 6))
        return ("[" + ",".join(f'"{v}"' for v in (vals * 2)[:n]) + "]").encode()
    if kind == 3:
        return b'"just a string"'
    keys = draw(
        st.lists(
            st.sampled_from(["src", "trg", "label", "ts", "op", "from", "Time", "zz"]),
            unique=True,
            max_size=5,
        )
    )
    values = [
        draw(
            st.one_of(
                _IDS,
                _TS,
                st.integers(-5, 5),
                st.none(),
                st.booleans(),
                st.floats(allow_nan=False),
                st.just([1]),
                st.integers(1 << 62, 1 << 64),
            )
        )
        for _ in keys
    ]
    import json

    return json.dumps(dict(zip(keys, values))).encode()


def _via_stream_io(data: bytes, fmt: str, cols):
    """What `sgq run`'s reader makes of the file: good (line, edge) and bad (line, reason),
    or the error that stops it (a header that cannot be read)."""
    good, bad, pos = [], [], [0]

    def on_error(exc, line):
        bad.append((exc.line, exc.reason))

    try:
        for edge in parse_lines(decoded_lines(io.BytesIO(data)), fmt, cols, "f", on_error, pos):
            good.append((pos[0], edge))
    except StreamError as exc:
        return ("stops", exc.line, exc.reason)
    return good, bad


def _via_prepare(data: bytes, fmt: str, cols, header="auto"):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "f")
        with open(path, "wb") as handle:
            handle.write(data)
        try:
            plan = plan_file(0, path, raw_format(path, fmt), cols, header)
        except StreamError as exc:
            return ("stops", exc.line, exc.reason)
        good, bad = [], []
        with open(path, "rb") as handle:
            for lineno, kind, edge, reason in validate_lines(handle, plan):
                (good if kind == GOOD else bad).append((lineno, edge if kind == GOOD else reason))
    return good, bad


@pytest.mark.parametrize("fmt,sep", [("csv", ","), ("tsv", "\t")])
@given(data=st.data())
def test_delimited_rows_are_judged_as_stream_io_judges_them(fmt, sep, data):
    lines = data.draw(st.lists(_delimited_line(sep), max_size=8))
    cols = data.draw(
        st.sampled_from([None, ("src", "trg", "label", "ts"), ("ts", "src", "_", "trg", "label")])
    )
    blob = b"\n".join(lines) + data.draw(st.sampled_from([b"", b"\n"]))
    assert _via_prepare(blob, fmt, cols) == _via_stream_io(blob, fmt, cols)


@pytest.mark.parametrize("fmt", ["csv", "tsv"])
@pytest.mark.parametrize("blob", [b"\r\x00", b"a\rb,c,l,1", b'"a\rb",c,l,1', b"a\tb\rc\tl\t1\n"])
def test_a_carriage_return_inside_a_line_is_judged_alike(fmt, blob):
    """A stray CR that is not the line's end: hypothesis found prepare (csv module) and
    stream_io (split without quotes) judging it differently."""
    assert _via_prepare(blob, fmt, None) == _via_stream_io(blob, fmt, None)


@given(
    lines=st.lists(_json_line(), max_size=8),
    cols=st.sampled_from(
        [None, ("src", "trg", "label", "ts"), ("src", "trg", "label", "ts", "op")]
    ),
)
def test_json_rows_are_judged_as_stream_io_judges_them(lines, cols):
    blob = b"\n".join(lines)
    assert _via_prepare(blob, "jsonl", cols) == _via_stream_io(blob, "jsonl", cols)


def test_planted_bad_rows_get_stream_io_reasons():
    blob = b"src,trg,label,ts\na,b,x,1\na,b,x\na,b,x,t1\na,b,x,2,*\n,b,x,3\n\xff,b,x,4\n"
    good, bad = _via_prepare(blob, "csv", None)
    assert good == [(2, ("a", "b", "x", 1, "+"))]
    assert bad == [
        (3, "expected 4 columns (src,trg,label,ts), found 3"),
        (4, "time 't1' is not an integer"),
        (5, "expected 4 columns (src,trg,label,ts), found 5"),
        (6, "empty src"),
        (7, "not valid UTF-8"),
    ]


def test_forced_header_and_no_header():
    blob = b"src,trg,label,ts\na,b,x,1\n"
    assert _via_prepare(blob, "csv", None, "header")[0] == [(2, ("a", "b", "x", 1, "+"))]
    good, bad = _via_prepare(blob, "csv", None, "no-header")
    assert bad == [(1, "time 'ts' is not an integer")]
    with pytest.raises(UserError, match="--header given"):
        _via_prepare(b"a,b,x,1\n", "csv", None, "header")


@pytest.mark.parametrize(
    "text,expected",
    [
        ("1970-01-01T00:00:00Z", 0),
        ("1970-01-01T00:00:00.999+00:00", 0),
        ("1969-12-31T23:59:59.5Z", -1),
        ("2024-01-01T01:00:00+01:00", 1704067200),
        ("2024-01-01 00:00:00", 1704067200),
        ("2024-01-01", 1704067200),
    ],
)
def test_iso_to_epoch(text, expected):
    assert iso_to_epoch(text) == expected


@pytest.mark.parametrize("text", ["", "nope", "12", "2024-13-01T00:00:00", "+2024-01-01"])
def test_iso_to_epoch_rejects(text):
    with pytest.raises(ValueError):
        iso_to_epoch(text)


def test_raw_format():
    assert raw_format("a/b.CSV", None) == "csv"
    assert raw_format("b.tsv.gz", None) == "tsv"
    assert raw_format("b.ndjson", None) == "json"
    assert raw_format("b.pq", None) == "parquet"
    assert raw_format("b.dat", "jsonl") == "json"
    with pytest.raises(UserError, match="cannot tell the format"):
        raw_format("b.dat", None)
    with pytest.raises(UserError, match="unknown format"):
        raw_format("b.csv", "xml")
