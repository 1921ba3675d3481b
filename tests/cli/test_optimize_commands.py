"""`sgq stats`, and `--optimize` on `sgq explain` and `sgq run` (sga/optimize/): the chosen
plan with its estimated costs, `--plans N`, results equal to today's plan, and user errors as
messages."""

from __future__ import annotations

import json

from cli_support import sgq_main

Q4 = ".window 30\nAnswer(x, y) :- [(a/b/c)+](x, y).\n"
#: persons p*, messages m*: a = likes (p -> m), b = hasCreator (m -> p), c = knows (p -> p)
EDGES = "src,trg,label,ts\n" + "".join(
    f"p{i % 3},m{i},a,{i}\nm{i},p{(i + 1) % 3},b,{i}\np{i % 3},p{(i + 2) % 3},c,{i}\n"
    for i in range(30)
)


def _files(tmp_path):
    program, edges = tmp_path / "q4.dl", tmp_path / "edges.csv"
    program.write_text(Q4)
    edges.write_text(EDGES)
    return program, edges


def test_stats_then_explain_optimize_lists_plans_with_costs(tmp_path, capsys):
    program, edges = _files(tmp_path)
    stats = tmp_path / "stats.json"
    assert sgq_main(["stats", edges, "-o", stats], capsys)[0] == 0
    assert json.loads(stats.read_text())["labels"]["a"]["count"] == 30
    code, out, _ = sgq_main(
        ["explain", program, "--optimize", "--stats", stats, "--plans", 2], capsys
    )
    assert code == 0
    assert "{cost " in out and out.count("-- plan ") == 2
    code, out, _ = sgq_main(
        ["explain", program, "--optimize", "-i", edges, "--format", "json"], capsys
    )
    data = json.loads(out)
    assert code == 0 and data["cost"] > 0 and "estimate" in data["operators"][0]


def test_run_optimize_gives_the_same_results(tmp_path, capsys):
    program, edges = _files(tmp_path)
    outputs = []
    for flags in ([], ["--optimize"], ["--optimize", "--sample", "10"], ["--no-optimize"]):
        out = tmp_path / f"out{len(outputs)}.csv"
        args = ["run", program, "-i", edges, "--no-progress", "-o", out, *flags]
        assert sgq_main(args, capsys)[0] == 0
        outputs.append(sorted(out.read_text().splitlines()))
    assert all(o == outputs[0] for o in outputs)


def test_optimize_errors_are_messages(tmp_path, capsys):
    program, edges = _files(tmp_path)
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    cases = [
        (["explain", program, "--optimize"], "--optimize needs statistics"),
        (["explain", program, "--optimize", "--stats", bad], "not a statistics file"),
        (["explain", program, "--optimize", "--stats", tmp_path / "no"], "cannot read"),
        (["run", program, "-i", edges, "--optimize", "--paths"], "does not go with --paths"),
        (["stats", edges, "--sample", "0"], "--sample"),
        (["explain", program, "--plans", "2"], "add --optimize"),
        (["explain", program, "--optimize", "-i", edges, "--format", "dot"], "text and json"),
    ]
    for args, message in cases:
        code, _, err = sgq_main(args, capsys)
        assert code == 2 and message in err and "Traceback" not in err, (args, err)
