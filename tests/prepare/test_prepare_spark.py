"""`sgq prepare` end to end on a local Spark session: planted bad rows are rejected with
stream_io's reasons and the right line numbers (also across file splits), the good rows come
out stably sorted by time, the manifest counts match, and read_prepared streams them back."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from sgq.base.errors import UserError

from sgq.cli import main
from sgq.parquet_input import MANIFEST, is_prepared, read_prepared
from sgq.prepare import prepare
from sgq.stream_io import read_edges

CSV = (
    b"src,trg,label,ts,op\n"
    b"a,b,knows,10,+\n"
    b"a,b,knows\n"  # 3: wrong column count
    b"b,c,likes,ten,+\n"  # 4: non-integer time
    b"\n"
    b"# a comment\n"
    b"c,d,knows,5,*\n"  # 7: unknown op
    b",d,knows,5,+\n"  # 8: empty id
    b"c,\xff\xfed,knows,6,+\n"  # 9: bad UTF-8
    b"c,d,knows,5,-\n"
    b"x,y,likes,10,+\n"
)
JSONL = (
    b'{"src": "j1", "trg": "j2", "label": "knows", "ts": 10}\n'
    b'{"src": "j1", "trg": "j2", "label": "knows"}\n'  # 2: missing ts
    b'["j2", "j3", "likes", 5, "-"]\n'
    b'{"src": 1, "trg": 2, "label": "likes", "ts": "1.5"}\n'  # 4: non-integer time
    b'{"src": "j1", "trg": "j2", "label": "knows", "ts": 1\n'  # 5: invalid JSON
)
TSV = b"ts\tsrc\tlabel\ttrg\n7\tt1\tknows\tt2\n7\tt3\tknows\tt4\t+\n"  # 3: five values


def _big_csv(seed: int, n: int) -> bytes:
    """Many ties, a few bad rows scattered (every 97th line), long enough to be split."""
    rnd = random.Random(seed)
    lines = []
    for i in range(n):
        if i % 97 == 50:
            lines.append(f"v{i},w{i},knows,{'x' if i % 2 else ''}{i}")
        else:
            lines.append(f"v{i},w{i},{rnd.choice(['knows', 'likes'])},{rnd.randrange(20)}")
    return ("\n".join(lines) + "\n").encode()


def _reference(paths):
    """stream_io's verdict on each file: the good edges, stably time-sorted, and the bad
    (file, line, reason)."""
    good, bad = [], []
    for path in paths:
        good.extend(
            read_edges(path, on_error=lambda e, line, p=path: bad.append((p, e.line, e.reason)))
        )
    return sorted(good, key=lambda e: e[3]), bad


@pytest.fixture(scope="module")
def prepared(spark, tmp_path_factory):
    root = tmp_path_factory.mktemp("prepare")
    raw = root / "raw"
    raw.mkdir()
    files = {
        "a.csv": CSV,
        "b.jsonl": JSONL,
        "c.tsv": TSV,
        "d.csv": _big_csv(1, 3000),
        "e.csv": _big_csv(2, 1500),
    }
    for name, data in files.items():
        (raw / name).write_bytes(data)
    pq.write_table(
        pa.table(
            {
                "source": pa.array(["p1", "p2", "p3", None], pa.string()),
                "target": pa.array(["q1", "q2", "q3", "q4"], pa.string()),
                "type": pa.array(["knows", "likes", "knows", "knows"], pa.string()),
                "time": pa.array(["3", "x", "10", "4"], pa.string()),
            }
        ),
        raw / "f.parquet",
    )
    order = [str(raw / n) for n in ("a.csv", "b.jsonl", "c.tsv", "d.csv", "e.csv", "f.parquet")]
    old = spark.conf.get("spark.sql.files.maxPartitionBytes")
    spark.conf.set("spark.sql.files.maxPartitionBytes", "4096")  # split d.csv and e.csv
    try:
        manifest = prepare(order, str(root / "out"), spark=spark)
        manifest["splits"] = spark.read.text(order[3]).rdd.getNumPartitions() + len(order) - 1
    finally:
        spark.conf.set("spark.sql.files.maxPartitionBytes", old)
    return root, order, manifest


def _rejects(out):
    rows = []
    for name in sorted(os.listdir(out / "rejects")):
        if name.endswith(".json"):
            with open(out / "rejects" / name, encoding="utf-8") as handle:
                rows.extend(json.loads(line) for line in handle)
    return rows


def test_clean_rows_are_the_good_rows_stably_sorted(prepared):
    root, order, manifest = prepared
    good, _ = _reference(order[:5])
    parquet_good = [("p1", "q1", "knows", 3, "+"), ("p3", "q3", "knows", 10, "+")]
    expected = sorted(good + parquet_good, key=lambda e: e[3])  # parquet file comes last
    got = list(read_prepared(root / "out"))
    assert got == expected
    assert is_prepared(root / "out")


def test_rejects_are_exactly_the_bad_rows_with_reasons(prepared):
    root, order, manifest = prepared
    _, bad = _reference(order[:5])
    bad.append((order[5], 2, "time 'x' is not an integer"))
    bad.append((order[5], 4, "empty src"))
    got = [(r["file"], r["line"], r["reason"]) for r in _rejects(root / "out")]
    assert got == bad
    planted = {
        (os.path.basename(f), line): reason
        for f, line, reason in got
        if "/d.csv" not in f and "/e.csv" not in f
    }
    assert planted == {
        ("a.csv", 3): "expected 5 columns (src,trg,label,ts,op), found 3",
        ("a.csv", 4): "time 'ten' is not an integer",
        ("a.csv", 7): "unknown op '*' (use + or -)",
        ("a.csv", 8): "empty src",
        ("a.csv", 9): "not valid UTF-8",
        ("b.jsonl", 2): "missing ts",
        ("b.jsonl", 4): "time '1.5' is not an integer",
        ("b.jsonl", 5): "invalid JSON (Expecting ',' delimiter)",
        ("c.tsv", 3): "expected 4 columns (ts,src,label,trg), found 5",
        ("f.parquet", 2): "time 'x' is not an integer",
        ("f.parquet", 4): "empty src",
    }
    raw = {(os.path.basename(r["file"]), r["line"]): r["raw"] for r in _rejects(root / "out")}
    assert raw[("a.csv", 4)] == "b,c,likes,ten,+"
    assert json.loads(raw[("f.parquet", 2)]) == {
        "source": "p2",
        "target": "q2",
        "type": "likes",
        "time": "x",
    }


def test_line_numbers_survive_file_splits(prepared):
    root, order, manifest = prepared
    got = [r["line"] for r in _rejects(root / "out") if r["file"].endswith("/d.csv")]
    assert got == [i + 1 for i in range(3000) if i % 97 == 50 and i % 2]
    assert manifest["splits"] > len(order)


def test_manifest_counts(prepared):
    root, order, manifest = prepared
    on_disk = json.loads((root / "out" / MANIFEST).read_text())
    assert on_disk["written"] == manifest["written"]
    n = len(list(read_prepared(root / "out")))
    assert manifest["written"] == n
    assert manifest["rejected"] == len(_rejects(root / "out"))
    assert manifest["rows_read"] == manifest["written"] + manifest["rejected"]
    times = [e[3] for e in read_prepared(root / "out")]
    assert (manifest["ts_min"], manifest["ts_max"]) == (min(times), max(times)) == (0, 2960)
    assert manifest["lines_read"] == 11 + 5 + 3 + 3000 + 1500 + 4
    assert [i["format"] for i in manifest["inputs"]] == [
        "csv",
        "json",
        "tsv",
        "csv",
        "csv",
        "parquet",
    ]
    parts = manifest["edges"]
    assert parts == sorted(parts) and len(parts) >= 1


def test_cli_iso8601_end_to_end(spark, tmp_path, capsys):
    raw = tmp_path / "iso.csv"
    raw.write_text(
        "src,trg,label,ts\n"
        "a,b,knows,2024-01-01T00:00:10Z\n"
        "b,c,knows,2024-01-01T00:00:00+01:00\n"  # 2023-12-31T23:00:00Z
        "c,d,knows,yesterday\n"  # bad ISO time
        "d,e,knows,2024-01-01T00:00:10.9Z\n"  # fraction floored, tie with line 2
    )
    out = tmp_path / "out"
    code = main(["prepare", str(raw), "--output", str(out), "--time-format", "iso8601"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert captured.out.startswith(
        f"prepared {out}: 4 rows read from 1 file(s), 3 written, 1 rejected"
    )
    assert captured.out.count("\n") == 1
    assert list(read_prepared(out)) == [
        ("b", "c", "knows", 1704063600, "+"),
        ("a", "b", "knows", 1704067210, "+"),
        ("d", "e", "knows", 1704067210, "+"),
    ]
    assert [(r["line"], r["reason"]) for r in _rejects(out)] == [
        (4, "time 'yesterday' is not an ISO-8601 date-time")
    ]
    # a second run into the same directory needs --overwrite
    assert main(["prepare", str(raw), "--output", str(out)]) == 2
    assert "--overwrite" in capsys.readouterr().err
    assert (
        main(
            [
                "prepare",
                str(raw),
                "--output",
                str(out),
                "--overwrite",
                "--columns",
                "src,trg,label,ts",
            ]
        )
        == 0
    )
    assert len(list(read_prepared(out))) == 0  # epoch times now: all rows rejected
    capsys.readouterr()


def test_user_errors_before_spark(tmp_path, capsys):
    (tmp_path / "x.dat").write_text("a,b,c,1\n")
    (tmp_path / "ok.csv").write_text("a,b,c,1\n")
    cases = [
        (["prepare", str(tmp_path / "missing.csv"), "-o", str(tmp_path / "o")], "does not exist"),
        (["prepare", str(tmp_path / "x.dat"), "-o", str(tmp_path / "o")], "cannot tell the format"),
        (["prepare", str(tmp_path / "ok.csv"), "-o", str(tmp_path)], "inside the output directory"),
        (
            [
                "prepare",
                str(tmp_path / "ok.csv"),
                "-o",
                str(tmp_path / "o"),
                "--columns",
                "src,trg",
            ],
            "lacks label, ts",
        ),
    ]
    for argv, message in cases:
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err
    with pytest.raises(UserError, match="holds no files"):
        (tmp_path / "empty").mkdir()
        prepare([str(tmp_path / "empty")], str(tmp_path / "o2"))


def test_missing_java_is_a_message(tmp_path):
    (tmp_path / "ok.csv").write_text("a,b,c,1\n")
    env = {k: v for k, v in os.environ.items() if k != "JAVA_HOME"}
    env["PATH"] = str(tmp_path)  # no java here
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "sgq.cli",
            "prepare",
            str(tmp_path / "ok.csv"),
            "-o",
            str(tmp_path / "o"),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    assert "Java" in proc.stderr and "Traceback" not in proc.stderr


def test_unreadable_parquet_is_a_message(spark, tmp_path, capsys):
    (tmp_path / "bad.parquet").write_bytes(b"this is not parquet at all\n")
    assert main(["prepare", str(tmp_path / "bad.parquet"), "-o", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "the Spark job failed" in err and "Traceback" not in err
