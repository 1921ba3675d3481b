"""Edge properties in the input (specs/semantics.md §1): the columns of a CSV/TSV header after
`src,trg,label,ts[,op]` and the extra fields of a JSON Lines record, typed int, float or string,
an empty field missing; the block reader (sgq/edge_blocks.py) against the line reader."""

from __future__ import annotations

import gzip
import io

import pytest
from block_reading import Pieces, read_all
from hypothesis import given, settings
from hypothesis import strategies as st

from sgq.property_values import quoted_fields, typed
from sgq.stream_io import (
    FileLines,
    StreamError,
    UnreadableInput,
    decoded_lines,
    parse_blocks,
    parse_lines,
    read_blocks,
    read_edges,
)


def edges(text: str, fmt: str = "csv", on_error=None) -> list:
    return list(parse_lines(io.StringIO(text), fmt, None, "in.csv", on_error))


def block_edges(text: str, fmt: str = "csv", on_error=None) -> list:
    blocks = parse_blocks(FileLines(io.BytesIO(text.encode())), fmt, None, "in.csv", on_error)
    return [e for block in blocks for e in block.edges]


def typed_form(edge: tuple) -> tuple:
    """An edge with each property value's type beside it: `15` and `15.0` compare equal."""
    if len(edge) < 6:
        return edge
    return (*edge[:5], [(k, type(v).__name__, v) for k, v in edge[5].items()])


def test_header_columns_after_the_fixed_ones_are_typed_properties():
    text = (
        "src,trg,label,ts,delay,carrier\n"
        "a,b,flight,1,15,AC\n"
        "a,b,flight,2,-3,2e3\n"
        "a,b,flight,3,1.5,nan\n"
        "a,b,flight,4,,inf\n"
        "a,b,flight,5,1e999,\n"
    )
    want = [
        ("a", "b", "flight", 1, "+", [("delay", "int", 15), ("carrier", "str", "AC")]),
        ("a", "b", "flight", 2, "+", [("delay", "int", -3), ("carrier", "float", 2000.0)]),
        ("a", "b", "flight", 3, "+", [("delay", "float", 1.5), ("carrier", "str", "nan")]),
        ("a", "b", "flight", 4, "+", [("carrier", "str", "inf")]),
        ("a", "b", "flight", 5, "+", [("delay", "str", "1e999")]),
    ]
    assert [typed_form(e) for e in edges(text)] == want
    assert [typed_form(e) for e in block_edges(text)] == want
    tsv = text.replace(",", "\t")
    assert [typed_form(e) for e in block_edges(tsv, "tsv")] == want


def test_a_quoted_field_is_a_string_and_blanks_around_an_unquoted_one_go():
    text = 'src,trg,label,ts,k,w\na,b,x,1,"15", 7 \na,b,x,2,"",\na,b,x,3," 1.5 ",\n'
    want = [
        ("a", "b", "x", 1, "+", [("k", "str", "15"), ("w", "int", 7)]),
        ("a", "b", "x", 2, "+", [("k", "str", "")]),
        ("a", "b", "x", 3, "+", [("k", "str", " 1.5 ")]),
    ]
    assert [typed_form(e) for e in edges(text)] == want
    assert [typed_form(e) for e in block_edges(text)] == want


def test_columns_in_any_order_and_an_op_column():
    text = "delay,ts,op,label,trg,src\n5,1,-,x,b,a\n,2,,x,b,a\n"
    assert edges(text) == [("a", "b", "x", 1, "-", {"delay": 5}), ("a", "b", "x", 2, "+", {})]
    assert block_edges(text) == edges(text)


def test_an_input_without_properties_keeps_its_five_field_edges():
    text = "src,trg,label,ts\na,b,x,1\n"
    assert edges(text) == block_edges(text) == [("a", "b", "x", 1, "+")]
    assert edges("a,b,x,1\n") == [("a", "b", "x", 1, "+")]


def test_a_header_less_file_with_more_columns_asks_for_a_header():
    with pytest.raises(StreamError, match="give the file a header naming every column"):
        edges("a,b,x,1,+,15\n")


