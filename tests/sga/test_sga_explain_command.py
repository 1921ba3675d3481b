"""`sgq explain FILE [--format] [--window] [--slide]` through the CLI entry point."""

from __future__ import annotations

import json

from sgq.cli import main

PROGRAM = "Answer(x, y) :- a(x, z), b+(z, y).\n"


def write(tmp_path, text, name="q.dl"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_text_with_window_and_slide_from_the_command_line(tmp_path, capsys):
    assert main(["explain", write(tmp_path, PROGRAM), "--window", "2h", "--slide", "30m"]) == 0
    out = capsys.readouterr().out
    assert "WSCAN[a](ω=7200, β=1800)" in out
    assert "PATTERN[src1, trg2 -> Answer](trg1 = src2)" in out


def test_command_line_window_overrides_the_program(tmp_path, capsys):
    path = write(tmp_path, ".window 1h\n" + PROGRAM)
    assert main(["explain", path, "--window", "3"]) == 0
    assert "ω=3, β=1" in capsys.readouterr().out


def test_json_and_dot_formats(tmp_path, capsys):
    path = write(tmp_path, ".window 10\n" + PROGRAM)
    assert main(["explain", path, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [op["kind"] for op in data["operators"]] == ["PATTERN", "WSCAN", "PATH", "WSCAN"]
    assert main(["explain", path, "--format", "dot"]) == 0
    assert capsys.readouterr().out.startswith("digraph sga {")


def test_a_join_with_an_atom_on_both_head_variables_names_its_guard(tmp_path, capsys):
    cyclic = ".window 10\nAnswer(m1, m2) :- a(x, y), b(m1, x), b(m2, y), c(m2, m1).\n"
    assert main(["explain", write(tmp_path, cyclic), "--no-optimize"]) == 0
    assert "guard: Answer by c(m2, m1) (with --emit deltas" in capsys.readouterr().out
    chain = ".window 10\nAnswer(x, z) :- a(x, y), b(y, z).\n"
    assert main(["explain", write(tmp_path, chain, "chain.dl"), "--no-optimize"]) == 0
    assert "guard:" not in capsys.readouterr().out
    both = ".window 10\nAnswer(x, y) :- a+(x, y), b(x, m), c(m, y).\n"  # an intersection
    assert main(["explain", write(tmp_path, both, "both.dl"), "--no-optimize"]) == 0
    out = capsys.readouterr().out
    assert "intersection: Answer" in out and "guard:" not in out
    assert "sideways: Answer (with --emit deltas, its closure " in out
    two = ".window 10\nAnswer(x, y) :- a+(x, y), b+(x, y).\n"  # two PATHs: nothing sideways
    assert main(["explain", write(tmp_path, two, "two.dl"), "--no-optimize"]) == 0
    out = capsys.readouterr().out
    assert "intersection: Answer" in out and "sideways:" not in out


def test_a_join_that_starts_functional_is_named(tmp_path, capsys):
    chain = ".window 10\nAnswer(x, y) :- likes(x, m), hasCreator(m, y).\n"
    assert main(["explain", write(tmp_path, chain), "--no-optimize"]) == 0
    assert "functional join: Answer (its keys read off" in capsys.readouterr().out
    both_vars = ".window 10\nAnswer(x, y) :- a(x, y), b(x, y).\n"  # joined on both
    assert main(["explain", write(tmp_path, both_vars, "both_vars.dl"), "--no-optimize"]) == 0
    assert "functional join:" not in capsys.readouterr().out
    both = ".window 10\nAnswer(x, y) :- a+(x, y), b(x, m), c(m, y).\n"  # a side: keyed
    assert main(["explain", write(tmp_path, both, "both.dl"), "--no-optimize"]) == 0
    assert "functional join:" not in capsys.readouterr().out


def test_program_error_is_a_located_message(tmp_path, capsys):
    path = write(tmp_path, ".window 10\nAnswer(x, y) :- a(x, y)\n")
    assert main(["explain", path]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith(f"{path}:")
    assert "error:" in captured.err and "Traceback" not in captured.err


def test_head_constant_is_a_located_message(tmp_path, capsys):
    # rejected by the checker (or, failing that, by the translation): either way a message
    path = write(tmp_path, '.window 10\nAnswer(x, "c") :- a(x, y).\n')
    assert main(["explain", path]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith(f"{path}:2:11: error: ")
    assert err[1].strip() == 'Answer(x, "c") :- a(x, y).'
    assert err[2].strip().startswith("^")


def test_missing_window_is_a_message(tmp_path, capsys):
    assert main(["explain", write(tmp_path, PROGRAM)]) == 1
    assert "no window size" in capsys.readouterr().err


def test_missing_file_is_a_usage_error(tmp_path, capsys):
    assert main(["explain", str(tmp_path / "nope.dl")]) == 2
    err = capsys.readouterr().err
    assert "program file" in err and "does not exist" in err


def test_bad_duration_is_a_usage_error(tmp_path, capsys):
    try:
        main(["explain", write(tmp_path, PROGRAM), "--window", "5x"])
    except SystemExit as exc:
        assert exc.code == 2
    else:  # pragma: no cover
        raise AssertionError("argparse should reject a bad duration")
    assert "unknown unit 'x'" in capsys.readouterr().err


def test_canonical_shows_the_flat_join_the_default_the_shared_chain(tmp_path, capsys):
    path = write(tmp_path, ".window 10\nAnswer(x, y) :- [a/b/c](x, y).\n")
    assert main(["explain", path]) == 0
    shared = capsys.readouterr().out
    assert "PATTERN[src1, trg2 -> [b/c]](trg1 = src2)" in shared
    assert main(["explain", path, "--canonical"]) == 0
    flat = capsys.readouterr().out
    assert "PATTERN[src1, trg3 -> [a/b/c]](trg1 = src2, trg2 = src3)" in flat
    assert "[b/c]" not in flat


def test_rewrites_are_listed_and_skipped_by_name(tmp_path, capsys):
    path = write(tmp_path, ".window 10\nAnswer(x, y) :- [a/b/c](x, y).\n")
    assert main(["explain", path]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:2] == [
        "rewrites: finite_paths, relax_simple_paths (no change), shared_chains, "
        "bind_path_sources (off)",
        "path operator: auto",
    ]
    assert main(["explain", path, "--no-rewrite", "finite_paths", "--path-operator", "spath"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(
        "rewrites: finite_paths (skipped), relax_simple_paths (no change), shared_chains "
        "(no change), bind_path_sources (off)\npath operator: spath\n"
    )
    assert "PATH[a/b/c]" in out and "PATTERN" not in out
    assert main(["explain", path, "--canonical", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["operators"]


def test_an_unknown_rewrite_is_a_one_line_usage_error(tmp_path, capsys):
    path = write(tmp_path, ".window 10\n" + PROGRAM)
    assert main(["explain", path, "--no-rewrite", "shared_chains", "--no-rewrite", "nope"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        "sgq explain: error: --no-rewrite: unknown rewrite 'nope'; the "
        "rewrites are finite_paths, relax_simple_paths, shared_chains, bind_path_sources\n"
    )


def test_an_opt_in_rewrite_runs_when_asked_for(tmp_path, capsys):
    path = write(tmp_path, ".window 10\nAnswer(x, y) :- a+(x, y), b(x, m), c(m, y).\n")
    assert main(["explain", path, "--rewrite", "bind_path_sources"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(
        "rewrites: finite_paths (no change), relax_simple_paths (no change), shared_chains, "
        "bind_path_sources\n"
    )
    assert "PATH[a+; pairs from [b/c]]" in out
    assert main(["explain", path, "--rewrite", "nope"]) == 2
    assert "--rewrite: unknown opt-in rewrite 'nope'" in capsys.readouterr().err
