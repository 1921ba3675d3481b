"""The per-slide recompute program measured in the suite's run (benchmarks/yardstick.py): its
plain stream, its command line, what a run reports, and the ratios and table the suite makes
of it. The program itself is kept outside the repository; here a small program with its
interface stands in for it."""

from __future__ import annotations

import gzip
import subprocess
import sys
import textwrap

import pytest
from sgq.base.errors import UserError
from sgq.benchmarks import report, workloads, yardstick
from sgq.benchmarks.suite import ratios

SNB_Q5 = next(w for w in workloads.shared() if w.name == "shared-snb-q5")
SYNTH = next(w for w in workloads.full() if not w.name.startswith(("shared-", "real-")))


def _stream(tmp_path):
    path = tmp_path / "snb-100k.csv.gz"
    with gzip.open(path, "wt", encoding="utf-8") as out:
        out.write("src,trg,label,ts\n")
        out.write("p1,m1,knows,86400\nm2,m1,hasCreator,86401\n")
    return path


def _program(tmp_path, body: str) -> str:
    path = tmp_path / "recompute.py"
    path.write_text(textwrap.dedent(body))
    return str(path)


ECHO = """
    import argparse, json
    ap = argparse.ArgumentParser()
    for flag in ("--input", "--query", "--labels", "--window", "--slide"):
        ap.add_argument(flag, required=True)
    a = ap.parse_args()
    rows = open(a.input).read().splitlines()
    blob = b"x" * (30 * 1024 * 1024)  # a peak the harness must see
    import time
    time.sleep(0.3)
    print("working")
    print(json.dumps({"edges": len(rows) - 1, "result": 3, "argv": vars(a)}))
"""


def test_a_gzipped_stream_is_written_out_once_and_a_plain_one_is_read_as_it_is(tmp_path):
    cache = tmp_path / "cache"
    plain = yardstick.plain_stream(_stream(tmp_path), cache)
    assert plain.name == "plain-snb-100k.csv"
    assert plain.read_text().splitlines()[1] == "p1,m1,knows,86400"
    stamp = plain.stat().st_mtime_ns
    assert yardstick.plain_stream(_stream(tmp_path), cache).stat().st_mtime_ns == stamp
    assert yardstick.plain_stream(plain, cache) == plain


def test_a_command_line_names_the_query_its_labels_window_and_slide(tmp_path):
    argv = yardstick.command(SNB_Q5, tmp_path / "s.csv", "/x/recompute.py")
    assert argv[1:] == [
        "/x/recompute.py",
        "--input",
        str(tmp_path / "s.csv"),
        "--query",
        "Q5",
        "--labels",
        "knows,hasCreator,replyOf",
        "--window",
        "864000s",
        "--slide",
        "86400s",
    ]


def test_the_yardstick_runs_the_queries_it_knows():
    assert yardstick.runs_on(SNB_Q5)
    assert not yardstick.runs_on(SYNTH)


def test_the_program_must_be_given_and_a_file(tmp_path):
    with pytest.raises(UserError, match="--yardstick-program"):
        yardstick.check_program(None)
    with pytest.raises(UserError, match="not a file"):
        yardstick.check_program(str(tmp_path / "missing.py"))


def test_a_run_reports_time_cpu_results_and_its_own_peak_memory(tmp_path):
    program = _program(tmp_path, ECHO)
    got = yardstick.run_yardstick(
        SNB_Q5, str(_stream(tmp_path)), program, str(tmp_path / "cache"), limit=60
    )
    assert got["edges"] == 2 and got["last_results"] == 3
    assert got["seconds"] > 0 and got["cpu_seconds"] > 0
    assert got["peak_rss_mb"] >= 30
    assert got["command"] == (
        "python YARDSTICK_PROGRAM --input plain-snb-100k.csv --query Q5 "
        "--labels knows,hasCreator,replyOf --window 864000s --slide 86400s"
    )


def test_a_failing_silent_or_slow_program_is_an_error(tmp_path):
    stream, cache = str(_stream(tmp_path)), str(tmp_path / "cache")
    failing = _program(tmp_path, "raise SystemExit('no such query')\n")
    got = yardstick.run_yardstick(SNB_Q5, stream, failing, cache, limit=60)
    assert got == {"error": "no such query"}
    silent = _program(tmp_path, "pass\n")
    got = yardstick.run_yardstick(SNB_Q5, stream, silent, cache, limit=60)
    assert got == {"error": "the yardstick printed no JSON line"}
    slow = _program(tmp_path, "import time\ntime.sleep(60)\n")
    got = yardstick.run_yardstick(SNB_Q5, stream, slow, cache, limit=0.5)
    assert got == {"error": "timeout after 0s", "timed_out": 0.5}


def test_ratios_and_the_table_set_every_program_beside_sgq():
    row = {
        "workload": {"name": "shared-snb-q5"},
        "engine": {"throughput": 1.0, "process_cpu_seconds": 2.0, "peak_rss_mb": 45.2},
        "reeval": {"process_cpu_seconds": 1.5},
        "recompute": {"cpu_seconds": 1.0, "peak_rss_mb": 30.0},
        "spath": {"cpu_seconds": 8.0, "peak_rss_mb": 11.0},
    }
    row["ratios"] = got = ratios(row)
    assert got["cpu_vs_recompute"] == 0.5 and got["cpu_vs_reeval"] == 0.75
    assert got["cpu_vs_best"] == 0.5  # the recompute program, faster than S-PATH here
    assert got["reeval_cpu_over_recompute"] == 1.5
    (cells,) = report.peer_rows({"rows": [row]})
    assert cells == [
        "shared-snb-q5",
        "2.00",
        "1.50",
        "1.00",
        "8.00",
        "–",
        "0.50x",
        "0.50x",
        "1.50x",
        "45",
        "30",
        "11",
        "–",
    ]


def test_bench_without_the_program_is_a_message_not_a_traceback():
    proc = subprocess.run(
        [sys.executable, "-m", "sgq", "bench", "--only", "shared-snb-q5", "--systems", "recompute"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2
    assert "--yardstick-program" in proc.stderr and "Traceback" not in proc.stderr
