"""The benchmark suite's plumbing (benchmarks/): a tiny run end to end, and what a measurement
that hits its timeout leaves in the result and the report."""

from __future__ import annotations

import json
import subprocess
import time

import attrs
from sgq.benchmarks import measure, report, suite
from sgq.benchmarks.workloads import DAY, Workload, specs_dir

from sgq import PlanOptions

TINY = Workload("rpq-q11-snb", "rpq/snb/q11.dl", "snb", 3_000, 10, 2 * DAY, DAY)


def test_a_tiny_suite_run_has_figures_ratios_and_a_report(tmp_path):
    result = suite.run_suite(
        [TINY], ("engine", "ingest", "reeval"), 1, tmp_path / "cache", log=lambda _line: None
    )
    (row,) = result["rows"]
    assert row["engine"]["edges"] == 3_000 and row["engine"]["throughput"] > 0
    assert row["ingest"]["throughput"] > 0 and row["reeval"]["slides"] >= 1
    assert 0 < row["ratios"]["throughput_vs_ingest"]
    assert "reeval_slide_latency_over_engine" in row["ratios"]
    out = tmp_path / "bench.md"
    report.write_report(result, out)
    text = out.read_text()
    assert "| rpq-q11-snb | 3,000 |" in text and "†" not in text


def test_plan_options_reach_the_engine_and_give_the_same_results(monkeypatch, tmp_path):
    stream = suite.stream_file(TINY, tmp_path / "cache")
    options = PlanOptions(path_operator="spath", skip_rewrites={"shared_chains"})
    calls = []

    def fake_child(system, w, path, timeout, **kw):
        calls.append((system, kw))
        return measure.SYSTEMS[system](w, str(path), str(specs_dir() / w.query), **kw)

    monkeypatch.setattr(suite, "run_child", fake_child)
    result = suite.run_suite(
        [TINY], ("engine", "ingest"), 1, tmp_path / "cache", log=lambda _line: None, options=options
    )
    assert calls == [
        (
            "engine",
            {
                "options": {
                    "path_operator": "spath",
                    "skip_rewrites": ["shared_chains"],
                    "optimize": True,
                }
            },
        ),
        ("ingest", {}),
    ]
    default = measure.run_engine(TINY, str(stream), str(specs_dir() / TINY.query))
    assert result["rows"][0]["engine"]["results"] == default["results"] > 0


def test_a_timeout_keeps_the_last_partial_figures(monkeypatch, tmp_path):
    lines = [
        json.dumps({"edges": 10, "seconds": 1.0, "throughput": 10.0, "partial": True}),
        json.dumps({"edges": 50, "seconds": 2.0, "throughput": 25.0, "partial": True}),
    ]

    def fake_run(*_args, **kwargs):
        raise subprocess.TimeoutExpired(
            "child", kwargs["timeout"], output=("\n".join(lines) + "\n").encode()
        )

    monkeypatch.setattr(suite.subprocess, "run", fake_run)
    got = suite.run_child("engine", TINY, tmp_path / "s.csv", 7.0)
    assert got["throughput"] == 25.0 and got["timed_out"] == 7.0 and "error" not in got
    row = {
        "workload": {"name": "x", "edges": 100, "window": DAY, "days": 1, "slide": DAY},
        "engine": got,
        "spark": {"error": "timeout after 7s", "timed_out": 7.0},
    }
    cells = report.table_rows({"rows": [row]})[0]
    assert cells[4] == "25†" and cells[-1] == "> 7,000"


def test_a_timeout_without_output_is_an_error(monkeypatch, tmp_path):
    def fake_run(*_args, **kwargs):
        raise subprocess.TimeoutExpired("child", kwargs["timeout"], output=b"")

    monkeypatch.setattr(suite.subprocess, "run", fake_run)
    got = suite.run_child("spark", TINY, tmp_path / "s.csv", 3.0)
    assert got == {"error": "timeout after 3s", "timed_out": 3.0}


