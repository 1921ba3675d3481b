"""`sgq gen` end to end through sgq.cli.main."""

from __future__ import annotations

import gzip

import pytest
from generators.gen_support import check_deletions, csv_text

from sgq.cli import main


def _rows(text):
    lines = text.splitlines()
    assert lines[0] == "src,trg,label,ts,op"
    out = []
    for line in lines[1:]:
        s, t, l, ts, op = line.split(",")
        out.append((s, t, l, int(ts), op))
    return out


@pytest.mark.parametrize("kind", ["snb", "so", "gmark"])
def test_cli_writes_the_same_bytes_as_the_api(kind, tmp_path):
    out = tmp_path / "s.csv"
    rc = main(
        [
            "gen",
            kind,
            "--edges",
            "3000",
            "--seed",
            "4",
            "--days",
            "10",
            "--deletions",
            "0.1",
            "--output",
            str(out),
            "--no-progress",
        ]
    )
    assert rc == 0
    text = out.read_text()
    assert text == csv_text(kind, 3000, 4, days=10, deletions=0.1)
    rows = _rows(text)
    assert len(rows) == 3000
    assert max(r[3] for r in rows) < 10 * 86400
    check_deletions(rows)
    out2 = tmp_path / "t.csv"
    assert (
        main(
            [
                "gen",
                kind,
                "-n",
                "3000",
                "--seed",
                "4",
                "--days",
                "10",
                "--deletions",
                "0.1",
                "-o",
                str(out2),
                "--no-progress",
            ]
        )
        == 0
    )
    assert out2.read_bytes() == out.read_bytes()


def test_cli_stdout_and_options(capsys):
    assert (
        main(["gen", "gmark", "--edges", "500", "--seed", "1", "--labels", "7", "--output", "-"])
        == 0
    )
    captured = capsys.readouterr()
    rows = _rows(captured.out)
    assert {r[2] for r in rows} <= {f"l{i}" for i in range(7)}
    assert captured.err == ""  # small runs print no progress
    assert main(["gen", "so", "-n", "2000", "--users", "60"]) == 0
    users = {v for r in _rows(capsys.readouterr().out) for v in r[:2]}
    assert len(users) <= 60


def test_cli_schema_and_summary_line(capsys, tmp_path):
    assert (
        main(
            ["gen", "gmark", "-n", "10", "--labels", "2", "--schema", "-o", str(tmp_path / "g.csv")]
        )
        == 0
    )
    err = capsys.readouterr().err
    assert "label l0:" in err and "label l1:" in err
    assert main(["gen", "so", "-n", "200000", "-o", str(tmp_path / "big.csv")]) == 0
    err = capsys.readouterr().err
    assert "wrote 200000 so edges" in err
    assert (
        main(["gen", "so", "-n", "200000", "--no-progress", "-o", str(tmp_path / "big2.csv")]) == 0
    )
    assert capsys.readouterr().err == ""


def test_cli_gzip_output_is_deterministic(tmp_path):
    a, b = tmp_path / "a.csv.gz", tmp_path / "b.csv.gz"
    for path in (a, b):
        assert main(["gen", "snb", "-n", "2000", "--seed", "9", "-o", str(path)]) == 0
    assert a.read_bytes() == b.read_bytes()
    assert gzip.decompress(a.read_bytes()).decode() == csv_text("snb", 2000, 9)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["gen", "so", "-n", "5", "--labels", "3"], "--labels applies to gmark, not so"),
        (["gen", "snb", "-n", "5", "--schema"], "--schema applies to gmark"),
        (["gen", "gmark", "-n", "5", "--labels", "0"], "--labels must be a positive integer"),
        (["gen", "so", "-n", "5", "--days", "0"], "--days must be a positive integer"),
        (["gen", "so", "-n", "5", "-o", "/nonexistent-dir/x.csv"], "cannot write"),
    ],
)
def test_cli_user_errors_are_messages(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("sgq gen: error: ") and message in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["gen", "so", "-n", "5", "--deletions", "0.7"], "must be between 0 and 0.5"),
        (["gen", "so", "-n", "2.5"], "'2.5' is not an integer"),
        (["gen", "nope", "-n", "5"], "invalid choice: 'nope'"),
        (["gen", "so"], "--edges"),
    ],
)
def test_cli_usage_errors_exit_2(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


def test_cli_edge_counts_accept_1e6_style():
    from sgq.commands.gen import _count

    assert _count("1e6") == 1_000_000 and _count("1_000") == 1000 and _count("0") == 0


def test_cli_reads_back_with_the_stream_reader(tmp_path):
    stream_io = pytest.importorskip("sgq.stream_io")
    out = tmp_path / "s.csv"
    assert main(["gen", "snb", "-n", "1000", "--deletions", "0.2", "-o", str(out)]) == 0
    rows = list(stream_io.read_edges(str(out)))
    assert rows == _rows(out.read_text())
