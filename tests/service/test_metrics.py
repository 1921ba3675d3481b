"""`--metrics-port` and `--metrics-file`: scraped over loopback during a followed run, the
counters agree with the run's own summary line; the JSON lines carry the same names; the
names are those docs/metrics.md lists (sgq/metrics.py)."""

from __future__ import annotations

import json
import re
import signal
import urllib.request

import pytest
from cli_support import NOTIFICATION, REPO, sgq_proc, social_edges, stats_of
from prometheus_client.parser import text_string_to_metric_families
from service_support import Background, text_of, wait_for

from sgq import metrics


def _scrape(url: str) -> dict:
    """{metric family name: {label tuple: value}} of one scrape."""
    with urllib.request.urlopen(url, timeout=5) as response:
        text = response.read().decode("utf-8")
    out: dict = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            out.setdefault(sample.name, {})[tuple(sorted(sample.labels.items()))] = sample.value
    return out


def _one(scrape: dict, name: str) -> float:
    return scrape[name][()]


def test_scraped_counters_agree_with_the_summary_line(tmp_path):
    edges = social_edges(seed=12, n=500, deletions=0.05)
    lines = ["src,trg,label,ts,op"] + [f"{s},{t},{l},{ts},{op}" for s, t, l, ts, op in edges]
    lines.insert(40, "u1,u2,follows,not-a-time,+")  # a bad line: skipped
    lines.insert(300, f"u1,u2,follows,{edges[100][3]},+")  # far too late: dropped
    live = tmp_path / "live.csv"
    live.write_text("\n".join(lines) + "\n")
    out, mfile = tmp_path / "out.csv", tmp_path / "metrics.jsonl"
    run = Background(
        [
            "run", NOTIFICATION, "-i", live, "-o", out, "--follow", "--idle-flush", "100ms",
            "--on-error", "skip", "--max-lateness", "5000", "--checkpoint", tmp_path / "ckpt",
            "--metrics-port", "127.0.0.1:0", "--metrics-file", mfile, "--metrics-interval", "0.1",
        ],
        tmp_path,
    )  # fmt: skip
    try:
        port = wait_for(
            lambda: re.search(r"metrics on http://127\.0\.0\.1:(\d+)/metrics", run.stderr),
            "the metrics address",
            run,
        )[1]
        url = f"http://127.0.0.1:{port}/metrics"

        def settled():
            s = _scrape(url)
            seen = sum(_one(s, f"sgq_edges_{k}_total") for k in ("in", "rejected", "late"))
            return s if seen == len(lines) - 1 and _one(s, "sgq_results_out_total") else None

        scrape = wait_for(settled, "every line counted", run)
    finally:
        code = run.stop(signal.SIGTERM)
    assert code == 0, run.stderr
    stats = stats_of(run.stderr)
    assert _one(scrape, "sgq_edges_in_total") == stats["edges"]
    assert _one(scrape, "sgq_results_out_total") == stats["rows"]
    assert _one(scrape, "sgq_edges_rejected_total") == stats["skipped"] == 1
    assert _one(scrape, "sgq_edges_late_total") == stats["dropped"] == 1
    # per-operator state, the batch histogram, the run's info
    operators = scrape["sgq_operator_state_entries"]
    assert len(operators) >= 3 and all(dict(k)["operator"] for k in operators)
    assert sum(operators.values()) == _one(scrape, "sgq_state_entries")
    assert _one(scrape, "sgq_batch_seconds_count") >= 1
    assert scrape["sgq_batch_seconds_bucket"][(("le", "+Inf"),)] == _one(
        scrape, "sgq_batch_seconds_count"
    )
    assert _one(scrape, "sgq_event_time") == edges[-1][3] + 1  # idle-flushed past it
    assert scrape["sgq_run_info"]  # labels program, emit
    # the JSON lines: same names; the last line (written at the end) the final counters
    records = [json.loads(line) for line in text_of(mfile).splitlines()]
    assert len(records) >= 2
    final = records[-1]
    assert final["sgq_edges_in_total"] == stats["edges"]
    assert final["sgq_results_out_total"] == stats["rows"]
    assert final["sgq_checkpoints_total"] >= 1 and final["sgq_checkpoint_age_seconds"] >= 0
    assert set(final["sgq_operator_state_entries"]) == {dict(k)["operator"] for k in operators}


def test_a_finished_run_writes_its_metrics_file(tmp_path):
    edges = social_edges(seed=2, n=200)
    path = tmp_path / "e.csv"
    path.write_text(
        "src,trg,label,ts,op\n" + "".join(f"{s},{t},{l},{ts},{op}\n" for s, t, l, ts, op in edges)
    )
    mfile = tmp_path / "m.jsonl"
    proc = sgq_proc(
        ["run", NOTIFICATION, "-i", path, "-o", tmp_path / "o.csv", "--metrics-file", mfile]
    )
    assert proc.returncode == 0, proc.stderr
    final = json.loads(mfile.read_text().splitlines()[-1])
    stats = stats_of(proc.stderr)
    assert final["sgq_edges_in_total"] == stats["edges"] == len(edges)
    assert final["sgq_results_out_total"] == stats["rows"]
    assert final["sgq_event_time"] is None  # closed: time ran on


def test_docs_list_every_metric():
    text = (REPO / "docs" / "metrics.md").read_text()
    names = [n for n, _ in metrics.COUNTERS + metrics.GAUGES]
    names += [metrics.OPERATOR_GAUGE[0], metrics.HISTOGRAM[0], metrics.INFO[0]]
    for name in names:
        assert f"`{name}" in text, name


@pytest.mark.parametrize("spec", ["x", "1:99999", "host:"])
def test_a_bad_metrics_port_is_a_one_line_error(tmp_path, spec):
    proc = sgq_proc(
        ["run", NOTIFICATION, "-i", REPO / "specs/streams/notification.csv", "--metrics-port", spec]
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and "--metrics-port" in proc.stderr


def test_histogram_buckets_are_cumulative():
    h = metrics.Histogram((0.1, 1.0))
    for s in (0.05, 0.5, 0.5, 3.0):
        h.observe(s)
    snap = h.snapshot()
    assert snap["buckets"] == {"0.1": 1, "1.0": 3, "+Inf": 4} and snap["count"] == 4
    assert snap["sum"] == pytest.approx(4.05)


def test_parse_port():
    assert metrics.parse_port("9100") == ("0.0.0.0", 9100)
    assert metrics.parse_port("127.0.0.1:0") == ("127.0.0.1", 0)
    assert metrics.parse_port("[::1]:80") == ("::1", 80)
