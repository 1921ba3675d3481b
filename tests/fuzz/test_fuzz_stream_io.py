"""Fuzzing `sgq run`'s edge reader: random bytes and mutated near-valid CSV/TSV/JSONL lines
give only well-formed edges or a StreamError/UserError (fail mode), and in skip mode raise
nothing but what stops any input (an UnreadableInput: a header that cannot be read); every
edge accepted is data, its time written as one in its line (specs/semantics.md §1, §7). The
command end to end: tests/fuzz/test_fuzz_inputs.py."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sgq.base.errors import UserError

from sgq.stream_io import (
    BadEncoding,
    FileLines,
    StreamError,
    UnreadableInput,
    decoded_lines,
    parse_lines,
    read_edges,
)

VALID = {
    "csv": [
        b"src,trg,label,ts",
        b"a,b,knows,1",
        b"a,b,knows,2,-",
        b'"x,y",b,l,3,+',
        b"1,2,3,4",
        b"\xef\xbb\xbfts,label,trg,src",
        b"a,b,knows,1_000",
        b"a,b,knows,+5",
        b"a,b,knows,\xd9\xa1\xd9\xa2",
        b"a,b,knows,\xef\xbc\x91",
        b"a,b,knows,9223372036854775808",
        b"a,b,knows,-9223372036854775808",
    ],
    "tsv": [
        b"src\ttrg\tlabel\tts\top",
        b"a\tb\tknows\t1\t+",
        b"a\tb\tknows\t2\t-",
        b"1\t2\t3\t4",
        b"a\tb\tknows\t 12 ",
        b"a\tb\tknows\t1.5",
    ],
    "jsonl": [
        b'{"src": "a", "trg": "b", "label": "knows", "ts": 1}',
        b'["a", "b", "l", 2, "-"]',
        b'{"from": 1, "to": 2, "type": "x", "time": 3, "op": "+"}',
        b'{"src": null, "trg": true, "label": 1.5, "ts": "7"}',
        b'["a", ["b"], {"l": 1}, 9223372036854775807]',
        b'{"src": "a", "source": "b", "trg": "c", "label": "l", "ts": 1}',
        b"[[[[[[[[[[[[[[[[[[[[",
    ],
}
_SPECIAL = st.sampled_from(list(b',\t"\\{}[]:\x00\r\n #-+_.') + [0xFF, 0xC3, 0x80, 0xEF])


@st.composite
def _mutated(draw, fmt: str) -> bytes:
    line = bytearray(draw(st.sampled_from(VALID[fmt])))
    for _ in range(draw(st.integers(0, 4))):
        action = draw(st.integers(0, 3))
        pos = draw(st.integers(0, len(line)))
        if action == 0:
            line[pos:pos] = bytes([draw(_SPECIAL)])
        elif action == 1 and line:
            del line[min(pos, len(line) - 1)]
        elif action == 2:
            line[pos:pos] = draw(st.binary(max_size=4))
        else:
            line = line + line[pos:]
    return bytes(line)


def _file(fmt: str):
    return st.one_of(
        st.binary(max_size=200),
        st.lists(_mutated(fmt), max_size=10).map(lambda ls: b"\n".join(ls)),
    )


def _well_formed(edge) -> None:
    src, trg, label, ts, op, *props = edge
    assert isinstance(src, str) and isinstance(trg, str) and isinstance(label, str)
    assert src and trg and label
    assert type(ts) is int and op in ("+", "-")
    for values in props:  # an input with properties: a dict of typed values (specs §1)
        assert type(values) is dict and props == [values]
        assert all(type(v) in (int, float, str) for v in values.values())


COLS = st.sampled_from([None, ("src", "trg", "label", "ts"), ("ts", "src", "label", "trg", "op")])


@pytest.mark.parametrize("fmt", ["csv", "tsv", "jsonl"])
@settings(max_examples=300)
@given(data=st.data())
def test_fail_mode_gives_edges_or_a_stream_error(fmt, data):
    blob = data.draw(_file(fmt))
    cols = data.draw(COLS)
    try:
        for edge in parse_lines(decoded_lines(io.BytesIO(blob)), fmt, cols, "fuzz"):
            _well_formed(edge)
    except StreamError as exc:
        assert str(exc).startswith("fuzz:") and exc.reason
    except UserError as exc:
        assert str(exc)


@pytest.mark.parametrize("fmt", ["csv", "tsv", "jsonl"])
@settings(max_examples=300)
@given(data=st.data())
def test_skip_mode_raises_only_what_stops_any_input(fmt, data):
    blob = data.draw(_file(fmt))
    cols = data.draw(COLS)
    errors = []
    edges = []
    try:
        for edge in parse_lines(
            decoded_lines(io.BytesIO(blob)), fmt, cols, "fuzz", lambda exc, line: errors.append(exc)
        ):
            edges.append(edge)
    except UnreadableInput as exc:
        assert fmt != "jsonl" and "the header" in exc.reason  # (no line of it could be read)
    for edge in edges:
        _well_formed(edge)
    assert all(isinstance(e, StreamError) and e.line >= 1 for e in errors)
    # every non-blank line is either an edge, a reported error, a comment or the header
    assert len(edges) + len(errors) <= max(1, blob.count(b"\n") + 1)


@settings(max_examples=100)
@given(
    blob=st.binary(max_size=300),
    fmt=st.sampled_from(["csv", "tsv", "jsonl"]),
    gz=st.booleans(),
    skip=st.booleans(),
)
def test_read_edges_on_files(tmp_path_factory, blob, fmt, gz, skip):
    import gzip

    path = tmp_path_factory.mktemp("fz") / (f"f.{fmt}" + (".gz" if gz else ""))
    path.write_bytes(gzip.compress(blob) if gz else blob)
    errors = []
    try:
        for edge in read_edges(path, on_error=(lambda e, line: errors.append(e)) if skip else None):
            _well_formed(edge)
    except UserError as exc:
        assert not skip, f"skip mode raised {exc}"


_TIME = re.compile(r"-?[0-9]+")


@pytest.mark.parametrize("fmt", ["csv", "tsv", "jsonl"])
@settings(max_examples=300)
@given(data=st.data())
def test_every_edge_accepted_is_data(fmt, data):
    """A reference judge of each accepted edge, from its own line: its time is written there
    as ASCII digits with an optional `-`, within int64; in JSON, its vertices and label are
    strings or integers (issue 69: `1_000`, `+5`, `١٢`, 2^63, null, true were accepted)."""
    blob = data.draw(_file(fmt))
    position = [0]
    lines = blob.split(b"\n")
    try:
        for edge in parse_lines(decoded_lines(io.BytesIO(blob)), fmt, None, "f", None, position):
            _well_formed(edge)
            assert -(1 << 63) <= edge[3] < (1 << 63)
            line = lines[position[0] - 1].decode("utf-8").strip().lstrip("\ufeff")
            if fmt == "jsonl":
                obj = json.loads(line)
                values = obj if isinstance(obj, list) else list(obj.values())
                assert all(type(v) in (str, int) for v in values), line
                times = [v for v in values if type(v) is int or _TIME.fullmatch(v.strip())]
                assert any(int(v) == edge[3] for v in times), line
            else:
                delimiter = "\t" if fmt == "tsv" else ","
                # (a line without quotes is its fields split; the csv module refuses a bare
                # carriage return inside one, which the readers take as data)
                fields = (
                    line.split(delimiter)
                    if '"' not in line
                    else next(csv.reader([line], delimiter=delimiter))
                )
                times = [f.strip() for f in fields if _TIME.fullmatch(f.strip())]
                assert any(int(f) == edge[3] for f in times), line
    except UserError:
        pass


class _Pieces(io.BytesIO):
    """A file whose `read1` returns at most `piece` bytes (a .gz gives one decompression
    step at a time): chunk boundaries fall anywhere, inside a line or a UTF-8 sequence."""

    def __init__(self, blob: bytes, piece: int) -> None:
        super().__init__(blob)
        self.piece = piece

    def read1(self, size: int = -1) -> bytes:
        return super().read1(self.piece)


@settings(max_examples=300)
@given(
    blob=st.one_of(
        st.binary(max_size=200),
        st.lists(_mutated("csv"), max_size=10).map(lambda ls: b"\n".join(ls)),
        st.lists(st.sampled_from([b"a,b,l,1", b"\xc3\xa9,\xff,l,2", b"", b"\r", b"#x"])).map(
            lambda ls: b"\r\n".join(ls)
        ),
    ),
    piece=st.integers(1, 9),
)
def test_a_file_read_in_chunks_gives_the_lines_of_a_line_by_line_read(blob, piece):
    """FileLines (`sgq run` on a finished file) against decoded_lines (stdin): the same text
    of every line, the undecodable ones as BadEncoding alike, and the same bytes counted."""
    want = list(decoded_lines(io.BytesIO(blob)))
    lines = FileLines(_Pieces(blob, piece))
    got = list(lines)
    assert [x.rstrip("\r\n") for x in got] == [x.rstrip("\r\n") for x in want]
    assert [isinstance(x, BadEncoding) for x in got] == [isinstance(x, BadEncoding) for x in want]
    assert lines.done == len(blob)


def test_a_damaged_gz_read_in_chunks_is_an_error_at_the_line_reached(tmp_path):
    import gzip

    blob = gzip.compress(b"".join(b"a,b,l,%d\n" % i for i in range(20000)))
    path = tmp_path / "cut.csv.gz"
    path.write_bytes(blob[: len(blob) // 2])
    with gzip.open(path, "rb") as handle:
        lines = FileLines(handle, str(path))
        got = []
        with pytest.raises(StreamError) as err:
            for line in lines:
                got.append(line)
    assert got == [f"a,b,l,{i}" for i in range(len(got))]
    assert err.value.line == len(got) + 1 and "cannot read the input" in str(err.value)
    assert len(got) > 1000  # what was read before the damage went on
