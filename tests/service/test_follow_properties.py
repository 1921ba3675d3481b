"""`sgq run --follow` over a JSON Lines file whose records carry properties, stopped with a
checkpoint and resumed after more records landed: the resumed reader starts inside the file,
after the first record that named the properties, and still reads them (specs/semantics.md
§1). The output is that of the program without properties over a twin stream whose edges that
fail the property test have another label."""

from __future__ import annotations

import csv
import io
import json
import signal

from cli_support import api_rows
from service_support import Background, append, text_of, wait_for

PROGRAM = ".window 10\n.slide 2\n.output OnTime\nOnTime(a, b) :- [flight{delay < 15}+](a, b).\n"
TWIN = ".window 10\n.slide 2\n.output OnTime\nOnTime(a, b) :- flight+(a, b).\n"


def _flights(n: int) -> list[tuple]:
    out = []
    for i in range(n):
        delay = (i * 7) % 30 if i % 5 else None
        out.append((f"v{i % 6}", f"v{(i * 5 + 1) % 6}", "flight", i // 3, "+", delay))
    return out


def _records(flights, first: bool) -> str:
    """The records of `flights`; the file's `first` names `gate` (null), which later
    records give now and then: a reader resuming after it must still know it."""
    lines = []
    for i, (s, t, label, ts, _, delay) in enumerate(flights):
        record = {"src": s, "trg": t, "label": label, "ts": ts, "delay": delay}
        if first and i == 0:
            record["gate"] = None
        elif i % 4 == 3:
            record["gate"] = "G1"
        lines.append(json.dumps(record))
    return "".join(line + "\n" for line in lines)


def _expected(tmp_path, flights) -> str:
    twin = tmp_path / "twin.dl"
    twin.write_text(TWIN)
    edges = [
        (s, t, "flight" if delay is not None and delay < 15 else "other", ts, op)
        for s, t, _, ts, op, delay in flights
    ]
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(("time", "op", "src", "trg", "label"))
    writer.writerows(api_rows(twin, edges, "deltas", close=False))
    return buf.getvalue()


def test_a_resumed_json_lines_reader_keeps_the_properties(tmp_path):
    flights = _flights(240)
    program, live, out = tmp_path / "p.dl", tmp_path / "live.jsonl", tmp_path / "out.csv"
    program.write_text(PROGRAM)
    live.write_text(_records(flights[:120], first=True))
    args = ["run", program, "-i", live, "-o", out, "--emit", "deltas", "--follow"]
    args += ["--checkpoint", tmp_path / "ckpt", "--no-progress"]
    run = Background(args, tmp_path)
    try:
        first = _expected(tmp_path, flights[:120])
        wait_for(lambda: text_of(out) == first, "the first half's results", run)
    finally:
        code = run.stop(signal.SIGTERM)
    assert code == 0, run.stderr
    append(live, _records(flights[120:], first=False))
    run = Background(args, tmp_path, name="resumed")
    try:
        whole = _expected(tmp_path, flights)
        wait_for(lambda: text_of(out) == whole, "every result before the last time", run)
    finally:
        code = run.stop(signal.SIGTERM)
    assert code == 0, run.stderr
    assert "resuming" in run.stderr
