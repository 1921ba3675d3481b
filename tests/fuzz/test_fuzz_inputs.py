"""Fuzzing `sgq run`'s input side end to end (issue 69; specs/semantics.md §1, §7).

Seeded hypothesis strategies write edge files in every format (CSV, TSV, JSON Lines; plain or
gzip; read from a file or from stdin) from a valid stream, then break them: bytes inserted,
deleted or lines swapped; odd numbers where a time goes (huge, negative, digits of other
scripts, `_`, signs, floats, blanks); odd headers (a BOM, columns in any order and under
their aliases, a column twice, an unknown column); odd JSON values (null, booleans, floats,
arrays, objects, deep nesting, big integers, a key twice); damaged gzip data. Each case runs
`sgq run` in this process, with and without `--on-error skip` and `--max-lateness`, and checks:

- no traceback: exit code 0, or 2 with one short line `sgq run: error: ...` without control
  characters (an uncaught exception fails the test with its traceback);
- an answer within a time bound (`BOUND` seconds a run);
- file against stdin: the same exit code, message (its file name aside) and output bytes;
- every result ends, within int64: each key's delta rows alternate `+` and `-` and end with
  `-`; an interval's end is after its start and at most the int64 maximum;
- `--on-error skip` against a run without it on the cleaned input (the input minus the lines
  the rejects file names): the same output;
- a damaged .gz: exit code 2 and a message naming the damage, in both modes.

`test_inputs_small` runs in the default test command (`python -m pytest`); the
`@pytest.mark.slow` ones run many more cases (CI's slow step).

Found while the suite was written, by its properties or while working out what they must
hold, besides the issue's own cases (each fixed; the first three kept as examples below, the
fourth is tests/io/test_time_range.py; the suite fails on the code before the fix):
- in skip mode, the columns of a file without a header were fixed by its first line even when
  that line was bad, so the same file without its bad lines read differently (a 6-field first
  line made every later 5-field line "expected 4 columns");
- a JSON integer of more than 4,300 digits escaped as a ValueError (Python's limit on
  converting integers to text), even under `--on-error skip`;
- a UTF-8 BOM opening a later line (files concatenated) made a vertex `\\ufeffa` in skip
  mode but `a` in the cleaned file, where the line had become the first;
- results expiring at 2^62 or later lost their closing rows (the engine's "forever" was 2^62,
  now just past int64).
And two differences it allows: a file is read a chunk ahead, so its rejects file lists a
chunk's bad lines before the chunk's late edges (stdin: in line order), and a run that stops
may have written bad lines past its error; runs that end reject the same lines.
"""

from __future__ import annotations

import contextlib
import csv
import gzip
import io
import json
import sys
import tempfile
import time
import zlib
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, example, given, seed, settings
from hypothesis import strategies as st

from sgq.cli import main

BOUND = 15.0  # seconds one run may take (a loaded machine included)
INT64_MAX = (1 << 63) - 1
INT64_MIN = -(1 << 63)

PROGRAM = (  # a PATH and a join, with a slide: most streams give results
    ".window 10\n.slide 2\nAnswer(x, y) :- knows+(x, y).\nAnswer(x, y) :- knows(x, z), likes(z, y).\n"
)

# ---- what goes in -----------------------------------------------------------------------

ODD_TIMES = [
    "1_000",
    "+5",
    "\u0661\u0662",  # Arabic-Indic 12
    "\uff11\uff12",  # full-width 12
    "\u0967",  # Devanagari 1
    "1.5",
    "1e3",
    "0x10",
    " 7 ",
    "007",
    "-0",
    "-",
    "",
    "--3",
    "5-",
    str(INT64_MAX),
    str(INT64_MAX - 9),
    str(INT64_MAX - 30),
    str(1 << 63),
    str(1 << 64),
    str(INT64_MIN),
    str(INT64_MIN - 1),
    "9" * 25,
    "9" * 5000,
    "-12",
    "\x00",
    "1\x1b[31m",
]
ODD_IDS = ["", " ", "\x00", "\x1b[2J", '"', 'a"b', "a,b", "\t", "\ufeffa", "é", "#x", "1"]
ODD_JSON = [
    "null",
    "true",
    "false",
    "1.5",
    "1e400",
    "NaN",
    "[1]",
    '{"k": [1]}',
    "[" * 1000 + "]" * 1000,
    "[" * 1000,
    "1" * 5000,
    str(1 << 64),
    '"\\u0000"',
    '""',
]
HEADER_NAMES = {
    "src": ["src", "source", "from", "SRC", " Src "],
    "trg": ["trg", "target", "dst", "to"],
    "label": ["label", "type", "l", "lbl"],
    "ts": ["ts", "time", "timestamp"],
    "op": ["op", "OP"],
}
SPECIAL_BYTES = list(b',\t"\\{}[]:\x00\x1b\r\n #-+_.e') + [0xFF, 0xC3, 0x80, 0xEF, 0xBB, 0xBF]


