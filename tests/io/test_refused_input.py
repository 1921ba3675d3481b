"""What the edge readers refuse (issue 69; specs/semantics.md §7): times that are not ASCII
decimal integers within int64, JSON values that are no vertex, headers that cannot be read,
damaged gzip data; and what they read for it: a BOM, columns in any order. Every message
names file and line and shows the input's text escaped."""

from __future__ import annotations

import gzip
import io

import pytest
from sgq.base.errors import UserError

import sgq
from sgq.cli import main
from sgq.edge_blocks import EdgeBlock
from sgq.reorder import NO_LIMIT, Reorder, TimeLimit, ordered, ordered_blocks
from sgq.stream_io import (
    INT64_MAX,
    INT64_MIN,
    DamagedInput,
    StreamError,
    UnreadableInput,
    blamed,
    parse_columns,
    parse_lines,
    read_blocks,
    read_edges,
    shown,
)


def edges(text: str, fmt: str = "csv", columns=None, on_error=None):
    cols = parse_columns(columns) if columns else None
    return list(parse_lines(io.StringIO(text), fmt, cols, "in.csv", on_error))


def error(text: str, fmt: str = "csv") -> str:
    with pytest.raises(StreamError) as info:
        edges(text, fmt)
    return str(info.value)


def file_edges(tmp_path, blob: bytes, name: str = "in.csv", on_error=None):
    """The edges of a file read as `sgq run` reads one (a chunk at a time)."""
    path = tmp_path / name
    path.write_bytes(blob)
    return [e for block in read_blocks(str(path), on_error=on_error) for e in block.edges]


# ---- times -----------------------------------------------------------------------------

NOT_TIMES = [
    ("1_000", "not an integer (a time is written with the digits 0-9 and an optional '-' only)"),
    ("+5", "not an integer (a time is written with the digits 0-9 and an optional '-' only)"),
    ("\u0661\u0662", "not an integer (a time is written with the digits"),  # Arabic-Indic
    ("\uff11\uff12", "not an integer (a time is written with the digits"),  # full-width
    ("1.5", "not an integer"),
    ("1e3", "not an integer"),
    ("0x10", "not an integer"),
    ("--3", "not an integer"),
    ("-", "not an integer"),
    ("", "not an integer"),
    (str(1 << 63), "outside int64 (-9223372036854775808 to 9223372036854775807)"),
    (str(INT64_MIN - 1), "outside int64"),
    ("9" * 5000, "outside int64"),
]


@pytest.mark.parametrize("text, reason", NOT_TIMES)
def test_a_time_is_ascii_digits_with_an_optional_minus_within_int64(text, reason, tmp_path):
    want = f"in.csv:2: time {shown(text)} is {reason}"
    assert error(f"a,b,x,0\na,b,x,{text}\n").startswith(want)
    # a finished file, read a chunk at a time, gives the line reader's error
    lines = b"".join(b"a,b,x,%d\n" % i for i in range(500))
    with pytest.raises(StreamError) as info:
        file_edges(tmp_path, lines + f"a,b,x,{text}\n".encode() + lines)
    assert str(info.value).startswith(f"{tmp_path / 'in.csv'}:501: time {shown(text)} is {reason}")


@pytest.mark.parametrize(
    "text, t",
    [("007", 7), ("-0", 0), (" 12 ", 12), (str(INT64_MAX), INT64_MAX), (str(INT64_MIN), INT64_MIN)],
)
def test_times_that_are_times(text, t, tmp_path):
    assert edges(f"a,b,x,{text}\n") == [("a", "b", "x", t, "+")]
    assert file_edges(tmp_path, f"a,b,x,{text}\n".encode() * 3) == [("a", "b", "x", t, "+")] * 3


def test_a_plain_chunk_with_underscores_elsewhere_is_still_read_whole(tmp_path):
    """`_` and `+` in vertices or ops make the block reader look at the time column: times
    without them are read as before (and the same edges as the line reader)."""
    blob = b"".join(b"p_%d,q+%d,x,%d,+\n" % (i, i, i) for i in range(1000))
    got = file_edges(tmp_path, blob)
    assert got == edges(blob.decode()) and got[5] == ("p_5", "q+5", "x", 5, "+")