@pytest.mark.parametrize("reader", [edges, block_edges])
def test_a_row_of_the_wrong_width_is_a_bad_line(reader):
    text = "src,trg,label,ts,w\na,b,x,1,2\na,b,x,2\na,b,x,3,4,5\na,b,x,4,6\n"
    with pytest.raises(StreamError) as info:
        reader(text)
    assert str(info.value) == "in.csv:3: expected 5 columns (src,trg,label,ts,w), found 4"
    bad: list = []
    got = reader(text, on_error=lambda exc, line: bad.append(str(exc)))
    assert got == [("a", "b", "x", 1, "+", {"w": 2}), ("a", "b", "x", 4, "+", {"w": 6})]
    assert bad == [
        "in.csv:3: expected 5 columns (src,trg,label,ts,w), found 4",
        "in.csv:4: expected 5 columns (src,trg,label,ts,w), found 6",
    ]


@pytest.mark.parametrize(
    "header, reason",
    [
        ("src,trg,label,ts,w,w", "the header names column w twice ('w', 'w')"),
        ("src,trg,label,ts,,w", "the header's column 5 has no name"),
    ],
)
def test_a_header_naming_a_property_twice_or_none_stops_the_input(header, reason):
    with pytest.raises(UnreadableInput, match="in.csv:1: "):
        edges(f"{header}\na,b,x,1,2,3\n", on_error=lambda e, line: None)
    with pytest.raises(UnreadableInput) as info:
        edges(f"{header}\na,b,x,1,2,3\n")
    assert info.value.reason == reason


def test_gzip_and_plain_files_read_alike(tmp_path):
    text = "src,trg,label,ts,w\n" + "".join(
        f"v{i},w{i % 3},x,{i},{i % 4 or ''}\n" for i in range(99)
    )
    plain, packed = tmp_path / "in.csv", tmp_path / "in.csv.gz"
    plain.write_text(text)
    packed.write_bytes(gzip.compress(text.encode()))
    want = edges(text)
    assert list(read_edges(str(plain))) == list(read_edges(str(packed))) == want
    assert [e for b in read_blocks(str(packed)) for e in b.edges] == want
    assert want[1] == ("v1", "w1", "x", 1, "+", {"w": 1}) and want[4][5] == {}


# ---- JSON Lines ----------------------------------------------------------------------------


def test_json_fields_that_are_no_column_are_properties():
    text = (
        '{"src": "a", "trg": "b", "label": "x", "ts": 1, "delay": 15, "gate": "7", "w": null}\n'
        '{"src": "a", "trg": "b", "label": "x", "ts": 2, "delay": 1.5, "w": 2}\n'
        '{"src": "a", "trg": "b", "label": "x", "ts": 3}\n'
    )
    want = [
        ("a", "b", "x", 1, "+", [("delay", "int", 15), ("gate", "str", "7")]),
        ("a", "b", "x", 2, "+", [("delay", "float", 1.5), ("w", "int", 2)]),
        ("a", "b", "x", 3, "+", []),
    ]
    assert [typed_form(e) for e in edges(text, "jsonl")] == want
    assert [typed_form(e) for e in block_edges(text, "jsonl")] == want


def test_a_json_record_naming_a_property_the_first_record_lacks_is_a_bad_line():
    text = (
        '{"src": "a", "trg": "b", "label": "x", "ts": 1, "w": 1}\n'
        '{"src": "a", "trg": "b", "label": "x", "ts": 2, "v": 2}\n'
        '{"src": "a", "trg": "b", "label": "x", "ts": 3, "w": 3}\n'
    )
    bad: list = []
    got = edges(text, "jsonl", on_error=lambda exc, line: bad.append(exc))
    assert got == [("a", "b", "x", 1, "+", {"w": 1}), ("a", "b", "x", 3, "+", {"w": 3})]
    assert [e.line for e in bad] == [2]
    assert bad[0].reason.startswith("the record names 'v', which the input's first record does not")
    plain = '{"src": "a", "trg": "b", "label": "x", "ts": 1}\n'
    with pytest.raises(StreamError, match="first record does not"):
        edges(plain + '{"src": "a", "trg": "b", "label": "x", "ts": 2, "v": 2}\n', "jsonl")


def test_a_bad_first_json_record_does_not_fix_the_properties():
    text = (
        '{"src": "a", "trg": "b", "label": "x", "v": 1}\n'
        '{"src": "a", "trg": "b", "label": "x", "ts": 2, "w": 2}\n'
    )
    assert edges(text, "jsonl", on_error=lambda exc, line: None) == [
        ("a", "b", "x", 2, "+", {"w": 2})
    ]