@st.composite
def streams(draw) -> list[list]:
    """A valid stream: edges `[src, trg, label, ts, op]`, times non-decreasing from a base
    near 0 or near either end of int64."""
    base = draw(st.sampled_from([0, 1000, -50, INT64_MAX - 20, INT64_MIN + 3]))
    n = draw(st.integers(0, 14))
    edges, t = [], base
    for _ in range(n):
        t += draw(st.integers(0, 3))
        edges.append(
            [
                draw(st.sampled_from(["a", "b", "c", "1", "2"])),
                draw(st.sampled_from(["a", "b", "c", "1", "2"])),
                draw(st.sampled_from(["knows", "likes"])),
                str(t),
                draw(st.sampled_from(["+", "+", "+", "-"])),
            ]
        )
    return edges


@st.composite
def delimited(draw, edges: list[list], sep: str) -> list[bytes]:
    """The lines of a CSV/TSV file of `edges`: a header (columns in any order, aliases,
    sometimes a BOM, a column twice or an unknown one) or none; quoting, blanks, comments."""
    with_op = any(e[4] == "-" for e in edges) or draw(st.booleans())
    names = ["src", "trg", "label", "ts"] + (["op"] if with_op else [])
    header = draw(
        st.sampled_from(["none", "plain", "shuffled", "none", "plain", "shuffled", "odd"])
    )
    if header in ("shuffled", "odd"):
        names = draw(st.permutations(names))
    lines = []
    if header != "none":
        cols = [draw(st.sampled_from(HEADER_NAMES[n])) for n in names]
        if header == "odd":
            kind = draw(st.sampled_from(["twice", "unknown", "missing", "empty"]))
            if kind == "twice":
                cols.append(cols[0])
            elif kind == "unknown":
                cols.insert(draw(st.integers(0, len(cols))), "weight")
            elif kind == "missing":
                cols.pop(draw(st.integers(0, len(cols) - 1)))
            else:
                cols.append("")
        lines.append(sep.join(cols))
    for e in edges:
        fields = [dict(zip(["src", "trg", "label", "ts", "op"], e))[n] for n in names]
        if draw(st.integers(0, 9)) == 0:
            fields = [f'"{f}"' for f in fields]
        lines.append(sep.join(fields))
        if draw(st.integers(0, 14)) == 0:
            lines.append(draw(st.sampled_from(["", "# a comment", "   "])))
    out = [line.encode() for line in lines]
    if out and draw(st.integers(0, 4)) == 0:
        out[0] = b"\xef\xbb\xbf" + out[0]  # a BOM
    return out


@st.composite
def json_lines(draw, edges: list[list]) -> list[bytes]:
    """The lines of a JSON Lines file of `edges`: objects (aliases, any key order) or arrays;
    a time as a number or as text."""
    out = []
    for e in edges:
        src, trg, label, op = (v if type(v) is _Raw else json.dumps(v) for v in e[:3] + e[4:])
        ts = e[3] if type(e[3]) is _Raw or draw(st.booleans()) else json.dumps(e[3])
        if draw(st.booleans()):
            keys = ["src", "trg", "label", "ts", "op"]
            keys = [draw(st.sampled_from(HEADER_NAMES[k])).strip() for k in keys]
            values = [src, trg, label, ts, op]
            pairs = list(zip(keys, values))
            if e[4] == "+" and draw(st.booleans()):
                pairs.pop()
            pairs = draw(st.permutations(pairs))
            out.append(("{" + ", ".join(f"{json.dumps(k)}: {v}" for k, v in pairs) + "}").encode())
        else:
            values = [src, trg, label, ts]
            if e[4] != "+" or draw(st.booleans()):
                values.append(op)
            out.append(("[" + ", ".join(values) + "]").encode())
    if out and draw(st.integers(0, 4)) == 0:
        out[0] = b"\xef\xbb\xbf" + out[0]
    return out


