"""The cost-model validation's tools: correlations over the timed rows, the calibration
factors (benchmarks/calibrate_costs.py), and the plot written from recorded rows
(benchmarks/optimizer_scatter.py)."""

from __future__ import annotations

import json

import pytest
from sgq.benchmarks.calibrate_costs import factors, kind
from sgq.benchmarks.optimizer_operators import correlations, timed
from sgq.benchmarks.optimizer_scatter import main

ROWS = [
    {
        "program": "q.dl",
        "operator": "WSCAN[a](ω=10, β=1)",
        "estimate": 10.0,
        "formula": 10.0,
        "cpu": 0.01,
    },
    {
        "program": "q.dl",
        "operator": "PATTERN[src1, trg2 -> D](trg1 = src2)",
        "estimate": 1e3,
        "formula": 1e5,
        "cpu": 0.2,
    },
    {"program": "q.dl", "operator": "PATH[D+]", "estimate": 1e5, "formula": 1e9, "cpu": 0.1},
    {
        "program": "q.dl",
        "operator": "RENAME[src, trg -> Answer]",
        "estimate": 50.0,
        "formula": 5e5,
        "cpu": 0.0,
    },
]


def test_correlations_skip_untimed_rows_and_rank_the_rest():
    assert [r["operator"][:4] for r in timed(ROWS)] == ["WSCA", "PATT", "PATH"]
    assert correlations(ROWS).startswith("3 operators: Spearman 0.50, ")


def test_kind_is_the_operator_name():
    assert [kind(r["operator"]) for r in ROWS] == ["WSCAN", "PATTERN", "PATH", "RENAME"]


def test_calibration_factors_are_median_cpu_per_formula_unit_relative_to_wscan():
    rows = ROWS[:3] + [dict(ROWS[0], cpu=0.03)]  # WSCAN: 1e-3 and 3e-3 per unit, median 2e-3
    got = factors(rows)
    assert got["WSCAN"] == 1.0
    assert got["PATTERN"] == pytest.approx(2e-6 / 2e-3)
    assert got["PATH"] == pytest.approx(1e-10 / 2e-3)


def test_the_plot_is_written_from_recorded_rows(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    rows = tmp_path / "rows.json"
    rows.write_text(json.dumps({"argv": "", "rows": ROWS}), encoding="utf-8")
    png = tmp_path / "plot.png"
    assert main([str(rows), str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "3 operators" in capsys.readouterr().out