def test_from_merges_recorded_runs_into_one_report(tmp_path, capsys):
    from sgq.cli import main

    def record(name, started):
        row = {
            "workload": {"name": name, "edges": 100, "window": DAY, "days": 1, "slide": DAY},
            "engine": {"throughput": 50.0},
            "ingest": {"throughput": 100.0},
            "ratios": {"throughput_vs_ingest": 0.5},
        }
        path = tmp_path / f"{name}.json"
        path.write_text(
            json.dumps(
                {
                    "started": started,
                    "seconds": 1.0,
                    "repeat": 1,
                    "command": f"sgq bench --only={name}",
                    "machine": {"python": "3.11", "platform": "test", "commit": "abc123"},
                    "rows": [row],
                }
            )
        )
        return str(path)

    out = tmp_path / "b.md"
    assert main(["bench", "--from", record("one", 0), record("two", 60), "--report", str(out)]) == 0
    text = out.read_text()
    assert "## Run 1" in text and "## Run 2" in text
    assert "`sgq bench --only=one`" in text and "`sgq bench --only=two`" in text
    assert "commit abc123" in text and "| one | 100 |" in text and "| two | 100 |" in text
    assert "one" in capsys.readouterr().out


def test_from_a_file_that_is_not_a_record_is_a_message(tmp_path, capsys):
    from sgq.cli import main

    bad = tmp_path / "x.json"
    bad.write_text("[1, 2]")
    assert main(["bench", "--from", str(bad)]) == 2
    assert "not a JSON result of sgq bench --output" in capsys.readouterr().err


def test_the_result_is_saved_after_each_workload(tmp_path):
    import attrs

    saved = []
    two = [TINY, attrs.evolve(TINY, name="rpq-q11-snb-again")]
    suite.run_suite(
        two, ("ingest",), 1, tmp_path / "cache", log=lambda _line: None, save=saved.append
    )
    assert [len(s["rows"]) for s in saved] == [1, 2]
    assert [s["complete"] for s in saved] == [False, True]


def test_no_table_sets_a_figure_recorded_elsewhere_beside_a_ratio():
    """The peers' figures quoted in peers.py were recorded on another machine and day: no
    table, target or ratio of a run shows them; the peers measured in the run stand there."""
    from sgq.benchmarks import peers

    name = "shared-snb-q1"
    row = {
        "workload": {"name": name, "edges": 100_000, "window": 10 * DAY, "days": 100, "slide": DAY},
        "engine": {"throughput": 5.0, "process_throughput": 4.0, "process_cpu_seconds": 2.0},
        "reeval": {"throughput": 3.0, "process_throughput": 2.0},
    }
    row["ratios"] = suite.ratios(row)
    result = {"rows": [row]}
    text = "\n".join(
        [report.format_shared(result), report.format_peers(result), report.format_targets(result)]
    )
    for figure in peers.RECORDED[name]:
        assert f"{figure:,.0f}" not in text
    assert row["ratios"] == {"throughput_vs_reeval": 2.0}
    assert " 2x " in report.format_shared(result)
    # the peers of the same run: a ratio of whole-process CPU seconds
    row["spath"] = {"cpu_seconds": 3.0, "peak_rss_mb": 9.0}
    row["ratios"] = suite.ratios(row)
    assert row["ratios"]["cpu_vs_spath"] == 1.5 and "1.50x" in report.format_peers(result)


def test_shared_workloads_name_their_recorded_streams_and_queries():
    from sgq.benchmarks import peers, workloads

    shared = workloads.shared()
    assert len(shared) == 12 and all(w.name.startswith("shared-") for w in shared)
    for w in shared:
        assert suite.stream_file(w, workloads.STREAMS).is_file()
        assert (workloads.specs_dir() / w.query).is_file()
    assert set(peers.RECORDED) <= {w.name for w in shared}
    assert {w.name for w in shared} <= {w.name for w in workloads.full()}