def _odd_edges(draw, edges: list[list], fmt: str) -> None:
    """Put odd times and odd vertices into some edges (in place)."""
    for _ in range(draw(st.integers(1, 3))):
        if not edges:
            return
        e = draw(st.sampled_from(edges))
        field = draw(st.sampled_from([0, 1, 2, 3, 3, 3, 4]))
        if field == 3:
            e[3] = draw(st.sampled_from(ODD_TIMES))
        elif field == 4:
            e[4] = draw(st.sampled_from(["*", "", " - ", "+-", "\x00"]))
        elif fmt == "jsonl" and draw(st.booleans()):
            e[field] = _Raw(draw(st.sampled_from(ODD_JSON)))
        else:
            e[field] = draw(st.sampled_from(ODD_IDS))


class _Raw(str):
    """A JSON value written as it is (not as a JSON string)."""


def _mutated(draw, lines: list[bytes]) -> list[bytes]:
    """Byte mutations, a line duplicated, two lines swapped (out of order)."""
    lines = list(lines)
    for _ in range(draw(st.integers(1, 3))):
        if not lines:
            break
        i = draw(st.integers(0, len(lines) - 1))
        action = draw(st.integers(0, 4))
        line = bytearray(lines[i])
        pos = draw(st.integers(0, len(line)))
        if action == 0:
            line[pos:pos] = bytes([draw(st.sampled_from(SPECIAL_BYTES))])
        elif action == 1 and line:
            del line[min(pos, len(line) - 1)]
        elif action == 2:
            line[pos:pos] = draw(st.binary(min_size=1, max_size=3))
        elif action == 3:
            lines.insert(i, bytes(line))
        else:
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
            continue
        lines[i] = bytes(line)
    return lines


@st.composite
def inputs(draw) -> dict:
    """One case: the file's format and bytes (uncompressed), gzip or not, and the options."""
    fmt = draw(st.sampled_from(["csv", "tsv", "jsonl"]))
    edges = draw(streams())
    if draw(st.integers(0, 2)) == 0:
        _odd_edges(draw, edges, fmt)
    if fmt == "jsonl":
        lines = draw(json_lines(edges))
    else:
        lines = draw(delimited(edges, "\t" if fmt == "tsv" else ","))
    if draw(st.integers(0, 2)) == 0:
        lines = _mutated(draw, lines)
    end = draw(st.sampled_from([b"\n", b"\r\n"]))
    blob = end.join(lines) + (end if lines and draw(st.booleans()) else b"")
    return {
        "fmt": fmt,
        "blob": blob,
        "gz": draw(st.integers(0, 3)) == 0,
        "skip": draw(st.booleans()),
        "lateness": draw(st.sampled_from([None, None, 1, 2, 5])),
        "emit": draw(st.sampled_from(["deltas", "intervals"])),
    }


# ---- running sgq --------------------------------------------------------------------------


class _Run:
    """One `sgq run` in this process: its exit code, stderr, output bytes and rejects."""

    def __init__(self, rc: int, err: str, out: bytes, rejects: list[int]):
        self.rc, self.err, self.out, self.rejects = rc, err, out, rejects

    def message(self, name: str | None = None) -> str:
        """The error line ("" if none), the input's file `name` in it written `<input>`."""
        lines = [line for line in self.err.splitlines() if line.startswith("sgq run: error: ")]
        if not lines:
            return ""
        return lines[0] if name is None else lines[0].replace(name, "<input>")


