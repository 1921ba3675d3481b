"""The benchmark suite's plumbing (benchmarks/): a tiny run end to end, and what a measurement
that hits its timeout leaves in the result and the report."""

from __future__ import annotations

import json
import subprocess

from sgq.benchmarks import report, suite
from sgq.benchmarks.workloads import DAY, Workload

TINY = Workload("rpq-q11-snb", "rpq/snb/q11.dl", "snb", 3_000, 10, 2 * DAY, DAY)


def test_a_tiny_suite_run_has_figures_ratios_and_a_report(tmp_path):
    result = suite.run_suite([TINY], ("engine", "ingest", "reeval"), 1, tmp_path / "cache",
                             log=lambda _line: None)
    (row,) = result["rows"]
    assert row["engine"]["edges"] == 3_000 and row["engine"]["throughput"] > 0
    assert row["ingest"]["throughput"] > 0 and row["reeval"]["slides"] >= 1
    assert 0 < row["ratios"]["throughput_vs_ingest"]
    assert "reeval_slide_latency_over_engine" in row["ratios"]
    out = tmp_path / "bench.md"
    report.write_report(result, out)
    text = out.read_text()
    assert "| rpq-q11-snb | 3,000 |" in text and "†" not in text


def test_a_timeout_keeps_the_last_partial_figures(monkeypatch, tmp_path):
    lines = [json.dumps({"edges": 10, "seconds": 1.0, "throughput": 10.0, "partial": True}),
             json.dumps({"edges": 50, "seconds": 2.0, "throughput": 25.0, "partial": True})]

    def fake_run(*_args, **kwargs):
        raise subprocess.TimeoutExpired("child", kwargs["timeout"],
                                        output=("\n".join(lines) + "\n").encode())

    monkeypatch.setattr(suite.subprocess, "run", fake_run)
    got = suite.run_child("engine", TINY, tmp_path / "s.csv", 7.0)
    assert got["throughput"] == 25.0 and got["timed_out"] == 7.0 and "error" not in got
    row = {"workload": {"name": "x", "edges": 100, "window": DAY, "days": 1, "slide": DAY},
           "engine": got, "spark": {"error": "timeout after 7s", "timed_out": 7.0}}
    cells = report.table_rows({"rows": [row]})[0]
    assert cells[4] == "25†" and cells[-1] == "> 7,000"


def test_a_timeout_without_output_is_an_error(monkeypatch, tmp_path):
    def fake_run(*_args, **kwargs):
        raise subprocess.TimeoutExpired("child", kwargs["timeout"], output=b"")

    monkeypatch.setattr(suite.subprocess, "run", fake_run)
    got = suite.run_child("spark", TINY, tmp_path / "s.csv", 3.0)
    assert got == {"error": "timeout after 3s", "timed_out": 3.0}
