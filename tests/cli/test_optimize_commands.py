"""`sgq stats`, and `--optimize` on `sgq explain` and `sgq run` (sga/optimize/): the chosen
plan with its estimated costs, `--plans N` (text, json, dot), results equal to today's plan,
statistics from a prepared directory, today's plan with a note where no statistics can be had
(sgq/sampling.py), and user errors as messages."""

from __future__ import annotations

import io
import json
import sys

from cli_support import prepared_dir, read_edges_csv, sgq_main
from sgq.base.options import PlanOptions

import sgq
from sgq.sampling import sample_input

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
        (["explain", program, "--optimize", "--stats", bad], "not a statistics file"),
        (["explain", program, "--optimize", "--stats", tmp_path / "no"], "cannot read"),
        (["run", program, "-i", edges, "--optimize", "--paths"], "does not go with --paths"),
        (["stats", edges, "--sample", "0"], "--sample"),
        (["explain", program, "--no-optimize", "--plans", "2"], "add --optimize"),
        (["explain", program, "--optimize", "--plans", "2"], "--plans needs statistics"),
        (["explain", program, "--optimize", "--plans", "-1"], "--plans must be"),
        (["run", program, "-i", edges, "--optimize", "--sample", "0"], "--sample"),
    ]
    for args, message in cases:
        code, _, err = sgq_main(args, capsys)
        assert code == 2 and message in err and "Traceback" not in err, (args, err)


def test_explain_plans_as_one_dot_graph(tmp_path, capsys):
    program, edges = _files(tmp_path)
    args = ["explain", program, "--optimize", "-i", edges, "--format", "dot", "--plans", 2]
    code, out, _ = sgq_main(args, capsys)
    assert code == 0 and out.startswith("digraph sga {") and out.rstrip().endswith("}")
    assert out.count("subgraph cluster_") in (3, 4)  # chosen, (today's,) plan 1, plan 2
    assert "cluster_chosen" in out and "cluster_plan2" in out and "{cost " in out
    assert out.count("{") == out.count("}")


def test_without_statistics_today_s_plan_runs_and_the_log_says_why(tmp_path, capsys, monkeypatch):
    program, edges = _files(tmp_path)
    code, today, _ = sgq_main(["explain", program, "--no-optimize"], capsys)
    assert code == 0
    code, out, err = sgq_main(["explain", program, "--optimize"], capsys)
    assert (code, out) == (0, today) and "no input to sample" in err
    empty = tmp_path / "empty.csv"
    empty.write_text("src,trg,label,ts\n")
    code, out, err = sgq_main(["explain", program, "--optimize", "-i", empty], capsys)
    assert (code, out) == (0, today) and "hold no insertion" in err

    results = []
    for source in (edges, "-"):
        out = tmp_path / f"out{len(results)}.csv"
        stdin = io.TextIOWrapper(io.BytesIO(EDGES.encode()), encoding="utf-8")
        monkeypatch.setattr(sys, "stdin", stdin)
        args = ["run", program, "-i", source, "--optimize", "--no-progress", "-o", out]
        code, _, err = sgq_main(args, capsys)
        assert code == 0
        results.append(sorted(out.read_text().splitlines()))
    assert "stdin cannot be read ahead" in err and "today's plan runs" in err
    assert results[0] == results[1]


def test_statistics_of_a_prepared_directory_are_those_of_its_edges(tmp_path):
    _, edges = _files(tmp_path)
    rows = read_edges_csv(edges)
    folder = prepared_dir(tmp_path / "prepared", rows)
    from_dir = sample_input(str(folder), sample=50)
    assert from_dir.statistics == sample_input(str(edges), sample=50).statistics
    assert from_dir.statistics.edges == 50
    followed = sample_input(str(edges), follow=True)
    assert followed.statistics is None and "still being written" in followed.note


def test_the_api_without_statistics_plans_today_s_plan():
    query = sgq.compile(text=Q4, options=PlanOptions(optimize=True))
    assert query.optimized is None
    assert query.plan == sgq.compile(text=Q4, options=PlanOptions(optimize=False)).plan
