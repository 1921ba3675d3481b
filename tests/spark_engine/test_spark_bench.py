"""`sgq bench --engine spark` (benchmarks/spark_batches.py) on a small stream: every batch
reports its seconds, Spark jobs, closure rounds, shuffle bytes and rows (Spark's status
store, benchmarks/spark_jobs.py), state rows and their largest share per partition, and the
single-process engine's seconds on the same batch; the table prints them."""

from __future__ import annotations

import json

import pytest

from sgq.cli import main

pytestmark = pytest.mark.spark


@pytest.mark.slow  # six batches of Q7: ~1 minute of Spark jobs on a loaded local[2]
def test_bench_reports_every_batch_beside_the_single_process_engine(spark, tmp_path, capsys):
    out = tmp_path / "bench.json"
    argv = ["bench", "--engine", "spark", "--only", "sga-q7", "--partitions", "2"]
    assert main([*argv, "--edges", "200", "--profile", "-o", str(out)]) == 0
    (result,) = json.loads(out.read_text())["spark"]
    assert (result["workload"], result["partitions"]) == ("sga-q7-snb", 2)
    batches = result["batches"]
    assert [b["batch"] for b in batches] == sorted(b["batch"] for b in batches)
    assert len(batches) >= 5 and sum(b["edges"] for b in batches) == 200
    for b in batches:
        assert b["seconds"] > 0 and b["single_seconds"] > 0
        assert b["jobs"] >= 1 and 0 < b["job_seconds"]
        assert b["rounds"] >= 0 and b["rows"] >= 0
        assert b["shuffle_read"] >= 0 and b["shuffle_write"] >= 0 and b["shuffle_records"] >= 0
        assert b["state"] / 2 <= b["state_per_partition"] <= b["state"]
    assert any(b["rounds"] > 0 and b["shuffle_records"] > 0 for b in batches)
    assert set(result["median"]) >= {"seconds", "jobs", "rounds", "shuffle_read", "state"}
    captured = capsys.readouterr()
    (line,) = [x for x in captured.out.splitlines() if x.startswith("sga-q7-snb")]
    assert line.split()[1] == "2" and line.endswith("x")
    assert "    stage " in captured.err  # --profile: the batches' stages