# ---- JSON Lines ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value, reason",
    [
        ("null", "src is null: a vertex is a string or an integer"),
        ("true", "src is true: a vertex is a string or an integer"),
        ("1.5", "src is a float (1.5): a vertex is a string or an integer"),
        ("[1]", "src is an array: a vertex is a string or an integer"),
        ('{"k": [1]}', "src is an object: a vertex is a string or an integer"),
    ],
)
def test_a_json_vertex_is_a_string_or_an_integer(value, reason):
    line = f'{{"src": {value}, "trg": "b", "label": "x", "ts": 1}}\n'
    assert error(line, "jsonl") == f"in.csv:1: {reason}"
    assert error(f'[{value}, "b", "x", 1]\n', "jsonl") == f"in.csv:1: {reason}"


def test_json_labels_times_and_ops():
    assert error('["a", "b", false, 1]\n', "jsonl").endswith(
        "label is false: a label is a string or an integer"
    )
    assert error('["a", "b", "x", 1.0]\n', "jsonl").endswith("time '1.0' is not an integer")
    assert error('["a", "b", "x", true]\n', "jsonl").endswith("time 'true' is not an integer")
    assert error(f'["a", "b", "x", {1 << 63}]\n', "jsonl").endswith(
        "is outside int64 " + (f"({INT64_MIN} to {INT64_MAX})")
    )
    assert error('["a", "b", "x", 1, null]\n', "jsonl").endswith("unknown op 'null' (use + or -)")
    assert edges('[1, 2, 3, "4", "-"]\n{"src": "a", "trg": 2, "l": "x", "time": 5}\n', "jsonl") == [
        ("1", "2", "3", 4, "-"),
        ("a", "2", "x", 5, "+"),
    ]


@pytest.mark.parametrize(
    "line, reason",
    [
        ("[" * 1000 + "]" * 1000, "invalid JSON (nested too deeply to read)"),
        ("{" * 5000, "invalid JSON"),
        ('["a", "b", "x", ' + "1" * 5000 + "]", "invalid JSON (Exceeds the limit (4300 digits)"),
        ('{"src": "a", "source": "b", "trg": "c", "label": "x", "ts": 1}', "src given twice"),
        ('{"src": "a", "src": "b", "trg": "c", "label": "x", "ts": 1}', "src given twice"),
        (
            '{"src": "a", "trg": "c", "label": "x", "ts": 1, "weight": true}',
            "property 'weight' is true: a property is a number, a string or null",
        ),
        ('{"src": "a", "trg": "c", "label": "x", "ts": 1, "w": [1]}', "property 'w' is an array"),
        (
            '{"src": "a", "trg": "c", "label": "x", "ts": 1, "w": NaN}',
            "property 'w' is a float (NaN)",
        ),
        ('{"src": "a", "trg": "c", "label": "x", "ts": 1, "w": 1, "w ": 2}', "'w' given twice"),
    ],
)
def test_json_that_is_no_edge_is_a_bad_line_in_both_modes(line, reason):
    assert reason in error(f"{line}\n", "jsonl")
    bad = []
    assert edges(f'{line}\n["a", "b", "x", 1]\n', "jsonl", on_error=lambda e, t: bad.append(e)) == [
        ("a", "b", "x", 1, "+")
    ]
    assert [e.line for e in bad] == [1] and reason in bad[0].reason


def test_a_json_syntax_error_names_its_column():
    assert (
        error('  {"src": "a",, }\n', "jsonl")
        == "in.csv:1:15: invalid JSON (Expecting property name enclosed in double quotes)"
    )


# ---- BOM and headers -------------------------------------------------------------------


@pytest.mark.parametrize("fmt, sep", [("csv", ","), ("tsv", "\t")])
def test_a_bom_opening_a_line_is_no_text(fmt, sep, tmp_path):
    header = sep.join(["src", "trg", "label", "ts"])
    row = sep.join(["a", "b", "x", "1"])
    text = f"\ufeff{header}\n{row}\n\ufeff{row}\n"
    assert edges(text, fmt) == [("a", "b", "x", 1, "+")] * 2
    assert file_edges(tmp_path, text.encode(), f"in.{fmt}") == [("a", "b", "x", 1, "+")] * 2
    assert edges('\ufeff["a", "b", "x", 1]\n', "jsonl") == [("a", "b", "x", 1, "+")]


def test_columns_are_read_by_name_in_any_order():
    want = [("a", "b", "x", 5, "-")]
    assert edges("ts,op,label,trg,src\n5,-,x,b,a\n") == want
    assert edges("Time,Type,Target,Source,OP\n5,x,b,a,-\n") == want


