"""`sgq check`: summaries, all errors of every file, exit codes, overrides, missing files."""

from __future__ import annotations

from sgq.cli import main

GOOD = """// thesis Example 5 shape
.window 30d
.window 7d for purchase
.slide 1d
.output Ans
Ans(x, y) :- a(x, z), b+(z, y) as B, purchase(y, x).
Other(x, y) :- a(x, y).
"""


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_ok_summary(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _write(tmp_path, "x.dl", GOOD)
    assert main(["check", "x.dl"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert out == (
        "x.dl: ok — 2 rules, inputs: a, b, purchase, outputs: Ans, "
        "window 30d (purchase: 1w), slide 1d\n"
    )


def test_overrides_replace_default_window_and_slide(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _write(tmp_path, "x.dl", GOOD)
    assert main(["check", "x.dl", "--window", "2h", "--slide", "90"]) == 0
    out, _ = capsys.readouterr()
    assert out.endswith("window 2h (purchase: 1w), slide 90\n")


def test_window_from_command_line_only(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _write(tmp_path, "y.dl", "Answer(x, y) :- a(x, y).\n")
    assert main(["check", "y.dl"]) == 1
    assert "no window size" in capsys.readouterr().err
    assert main(["check", "y.dl", "--window", "10"]) == 0
    assert (
        capsys.readouterr().out
        == "y.dl: ok — 1 rule, inputs: a, outputs: Answer, window 10, slide 1\n"
    )


def test_every_file_is_checked_and_errors_go_to_stderr(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _write(tmp_path, "good.dl", GOOD)
    _write(tmp_path, "bad.dl", ".window 1h\nAnswer(x, z) :- a(x, y, w).\n")
    assert main(["check", "bad.dl", "good.dl"]) == 1
    out, err = capsys.readouterr()
    assert out.startswith("good.dl: ok")
    assert err == (
        "bad.dl:2:11: error: head variable 'z' does not appear in any body atom\n"
        "    Answer(x, z) :- a(x, y, w).\n"
        "              ^\n"
        "bad.dl:2:17: error: atom 'a' has 3 arguments; atoms are binary: a(x, y)\n"
        "    Answer(x, z) :- a(x, y, w).\n"
        "                    ^\n"
    )


def test_missing_file_is_a_clean_error(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _write(tmp_path, "good.dl", GOOD)
    assert main(["check", "nope.dl", "good.dl"]) == 2
    out, err = capsys.readouterr()
    assert err == "sgq check: error: program file 'nope.dl' does not exist\n"
    assert out.startswith("good.dl: ok")


def test_bad_duration_option_is_a_usage_error(tmp_path, capsys):
    try:
        main(["check", "x.dl", "--window", "5y"])
    except SystemExit as exc:
        assert exc.code == 2
    else:
        raise AssertionError("argparse accepted --window 5y")
    assert "bad duration '5y': unknown unit 'y'" in capsys.readouterr().err
