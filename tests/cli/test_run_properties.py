"""`sgq run` and the library over inputs with properties (specs/semantics.md §1, §4c): every
input kind (CSV read in blocks and line by line, TSV, .gz, stdin, JSON Lines, a prepared
directory, a DataFrame, an Arrow table, tuples) against the same program over a twin input
without properties that holds only the edges its property test keeps."""

from __future__ import annotations

import gzip
import json
import random
import signal

import pytest
from cli_support import assert_one_line_error, prepared_dir, sgq_main, sgq_proc

import sgq

PROGRAM = ".window 10\n.slide 2\n.output OnTime\nOnTime(a, b) :- [flight{delay < 15}+](a, b).\n"
TWIN = ".window 10\n.slide 2\n.output OnTime\nOnTime(a, b) :- flight+(a, b).\n"


def flights(seed: int = 3, n: int = 300) -> list[tuple]:
    """Flights `(src, trg, "flight", t, "+", props)`: a delay an int, a float, text or
    missing; a carrier now and then."""
    rng = random.Random(seed)
    out = []
    for t in range(n):
        a, b = rng.sample("ABCDEFGH", 2)
        props = {}
        delay = rng.choice([rng.randint(-5, 40), rng.randint(0, 30) + 0.5, "late", None])
        if delay is not None:
            props["delay"] = delay
        if rng.random() < 0.3:
            props["carrier"] = rng.choice(["AC", "15"])
        out.append((a, b, "flight", t // 2, "+", props))
    return out


def passes(edge: tuple) -> bool:
    delay = edge[5].get("delay")
    return type(delay) in (int, float) and delay < 15


def csv_text(edges: list[tuple], sep: str = ",") -> str:
    lines = [sep.join(["src", "trg", "label", "ts", "delay", "carrier"])]
    for s, t, label, ts, _, props in edges:
        delay, carrier = props.get("delay", ""), props.get("carrier")
        quoted = "" if carrier is None else f'"{carrier}"'  # a quoted "15" stays text
        lines.append(sep.join([s, t, label, str(ts), str(delay), quoted]))
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def expected(tmp_path_factory) -> str:
    """The deltas of the twin program over the edges the test keeps."""
    root = tmp_path_factory.mktemp("twin")
    (root / "twin.dl").write_text(TWIN)
    kept = "".join(f"{s},{t},{label},{ts}\n" for s, t, label, ts, *_ in filter(passes, flights()))
    (root / "twin.csv").write_text(kept)
    out = root / "out.csv"
    args = ["run", root / "twin.dl", "-i", root / "twin.csv", "--emit", "deltas", "-o", out]
    assert sgq_proc([*args, "--no-progress"]).returncode == 0
    return out.read_text()


def run_on(tmp_path, name: str, data: bytes, *extra, stdin: bool = False) -> str:
    program = tmp_path / "p.dl"
    program.write_text(PROGRAM)
    path = tmp_path / name
    path.write_bytes(data)
    out = tmp_path / "out.csv"
    given = ["-i", "-"] if stdin else ["-i", path]
    proc = sgq_proc(
        ["run", program, *given, "--emit", "deltas", "-o", out, "--no-progress", *extra],
        stdin=data if stdin else None,
    )
    assert proc.returncode == 0, proc.stderr
    return out.read_text()


@pytest.mark.parametrize(
    "name, sep, packed, stdin",
    [
        ("in.csv", ",", False, False),
        ("in.tsv", "\t", False, False),
        ("in.csv.gz", ",", True, False),
        ("in.csv", ",", False, True),
    ],
)
def test_delimited_inputs(tmp_path, expected, name, sep, packed, stdin):
    data = csv_text(flights(), sep).encode()
    fmt = ["--format", "tsv"] if stdin and sep == "\t" else []
    got = run_on(tmp_path, name, gzip.compress(data) if packed else data, *fmt, stdin=stdin)
    assert got == expected


def test_json_lines(tmp_path, expected):
    lines = []
    for s, t, label, ts, _, props in flights():
        record = {"src": s, "trg": t, "label": label, "ts": ts, "delay": None, "carrier": None}
        record.update(props)
        lines.append(json.dumps(record))
    assert run_on(tmp_path, "in.jsonl", ("\n".join(lines) + "\n").encode()) == expected


def test_a_prepared_directory(tmp_path, expected):
    import pyarrow as pa
    import pyarrow.parquet as pq

    edges = flights()
    root = prepared_dir(tmp_path / "prep", [e[:5] for e in edges], parts=1)
    part = root / "edges" / "part-00000.parquet"
    table = pq.read_table(part)
    delay = [e[5].get("delay") for e in edges]
    numbers = [d if type(d) in (int, float) else None for d in delay]
    table = table.append_column("delay", pa.array(numbers, pa.float64()))
    pq.write_table(table, part)
    program = tmp_path / "p.dl"
    program.write_text(PROGRAM)
    out = tmp_path / "out.csv"
    args = ["run", program, "-i", root, "--emit", "deltas", "-o", out, "--no-progress"]
    proc = sgq_proc(args)
    assert proc.returncode == 0, proc.stderr
    assert out.read_text() == expected


def _library_rows(expected: str) -> list[tuple]:
    rows = [line.split(",") for line in expected.splitlines()[1:]]
    return [(int(t), op, s, d, label) for t, op, s, d, label in rows]


def test_the_library_reads_properties_of_tables_and_tuples(expected):
    import pandas as pd
    import pyarrow as pa

    query = sgq.compile(text=PROGRAM)
    edges = flights()
    want = _library_rows(expected)
    names = ("delay", "carrier")
    assert [tuple(d) for d in query.run(edges, properties=names)] == want
    frame = pd.DataFrame(
        {
            "src": [e[0] for e in edges],
            "trg": [e[1] for e in edges],
            "label": [e[2] for e in edges],
            "ts": [e[3] for e in edges],
            "delay": [e[5].get("delay") if passes(e) else None for e in edges],
        }
    )
    assert [tuple(d) for d in query.run(frame)] == want  # (a missing number: NaN)
    assert [tuple(d) for d in query.run(pa.Table.from_pandas(frame))] == want
    first = [(*e[:5], {"delay": e[5].get("delay"), "carrier": None}) for e in edges]
    assert [tuple(d) for d in query.run(iter(first))] == want  # (names: the first edge's keys)


def test_a_program_reading_a_property_the_input_lacks_fails_before_any_output(tmp_path, capsys):
    program = tmp_path / "p.dl"
    program.write_text(PROGRAM)
    path = tmp_path / "in.csv"
    path.write_text("src,trg,label,ts,late\na,b,flight,1,3\n")
    out = tmp_path / "out.csv"
    code, _, err = sgq_main(["run", program, "-i", path, "-o", out, "--no-progress"], capsys)
    assert code == 2
    assert_one_line_error(err, "property 'delay' of 'flight'", "its properties are late")
    assert not out.exists()
    path.write_text("a,b,flight,1\n")
    code, _, err = sgq_main(["run", program, "-i", path, "-o", out, "--no-progress"], capsys)
    assert code == 2 and "it has no property columns" in err


def test_a_checkpointed_run_resumes_with_the_properties(tmp_path):
    program = tmp_path / "p.dl"
    program.write_text(PROGRAM)
    path = tmp_path / "in.csv"
    path.write_text(csv_text(flights(n=600)))
    base = ["run", program, "-i", path, "--emit", "deltas", "--no-progress"]
    every = ["--checkpoint-every", "50"]
    whole = tmp_path / "whole.csv"
    proc = sgq_proc([*base, "-o", whole, "--checkpoint", tmp_path / "c1", *every])
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "out.csv"
    args = [*base, "-o", out, "--checkpoint", tmp_path / "c2", *every]
    proc = sgq_proc([*args, "--kill-at", "100:batch"])
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    proc = sgq_proc(args)
    assert proc.returncode == 0 and "resuming" in proc.stderr, proc.stderr
    assert out.read_bytes() == whole.read_bytes()


def test_stats_gives_per_property_figures(tmp_path, capsys):
    path = tmp_path / "in.csv"
    path.write_text(
        "src,trg,label,ts,delay,carrier,op\n"
        "a,b,flight,1,15,AC,\n"
        "a,c,flight,2,-3.5,,\n"
        "b,c,flight,3,,AC,\n"
        'b,c,flight,3,x,"UA",\n'
        "b,c,flight,4,1000,ZZ,-\n"
        "b,c,bus,4,1,,\n"
        "b,c,flight,5,99,ZZ,\n"
    )
    code, out, _ = sgq_main(["stats", path, "--sample", "5"], capsys)
    data = json.loads(out)
    assert code == 0 and data["labels"]["flight"]["count"] == 4  # (the `-` edge not counted)
    figures = ("present", "numbers", "minimum", "maximum", "strings", "distinct")
    assert data["properties"] == {
        "bus": {"delay": dict(zip(figures, (1, 1, 1, 1, 0, 1)))},
        "flight": {
            "carrier": dict(zip(figures, (3, 0, None, None, 3, 2))),
            "delay": dict(zip(figures, (3, 2, -3.5, 15, 1, 3))),
        },
    }
    path.write_text("a,b,flight,1\n")
    code, out, _ = sgq_main(["stats", path], capsys)
    assert "properties" not in json.loads(out)


# ---- properties no rule reads ----------------------------------------------------------------

PLAIN = ".window 10\n.slide 2\n.output Hop\nHop(a, b) :- flight+(a, b).\n"


def deltas_of(tmp_path, text: str, name: str) -> str:
    program = tmp_path / "plain.dl"
    program.write_text(PLAIN)
    path = tmp_path / name
    path.write_text(text)
    out = tmp_path / f"{name}.out"
    args = ["run", program, "-i", path, "--emit", "deltas", "-o", out, "--no-progress"]
    proc = sgq_proc(args)
    assert proc.returncode == 0, proc.stderr
    return out.read_text()


def test_properties_no_rule_reads_change_nothing_without_an_op_column(tmp_path):
    """The engine then runs without them (sgq/evaluation.py `properties_kept`): the deltas
    are those of the same edges without their property columns."""
    edges = flights(n=400)
    twin = "".join(f"{s},{t},{label},{ts}\n" for s, t, label, ts, *_ in edges)
    assert deltas_of(tmp_path, csv_text(edges), "with.csv") == deltas_of(
        tmp_path, twin, "without.csv"
    )
    query = sgq.compile(text=PLAIN)
    assert list(query.run(tmp_path / "with.csv")) == list(query.run(tmp_path / "without.csv"))


def test_with_an_op_column_a_deletion_ends_only_the_identities_it_names(tmp_path):
    """A `-` edge giving properties ends the identities whose properties are those, even when
    no rule reads a property (specs/semantics.md §1): the flight of delay 2 keeps `a -> b`
    valid after the one of delay 1 is deleted at 3, to its own expiry at 12."""
    text = "src,trg,label,ts,op,delay\na,b,flight,1,+,1\na,b,flight,2,+,2\na,b,flight,3,-,1\n"
    assert deltas_of(tmp_path, text, "in.csv").splitlines()[1:] == [
        "1,+,a,b,Hop",
        "12,-,a,b,Hop",
    ]
    # (what a deletion naming no property does: it ends both)
    bare = text.replace("a,b,flight,3,-,1", "a,b,flight,3,-,")
    assert deltas_of(tmp_path, bare, "bare.csv").splitlines()[1:] == ["1,+,a,b,Hop", "3,-,a,b,Hop"]
    # the library reads a file as `sgq run` does
    (tmp_path / "in.csv").write_text(text)
    got = [tuple(d) for d in sgq.compile(text=PLAIN).run(tmp_path / "in.csv")]
    assert got == [(1, "+", "a", "b", "Hop"), (12, "-", "a", "b", "Hop")]