@pytest.mark.parametrize(
    "header, reason",
    [
        ("src,src,label,ts", "the header names column src twice ('src', 'src')"),
        ("src,source,trg,label,ts", "the header names column src twice ('src', 'source')"),
        ("src,trg,ts", "the header lacks label (needs src, trg, label, ts)"),
        ("src,trg,label,ts,w,w", "the header names column w twice ('w', 'w')"),
        ("src,trg,label,ts,\x1b[31m,\x1b[31m", "column \\x1b[31m twice"),
        ("src,trg,label,ts,,w", "the header's column 5 has no name"),
    ],
)
def test_a_header_that_cannot_be_read_stops_the_input_in_both_modes(header, reason):
    text = f"{header}\na,b,x,1\n"
    assert reason in error(text)
    with pytest.raises(UnreadableInput, match="in.csv:1: "):
        edges(text, on_error=lambda e, line: None)


def test_with_columns_given_a_header_line_is_skipped_as_it_is():
    assert edges("src,trg,label,ts,weight\na,b,x,1,9\n", columns="src,trg,label,ts,_") == [
        ("a", "b", "x", 1, "+")
    ]


def test_the_columns_are_those_of_the_input_without_its_bad_lines():
    """A bad first line neither fixes the number of columns nor hides the header after it:
    `--on-error skip` reads the file as it reads the file without its bad lines."""
    bad = []

    def skip(exc, line):
        bad.append(exc.line)

    assert edges("a,b,x,1,+,extra\na,b,x,2,-\n", on_error=skip) == [("a", "b", "x", 2, "-")]
    assert bad == [1]
    assert edges("oops\nts,src,trg,label\n3,a,b,x\n", on_error=skip) == [("a", "b", "x", 3, "+")]
    assert error("a,b,x\n") == "in.csv:1: expected 4 or 5 columns (src,trg,label,ts[,op]), found 3"


# ---- messages --------------------------------------------------------------------------


def test_control_characters_in_messages_are_escaped():
    assert error("a,b,x,1\x00\x1b[31m\n") == "in.csv:1: time '1\\x00\\x1b[31m' is not an integer"
    assert error("a,b,x,1,\x07\n").endswith("unknown op '\\x07' (use + or -)")
    assert str(StreamError("in\x1b.csv", 3, "r")) == "in\\x1b.csv:3: r"
    assert shown("x" * 100) == "'" + "x" * 40 + "...'"


# ---- damaged gzip ----------------------------------------------------------------------


