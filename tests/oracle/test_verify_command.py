"""`sgq verify`: engine against the Spark oracle from the command line."""

from __future__ import annotations

import pytest

from sgq.cli import main

PROGRAM = ".window 5\nAnswer(x, z) :- a(x, y), a(y, z).\n"
EDGES = "src,trg,label,ts\n1,2,a,0\n2,3,a,1\n3,1,a,4\n9,9,b,6\n"


@pytest.fixture
def files(tmp_path):
    (tmp_path / "q.dl").write_text(PROGRAM)
    (tmp_path / "e.csv").write_text(EDGES)
    return tmp_path


def test_missing_input_is_a_message(files, capsys):
    assert main(["verify", str(files / "q.dl"), "--input", str(files / "nope.csv")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_out_of_order_input_is_a_message(files, capsys):
    (files / "bad.csv").write_text("1,2,a,5\n2,3,a,1\n")
    assert main(["verify", str(files / "q.dl"), "--input", str(files / "bad.csv")]) == 2
    err = capsys.readouterr().err
    assert "non-decreasing time" in err and "Traceback" not in err


@pytest.mark.spark
def test_agreement_and_oracle_output(files, capsys, spark):
    pytest.importorskip("sgq.api")
    out = files / "oracle.csv"
    code = main(
        [
            "verify",
            str(files / "q.dl"),
            "--input",
            str(files / "e.csv"),
            "--oracle-output",
            str(out),
        ]
    )
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert "verify: OK" in printed and "change points" in printed
    assert out.read_text().splitlines() == [
        "time,op,src,trg,label",
        "1,+,1,3,Answer",
        "4,+,2,1,Answer",
        "4,+,3,2,Answer",
        "5,-,1,3,Answer",
        "5,-,3,2,Answer",
        "6,-,2,1,Answer",
    ]


@pytest.mark.spark
def test_disagreement_shows_time_facts_and_smallest_slice(files, capsys, spark, monkeypatch):
    pytest.importorskip("sgq.api")
    from sgq.incremental.operators.wscan import WScanOp

    original = WScanOp.__init__

    def broken(self, node, ctx):  # every edge expires one instant late
        original(self, node, ctx)
        self.window = node.window + 1

    monkeypatch.setattr(WScanOp, "__init__", broken)
    code = main(["verify", str(files / "q.dl"), "--input", str(files / "e.csv")])
    printed = capsys.readouterr().out
    assert code == 1, printed
    assert "verify: FAILED" in printed
    assert "at time 5" in printed and "extra   Answer(1, 3)" in printed
    # two edges are needed for a join result; nothing smaller fails
    assert "smallest failing slice (2 of 4 edges)" in printed
    assert "1,2,a,0,+\n2,3,a,1,+" in printed
