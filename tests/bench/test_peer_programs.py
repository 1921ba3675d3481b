"""The C++ peers measured in the suite's run (benchmarks/peer_programs.py): the stream in their
integer form, their command lines, and what a run reports. The peers themselves are built
outside the repository; here a small program with their interface stands in for them, so the
harness's timing, checks and time limit are what is tested."""

from __future__ import annotations

import gzip
import subprocess
import sys
import textwrap

import pytest
from sgq.base.errors import UserError
from sgq.benchmarks import peer_programs, workloads
from sgq.benchmarks.suite import ratios

SNB_Q2 = next(w for w in workloads.shared() if w.name == "shared-snb-q2")
SNB_Q5 = next(w for w in workloads.shared() if w.name == "shared-snb-q5")


def _stream(tmp_path):
    path = tmp_path / "snb-100k.csv.gz"
    with gzip.open(path, "wt", encoding="utf-8") as out:
        out.write("src,trg,label,ts\n")
        out.write("p1,m1,likes,86400\nm2,m1,replyOf,86401\nm1,m3,replyOf,86402\n")
        out.write("p1,m2,likes,172800\n")
    return path


def test_the_stream_is_numbered_in_order_of_first_appearance_and_written_once(tmp_path):
    cache = tmp_path / "cache"
    data, codes = peer_programs.integer_stream(_stream(tmp_path), cache)
    assert codes == {"likes": 0, "replyOf": 1}
    assert data.read_text().splitlines() == [
        "0 1 0 86400",
        "2 1 1 86401",
        "1 3 1 86402",
        "0 2 0 172800",
    ]
    stamp = data.stat().st_mtime_ns
    assert peer_programs.integer_stream(_stream(tmp_path), cache) == (data, codes)
    assert data.stat().st_mtime_ns == stamp


def test_a_command_line_names_the_query_and_its_label_codes(tmp_path):
    data, codes = peer_programs.integer_stream(_stream(tmp_path), tmp_path / "cache")
    argv = peer_programs.command("lmsrpq", SNB_Q2, data, codes, "/bin/peer")
    # algorithm 2 (LM-SRPQ), 10-day window, 24-hour slide, query 3 (a/b*): likes, replyOf
    assert argv == ["/bin/peer", "2", str(data), "10", "24", "3", "0", "1"]


def test_a_label_missing_from_the_stream_is_a_message(tmp_path):
    data, _codes = peer_programs.integer_stream(_stream(tmp_path), tmp_path / "cache")
    with pytest.raises(UserError, match="replyOf"):
        peer_programs.command("spath", SNB_Q2, data, {"likes": 0}, "/bin/peer")


def test_peers_run_only_the_shared_path_queries():
    assert peer_programs.runs_on("spath", SNB_Q2)
    assert not peer_programs.runs_on("lmsrpq", SNB_Q5)
    assert peer_programs.runs_on("engine", SNB_Q5)


def test_the_program_must_be_given_and_executable(tmp_path):
    with pytest.raises(UserError, match="--peer-program"):
        peer_programs.check_program(None)
    plain = tmp_path / "demo"
    plain.write_text("not a program")
    with pytest.raises(UserError, match="not an executable"):
        peer_programs.check_program(str(plain))