def _damaged(tmp_path) -> str:
    blob = bytearray(gzip.compress(b"".join(b"a,b,x,%d\n" % i for i in range(20000)), mtime=0))
    blob[len(blob) // 2] ^= 0xFF
    path = tmp_path / "in.csv.gz"
    path.write_bytes(bytes(blob))
    return str(path)


def test_a_damaged_gzip_is_named_in_both_modes(tmp_path):
    path = _damaged(tmp_path)
    with pytest.raises(
        DamagedInput, match=r"cannot read the input \(CRC check failed .*found at line"
    ):
        list(read_edges(path))
    with pytest.raises(DamagedInput, match=r"cannot read the input \(CRC check failed"):
        list(read_edges(path, on_error=lambda e, line: None))
    with pytest.raises(UserError, match=r"cannot read the input \(CRC check failed"):
        list(sgq.compile(text=".window 5\nAnswer(x, y) :- x(x, y).").run(path))


def test_blamed_leaves_an_intact_file_s_error_alone(tmp_path):
    path = tmp_path / "ok.csv.gz"
    path.write_bytes(gzip.compress(b"a,b,x,1\n"))
    err = StreamError(str(path), 1, "r")
    assert blamed(str(path), err) is err
    assert blamed("plain.csv", err) is err


# ---- the int64 horizon -----------------------------------------------------------------


@pytest.mark.parametrize("window, slide", [(10, 1), (10, 3), (7, 7), (1, 1)])
def test_the_latest_time_is_the_last_whose_window_ends_within_int64(window, slide):
    limit = TimeLimit(window, slide)
    latest = limit.latest

    def end(t):
        return (t // slide) * slide + window

    assert end(latest) <= INT64_MAX < end(latest + 1)
    assert NO_LIMIT.latest == INT64_MAX


def test_an_edge_after_the_latest_time_stops_the_input_with_its_line():
    limit = TimeLimit(10, 1)
    ok = ("a", "b", "x", limit.latest, "+")
    late = ("a", "b", "x", limit.latest + 1, "+")
    want = f"in.csv:2: time {limit.latest + 1} is after {limit.latest}, the last time"
    pos = [0]

    def counted(stream):
        for i, e in enumerate(stream, start=1):
            pos[0] = i
            yield e

    with pytest.raises(UnreadableInput, match=want):
        list(ordered(counted([ok, late]), "in.csv", pos, limit=limit))
    with pytest.raises(UnreadableInput, match=want):
        list(ordered(counted([ok, late]), "in.csv", pos, 5, lambda e, x: None, limit=limit))
    buffer = Reorder("in.csv", [2], None, None, limit)
    assert buffer.add(ok) == [ok]
    with pytest.raises(UnreadableInput, match=want):
        buffer.add(late)

    block = EdgeBlock([ok, late], [ok[3], late[3]], [1, 2])
    with pytest.raises(UnreadableInput, match=want):
        list(ordered_blocks([block], "in.csv", [0], limit))


@pytest.mark.parametrize("emit", ["deltas", "intervals"])
def test_sgq_run_refuses_past_the_horizon_and_ends_every_result_up_to_it(emit, tmp_path, capsys):
    program = tmp_path / "q.dl"
    program.write_text(".window 10\nAnswer(x, y) :- knows+(x, y).\n")
    latest = INT64_MAX - 10
    good = tmp_path / "good.csv"
    good.write_text(f"a,b,knows,{latest - 1}\nb,c,knows,{latest}\n")
    out = tmp_path / "out.csv"
    args = ["run", str(program), "--no-progress", "--emit", emit, "-o", str(out)]
    assert main([*args, "-i", str(good)]) == 0
    rows = out.read_text().splitlines()[1:]
    if emit == "deltas":
        assert sorted(rows) == sorted(
            [f"{latest - 1},+,a,b,Answer", f"{latest},+,a,c,Answer", f"{latest},+,b,c,Answer"]
            + [f"{INT64_MAX - 1},-,a,b,Answer", f"{INT64_MAX - 1},-,a,c,Answer"]
            + [f"{INT64_MAX},-,b,c,Answer"]
        )
    else:
        assert f"b,c,Answer,{latest},{INT64_MAX}" in rows
    bad = tmp_path / "bad.csv"
    bad.write_text(f"a,b,knows,{latest}\nb,c,knows,{latest + 1}\n")
    capsys.readouterr()
    assert main([*args, "-i", str(bad), "--on-error", "skip"]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:2: time {latest + 1} is after {latest}, the last time this program takes" in err


# ---- the library's input ---------------------------------------------------------------

_QUERY = ".window 5\nAnswer(x, y) :- x(x, y).\n"


class _Index:
    """An integer of another type (numpy's int64, say): it has `__index__`."""

    def __index__(self) -> int:
        return 3


@pytest.mark.parametrize(
    "edge, message",
    [
        (("a", "b", "x", 1.5), "with an integer ts"),
        (("a", "b", "x", True), "with an integer ts"),
        (("a", "b", "x", "1_000"), "with an integer ts"),
        (("a", "b", "x", "+5"), "with an integer ts"),
        (("a", "b", "x", 1 << 63), "time 9223372036854775808 is outside int64"),
        ((None, "b", "x", 1), "a vertex or a label is a string or an integer"),
        (("a", 1.5, "x", 1), "a vertex or a label is a string or an integer"),
        (("a", "b", ["x"], 1), "a vertex or a label is a string or an integer"),
        (("a", True, "x", 1), "a vertex or a label is a string or an integer"),
    ],
)
def test_the_library_refuses_what_the_files_refuse(edge, message):
    with pytest.raises(UserError, match=r"edge #1 .*" + message):
        list(sgq.compile(text=_QUERY).run([edge]))


def test_the_library_takes_times_as_text_and_integers_of_other_types():
    got = list(sgq.compile(text=_QUERY).run([("a", "b", "x", "2"), ("a", 7, "x", _Index())]))
    assert [(d.time, d.op, d.src, d.trg) for d in got] == [
        (2, "+", "a", "b"),
        (3, "+", "a", "7"),  # (an integer vertex is its text, specs/semantics.md §1)
        (7, "-", "a", "b"),
        (8, "-", "a", "7"),
    ]