def test_a_shared_workload_writes_its_deltas_and_races_whole_reevaluation(tmp_path):
    """On a prefix of a shared stream: the engine's figures count the delta rows it wrote
    (the same as the delta view of its results), and re-evaluation is a process of its own
    over every slide, timed from its start to its exit; the ratio is of the two whole
    processes."""
    import gzip

    from sgq.benchmarks import measure, workloads
    from sgq.incremental.deltas import delta_rows

    from sgq.api import compile as compile_query
    from sgq.stream_io import read_edges

    w = next(w for w in workloads.shared() if w.name == "shared-snb-q2")
    prefix = tmp_path / "snb-3k.csv"
    with gzip.open(workloads.STREAMS / w.stream, "rt", encoding="utf-8") as src:
        prefix.write_text("".join(next(src) for _ in range(3_001)))
    query = str(workloads.specs_dir() / w.query)
    got = measure.run_engine(w, str(prefix), query)
    engine = compile_query(open(query).read(), filename=query).engine(history=False)
    engine.push_batch([e[:4] for e in read_edges(str(prefix))])
    engine.close()
    assert got["edges"] == 3_000 and got["deltas"] == len(delta_rows(engine.drain())) > 0
    again = suite.run_child("reeval", w, prefix, 120.0, whole=True)
    assert again["edges"] == 3_000 and again["throughput"] > 0, again
    assert again["slides"] >= 3 and again["last_snapshot_results"] > 0
    assert again["slide_deltas"] > 0 and again["process_throughput"] > 0
    row = {"workload": attrs.asdict(w), "engine": got, "reeval": again}
    row["ratios"] = suite.ratios(row)
    (cells,) = report.shared_rows({"rows": [row]})
    assert cells[0] == "shared-snb-q2" and cells[3] == f"{again['process_throughput']:,.0f}"
    # no ratio without sgq's whole process
    assert cells[2] == cells[4] == "–"
    # (a child's figures: 3,000 edges in 0.1 s from its start to its exit)
    row["engine"] = suite._with_process_figures(dict(got), 0.1)
    row["ratios"] = suite.ratios(row)
    (cells,) = report.shared_rows({"rows": [row]})
    assert cells[2] == "30,000" and cells[4].endswith("x")
    assert row["ratios"]["throughput_vs_reeval"] == 30_000 / again["process_throughput"]
    assert cells[1] == f"{got['throughput']:,.0f}"  # the loop's own figure beside it


def test_a_finished_child_gives_its_whole_process_figures(monkeypatch, tmp_path):
    """The parent times the child from its start to its exit: `process_seconds` and, where
    the child counted edges, `process_throughput` over that time (the peers' measure)."""

    def fake_run(*_args, **_kwargs):
        time.sleep(0.05)
        out = json.dumps({"edges": 100, "seconds": 0.01, "throughput": 10_000.0}) + "\n"
        return subprocess.CompletedProcess("child", 0, stdout=out, stderr="")

    monkeypatch.setattr(suite.subprocess, "run", fake_run)
    got = suite.run_child("engine", TINY, tmp_path / "s.csv", 7.0)
    assert got["throughput"] == 10_000.0 and got["process_seconds"] >= 0.05
    assert got["process_throughput"] == 100 / got["process_seconds"] <= 2_000
    # a peer's child only waits for the peer's program, whose figures are its whole process
    got = suite.run_child("spath", TINY, tmp_path / "s.csv", 7.0)
    assert got == {"edges": 100, "seconds": 0.01, "throughput": 10_000.0}


def test_repeats_go_round_the_systems_and_a_timed_out_run_is_not_repeated(monkeypatch, tmp_path):
    """engine, reeval, engine, reeval, ...: a machine whose speed drifts shifts both systems
    of a ratio alike. A run that timed out (or took longer than SLOW_RUN) is its system's last;
    the medians are of each system's own runs."""
    calls = []

    def fake_child(system, w, path, timeout, **kw):
        calls.append(system)
        n = calls.count(system)
        if system == "reeval" and n == 2:
            return {"throughput": 1.0, "timed_out": timeout}
        return {"throughput": float(n if system == "engine" else 10 * n)}

    monkeypatch.setattr(suite, "run_child", fake_child)
    result = suite.run_suite(
        [TINY], ("engine", "reeval"), 4, tmp_path / "cache", log=lambda _line: None
    )
    assert calls == ["engine", "reeval", "engine", "reeval", "engine", "engine"]
    row = result["rows"][0]
    assert row["engine"]["throughput"] == 2.5  # the median of 1, 2, 3, 4
    assert row["reeval"]["throughput"] == 5.5  # of 10 and the timed-out run's 1


def test_the_engine_system_groups_edges_as_sgq_run_does(tmp_path):
    """A shared workload's engine gets what `sgq run` hands over: only the edges of the
    labels the program reads (the others counted), in groups that keep to one slide."""
    path = tmp_path / "s.csv"
    rows = [(f"v{i}", f"v{i + 1}", "a" if i % 3 else "b", 10 * i) for i in range(12)]
    path.write_text(
        "src,trg,label,ts\n" + "".join(f"{s},{t},{lab},{ts}\n" for s, t, lab, ts in rows)
    )
    left_out = [0]
    groups = list(measure._groups(str(path), False, {"a"}, 40, left_out))
    assert [[e[3] for e in batch] for _t, batch in groups] == [
        [10, 20],
        [40, 50, 70],
        [80, 100, 110],
    ]
    assert all(t == batch[0][3] for t, batch in groups)
    assert left_out == [4]