def sgq_run(
    work: Path, case: dict, source: str, *, skip: bool | None = None, data: bytes | None = None
) -> _Run:
    """`sgq run` of the case's program on `source` ("file": `work/in.FMT[.gz]`; "stdin": the
    uncompressed bytes, or `data`) with its options; checks the no-traceback and time
    properties."""
    out, rejects = work / "out.csv", work / "rejects.csv"
    for path in (out, rejects):
        if path.exists():
            path.unlink()
    skip = case["skip"] if skip is None else skip
    args = ["run", str(work / "q.dl"), "--no-progress", "-o", str(out), "--emit", case["emit"]]
    args += ["--rejects", str(rejects), "--format", case["fmt"]]
    if skip:
        args += ["--on-error", "skip"]
    if case["lateness"] is not None:
        args += ["--max-lateness", str(case["lateness"])]
    stdin = b""
    if source == "file":
        args += ["-i", str(_input_path(work, case))]
    else:
        args += ["-i", "-"]
        stdin = case["blob"] if data is None else data
    err = io.StringIO()
    started = time.monotonic()
    with (
        mock.patch.object(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin))),
        contextlib.redirect_stderr(err),
    ):
        rc = main(args)
    took = time.monotonic() - started
    assert took < BOUND, f"sgq run took {took:.1f}s"
    text = err.getvalue()
    assert "Traceback" not in text
    assert rc in (0, 2), text
    if rc == 2:
        errors = [line for line in text.splitlines() if line.startswith("sgq run: error: ")]
        assert len(errors) == 1, text
        assert len(errors[0]) < 600 and errors[0].isprintable(), errors[0]
    lines = []
    if rejects.exists():
        with open(rejects, newline="", encoding="utf-8") as handle:
            rows = list(csv.reader(handle))
        assert rows[0] == ["line", "reason", "text"]
        lines = [int(row[0]) for row in rows[1:]]
    return _Run(rc, text, out.read_bytes() if out.exists() else b"", lines)


def _input_path(work: Path, case: dict) -> Path:
    return work / (f"in.{case['fmt']}" + (".gz" if case["gz"] else ""))


def _write_input(work: Path, case: dict, damage: tuple[int, int] | None = None) -> bytes:
    """The case's input file; `damage` `(at, byte)`: a byte of the gzip data xor-ed (at a
    place past its header), or the data cut there (byte 0). The bytes written."""
    blob = case["blob"]
    if case["gz"]:
        blob = gzip.compress(blob, mtime=0)
        if damage is not None:
            at, byte = damage
            at = 10 + at % max(1, len(blob) - 10)
            blob = blob[:at] if byte == 0 else blob[:at] + bytes([blob[at] ^ byte]) + blob[at + 1 :]
    _input_path(work, case).write_bytes(blob)
    (work / "q.dl").write_text(PROGRAM)
    return blob


def _cleaned(blob: bytes, rejected: list[int]) -> bytes:
    """`blob` without the lines numbered in `rejected` (lines end at `\\n`, as sgq counts)."""
    drop = set(rejected)
    lines = blob.split(b"\n")
    return b"\n".join(line for i, line in enumerate(lines, start=1) if i not in drop)


# ---- the properties -----------------------------------------------------------------------


def check_case(case: dict) -> None:
    """File against stdin; skip against the cleaned input."""
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        _write_input(work, case)
        from_file = sgq_run(work, case, "file")
        from_stdin = sgq_run(work, case, "stdin")
        name = str(_input_path(work, case))
        assert from_file.rc == from_stdin.rc, (from_file.err, from_stdin.err)
        assert from_file.message(name) == from_stdin.message("<stdin>")
        assert from_file.out == from_stdin.out
        # the same lines rejected (a file is read a chunk ahead: its bad lines come before
        # the late edges of the chunk, and a run that stops may have read some past its error)
        if from_file.rc == 0:
            assert sorted(from_file.rejects) == sorted(from_stdin.rejects)
        if from_file.rc == 0:
            _every_result_ends(from_file.out, case["emit"])
        if case["skip"] and from_file.rc == 0:
            # the same input without the lines the rejects file names, without --on-error
            clean = sgq_run(
                work, case, "stdin", skip=False, data=_cleaned(case["blob"], from_file.rejects)
            )
            assert clean.rc == 0, clean.err
            assert clean.out == from_file.out
            if case["lateness"] is None:
                assert clean.rejects == []  # (without skip, only late edges are rejects)