def test_bench_without_the_program_is_a_message_not_a_traceback():
    proc = subprocess.run(
        [sys.executable, "-m", "sgq", "bench", "--only", "shared-snb-q2", "--systems", "spath"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2
    assert "--peer-program" in proc.stderr and "Traceback" not in proc.stderr


def _program(tmp_path, body: str):
    """An executable with the peers' interface (argv: algorithm, data, days, hours, query,
    labels), standing in for the C++ program."""
    path = tmp_path / "peer"
    path.write_text(f"#!{sys.executable}\n" + textwrap.dedent(body))
    path.chmod(0o755)
    return str(path)


SLIDING = """
    import sys
    lines = open(sys.argv[2]).read().split("\\n")
    assert sys.argv[1] in ("1", "2") and sys.argv[3:] == ["10", "24", "3", "0", "1"]
    print("1 slices have been inserted")
    print("result pair size: 7, memory: 0.1")
    print("2 slices have been inserted")
    import time
    blob = b"x" * (40 * 1024 * 1024)  # a peak the harness must see (its pages written)
    time.sleep(0.3)  # held for longer than the harness's reading interval
    print("result pair size: 9, memory: 0.2")
"""


def test_a_run_reports_time_cpu_slides_results_and_its_own_peak_memory(tmp_path):
    program = _program(tmp_path, SLIDING)
    got = peer_programs.run_peer(
        "spath", SNB_Q2, str(_stream(tmp_path)), program, str(tmp_path / "cache"), limit=60
    )
    assert got["edges"] == 4 and got["slides"] == 2 and got["last_checkpoint_results"] == 9
    assert got["seconds"] > 0 and got["cpu_seconds"] > 0
    assert got["peak_rss_mb"] >= 40
    assert got["command"] == "PEER_PROGRAM 1 peer-snb-100k.txt 10 24 3 0 1"


def test_a_program_that_slides_nothing_or_fails_is_an_error(tmp_path):
    stream, cache = str(_stream(tmp_path)), str(tmp_path / "cache")
    silent = _program(tmp_path, "pass\n")
    got = peer_programs.run_peer("spath", SNB_Q2, stream, silent, cache, limit=60)
    assert "slid no window" in got["error"] and "commit bc3b807" in got["error"]
    failing = _program(tmp_path, "raise SystemExit(3)\n")
    got = peer_programs.run_peer("spath", SNB_Q2, stream, failing, cache, limit=60)
    assert got["error"] == "peer exited with 3"


def test_a_program_past_its_limit_is_stopped(tmp_path):
    program = _program(tmp_path, "import time\ntime.sleep(60)\n")
    got = peer_programs.run_peer(
        "lmsrpq", SNB_Q2, str(_stream(tmp_path)), program, str(tmp_path / "cache"), limit=0.5
    )
    assert got == {"error": "timeout after 0s", "timed_out": 0.5}


def test_ratios_set_the_peers_whole_process_cpu_beside_sgqs():
    row = {
        "engine": {"throughput": 1.0, "process_cpu_seconds": 2.0},
        "spath": {"cpu_seconds": 1.0},
        "lmsrpq": {"error": "timeout after 295s", "timed_out": 295.0},
    }
    got = ratios(row)
    assert got["cpu_vs_spath"] == 0.5
    assert got["cpu_vs_lmsrpq"] == 147.5 and got["cpu_vs_lmsrpq_at_least"]
    assert "cpu_vs_spath_at_least" not in got


def test_the_report_sets_the_measured_peers_beside_sgq():
    from sgq.benchmarks import report

    row = {
        "workload": {"name": "shared-snb-q2"},
        "engine": {"throughput": 1.0, "process_cpu_seconds": 2.0, "peak_rss_mb": 45.2},
        "spath": {"cpu_seconds": 1.0, "peak_rss_mb": 11.0},
        "lmsrpq": {"error": "timeout after 295s", "timed_out": 295.0},
    }
    row["ratios"] = ratios(row)
    (cells,) = report.peer_rows({"rows": [row]})
    assert cells == [
        "shared-snb-q2",
        "2.00",
        "–",
        "–",
        "1.00",
        "> 295",
        "–",
        "0.50x",
        "–",
        "45",
        "–",
        "11",
        "–",
    ]


def test_peers_without_a_shared_path_query_to_run_is_a_message(tmp_path):
    program = _program(tmp_path, SLIDING)
    proc = subprocess.run(
        [sys.executable, "-m", "sgq", "bench", "--only", "shared-snb-q5", "--systems", "spath"]
        + ["--peer-program", program],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2
    assert (
        "only the path queries of the shared and real streams" in proc.stderr
        and "Traceback" not in proc.stderr
    )


def test_property_columns_are_left_out_of_the_integer_stream(tmp_path):
    # a real dataset's stream carries its edges' properties after src,trg,label,ts
    path = tmp_path / "real-hospital.csv"
    path.write_text(
        'src,trg,label,ts,src_group,trg_group\np1,n1,pat,60,PAT,"N,1"\nn1,p1,nur,120,,\n'
    )
    data, codes = peer_programs.integer_stream(path, tmp_path / "cache")
    assert codes == {"pat": 0, "nur": 1}
    assert data.read_text().splitlines() == ["0 1 0 60", "1 0 1 120"]
