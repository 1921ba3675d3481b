"""Every script of examples/real_data/ runs to its end on a small stream in its dataset's
converted format (`--stream`), so the examples need neither the extra nor the npm tarball here;
with matplotlib missing they say so instead of drawing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "real_data"

HOSPITAL = "".join(
    f"{a},{b},{role},{t}\n"
    for a, b, role, t in [
        ("1", "2", "pat", 3600),
        ("2", "1", "nur", 3600),
        ("2", "3", "nur", 3620),
        ("3", "2", "med", 3620),
        ("3", "4", "med", 5000),
        ("4", "3", "adm", 5000),
    ]
)
COLLEGEMSG = "".join(f"{a},{b},msg,{t}\n" for a, b, t in [("1", "2", 60), ("2", "3", 120)])
FLIGHTS = "".join(
    f"{a},{b},flight,{t}\n"
    for a, b, t in [("JFK", "ORD", 979516800 + 600), ("ORD", "SFO", 979516800 + 3000)]
)
ON_TIME = "".join(
    f"{a},{b},flight,{t},{delay},100\n"
    for a, b, t, delay in [
        ("JFK", "ORD", 979516800 + 600, 5),
        ("ORD", "SFO", 979516800 + 3000, 40),
        ("JFK", "BOS", 979516800 + 3100, 0),
    ]
)
CASES = {
    "hospital_contacts.py": (HOSPITAL, [], "patient 1's contacts could reach 3 people"),
    "collegemsg_reach.py": (COLLEGEMSG, [], "student 1 could have reached 2 students"),
    "flight_connections.py": (FLIGHTS, ["--day", "2001-01-15"], "JFK (1)"),
    "on_time_flights.py": (
        ON_TIME,
        ["--day", "2001-01-15"],
        "3 (origin, destination) pairs reachable, 1 of them",
    ),
}
HEADERS = {"on_time_flights.py": "src,trg,label,ts,delay,distance\n"}


def test_every_real_data_example_is_run_here():
    assert {p.name for p in EXAMPLES.glob("*.py")} - {"realdata.py"} == set(CASES)


@pytest.mark.parametrize("script", sorted(CASES))
def test_real_data_example_runs(script, tmp_path):
    rows, extra, expected = CASES[script]
    stream = tmp_path / "sample.csv"
    stream.write_text(HEADERS.get(script, "src,trg,label,ts\n") + rows)
    proc = subprocess.run(
        [sys.executable, str(EXAMPLES / script), "--stream", str(stream), "--out", str(tmp_path)]
        + extra,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    assert expected in proc.stdout, proc.stdout
    assert "plot: " in proc.stdout or "no plot: matplotlib is not installed" in proc.stdout