def _every_result_ends(out: bytes, emit: str) -> None:
    """Every time written is within int64 and every result ends (specs/semantics.md §5):
    per key, the delta rows alternate `+`, `-`, ending with `-`; an interval's end is after
    its start."""
    rows = list(csv.reader(io.StringIO(out.decode("utf-8"))))[1:]
    if emit == "intervals":
        for src, trg, label, ts, exp in rows:
            assert INT64_MIN <= int(ts) < int(exp) <= INT64_MAX, (src, trg, label, ts, exp)
        return
    last: dict = {}
    for tau, op, *key in rows:
        assert INT64_MIN <= int(tau) <= INT64_MAX, (tau, op, key)
        assert last.get(tuple(key), "-") != op, (tau, op, key)
        last[tuple(key)] = op
    assert all(op == "-" for op in last.values()), last


def check_damage(case: dict, at: int, byte: int) -> None:
    """A damaged .gz is an error naming the damage, with and without `--on-error skip`."""
    case = dict(case, gz=True)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        blob = _write_input(work, case, (at, byte))
        try:
            with gzip.open(io.BytesIO(blob)) as handle:
                handle.read()
            damaged = False
        except (OSError, EOFError, zlib.error):
            damaged = True
        for skip in (False, True):
            run = sgq_run(work, case, "file", skip=skip)
            if damaged:
                assert run.rc == 2, run.err
                assert "cannot read the input" in run.message(), run.err


_SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)


@settings(max_examples=120, **_SETTINGS)
@given(case=inputs())
@example(  # a bad first line no longer fixes the columns of the lines after it
    case={
        "fmt": "csv",
        "blob": b"a,b,knows,1,+,x\na,b,knows,2,-\n",
        "gz": False,
        "skip": True,
        "lateness": None,
        "emit": "deltas",
    }
)
@example(  # a JSON integer of 5,000 digits: a bad line, not a ValueError
    case={
        "fmt": "jsonl",
        "blob": b'["a", "b", "knows", ' + b"1" * 5000 + b"]\n" + b'["a", "b", "likes", 3]\n',
        "gz": False,
        "skip": True,
        "lateness": None,
        "emit": "deltas",
    }
)
@example(  # a BOM opening a later line (concatenated files) is no text either
    case={
        "fmt": "csv",
        "blob": b"x\n\xef\xbb\xbfa,b,knows,1\nb,c,likes,1\n",
        "gz": False,
        "skip": True,
        "lateness": None,
        "emit": "intervals",
    }
)
def test_inputs_small(case):
    check_case(case)


@settings(max_examples=30, **_SETTINGS)
@given(case=inputs(), at=st.integers(0, 1 << 16), byte=st.integers(0, 255))
def test_damaged_gzip_small(case, at, byte):
    check_damage(case, at, byte)


@pytest.mark.slow
@seed(69)
@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=inputs())
def test_inputs_long(case):
    check_case(case)


@pytest.mark.slow
@seed(69)
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=inputs(), at=st.integers(0, 1 << 16), byte=st.integers(0, 255))
def test_damaged_gzip_long(case, at, byte):
    check_damage(case, at, byte)


def test_a_large_damaged_gzip_names_the_damage_in_both_modes(tmp_path):
    """The issue's case: a flipped byte mid-file gave "expected 4 columns, found 3" without
    `--on-error skip` (garbage lines come before the checksum fails at the end)."""
    blob = bytearray(gzip.compress(b"".join(b"a,b,knows,%d\n" % i for i in range(20000))))
    blob[len(blob) // 2] ^= 0xFF
    case = {"fmt": "csv", "blob": b"", "gz": True, "lateness": None, "emit": "deltas"}
    (tmp_path / "q.dl").write_text(PROGRAM)
    _input_path(tmp_path, case).write_bytes(bytes(blob))
    for skip in (False, True):
        run = sgq_run(tmp_path, dict(case, skip=skip), "file")
        assert run.rc == 2 and "cannot read the input (CRC check failed" in run.message()