# ---- values --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, value",
    [
        ("15", 15),
        ("-3", -3),
        ("007", 7),
        ("1.5", 1.5),
        ("2e3", 2000.0),
        ("+5", 5.0),
        ("nan", "nan"),
        ("-inf", "-inf"),
        ("Infinity", "Infinity"),
        ("1e999", "1e999"),
        ("-", "-"),
        ("١٢", 12.0),
        ("  ", None),
        ("New York", "New York"),
    ],
)
def test_a_field_is_an_int_a_float_or_a_string(text, value):
    got = typed(text)
    assert got == value and type(got) is type(value)


_FIELD = st.one_of(
    st.text(alphabet='ab,"\t 1', max_size=6),
    st.sampled_from(['"a,b"', '"x""y"', '"', '""', 'a"b', '"q"r']),
)


@given(st.lists(_FIELD, min_size=1, max_size=5))
def test_quoted_fields_are_those_the_csv_module_reads_quoted(fields):
    import csv

    line = ",".join(fields)
    if not line:
        return  # (a blank line: no fields to read)
    try:
        read = next(csv.reader([line]))
    except (csv.Error, StopIteration):
        return
    flags = quoted_fields(line, ",")
    assert len(flags) == len(read)
    # a field the module reads as quoted: its text has the quotes removed
    for flag, raw in zip(flags, read):
        if not flag:
            assert raw in line


# ---- the block reader against the line reader ---------------------------------------------

_VALUE = st.one_of(
    st.integers(-50, 50).map(str),
    st.sampled_from(["", "1.5", "2e3", "-0.5", "abc", "nan", "x1", "+4", "1_0", "٣"]),
    st.sampled_from(['"15"', '""', " 7", "a b", "#"]),  # what sends a chunk to the line reader
)


@st.composite
def _property_file(draw, sep: str) -> bytes:
    names = draw(st.lists(st.sampled_from(["w", "delay", "name", "k"]), unique=True, max_size=3))
    header = ["src", "trg", "label", "ts", *names]
    if draw(st.booleans()):
        header.insert(4, "op")
    lines = [sep.join(header)]
    for i in range(draw(st.integers(0, 30))):
        row = {"src": f"v{i % 5}", "trg": "b", "label": "x", "ts": str(i), "op": "+"}
        fields = [row[c] if c in row else draw(_VALUE) for c in header]
        if draw(st.integers(0, 15)) == 0:
            fields = fields[:-1] if draw(st.booleans()) else [*fields, "9"]
        lines.append(sep.join(fields))
    return ("\n".join(lines) + "\n").encode()


@settings(max_examples=300)
@given(
    fmt=st.sampled_from(["csv", "tsv"]),
    data=st.data(),
    piece=st.sampled_from([5, 64, 1 << 20]),
    skip=st.booleans(),
)
def test_blocks_read_the_properties_the_line_reader_reads(fmt, data, piece, skip):
    blob = data.draw(_property_file("\t" if fmt == "tsv" else ","))
    want = read_all(decoded_lines(io.BytesIO(blob)), fmt, None, skip, typed_form)
    assert read_all(FileLines(Pieces(blob, piece)), fmt, None, skip, typed_form) == want


@settings(max_examples=200)
@given(
    fmt=st.sampled_from(["csv", "tsv"]),
    data=st.data(),
    piece=st.sampled_from([5, 64, 1 << 20]),
    skip=st.booleans(),
)
def test_a_reader_leaving_the_properties_out_reads_the_same_edges_and_errors(
    fmt, data, piece, skip
):
    """What `sgq run` reads when no rule reads a property and no `-` edge can come
    (sgq/evaluation.py `properties_kept`): each edge's first five fields, the same bad lines
    and the same error, in blocks or line by line."""
    blob = data.draw(_property_file("\t" if fmt == "tsv" else ","))
    edges, bad, error = read_all(decoded_lines(io.BytesIO(blob)), fmt, None, skip)
    want = ([(edge[:5], line) for edge, line in edges], bad, error)
    plain = read_all(decoded_lines(io.BytesIO(blob)), fmt, None, skip, properties=False)
    assert plain == want
    blocks = read_all(FileLines(Pieces(blob, piece)), fmt, None, skip, properties=False)
    assert blocks == want
