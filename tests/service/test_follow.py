"""`sgq run --follow`: a file read as it grows, rotated, stopped by SIGTERM with a final
checkpoint and resumed from it ends with the output of an uninterrupted run over the whole
file; a directory where `sgq prepare` outputs land; `--idle-flush`; stop without checkpoints;
refusals (sgq/live.py, sgq/follow.py)."""

from __future__ import annotations

import csv
import io
import json
import os
import signal
from pathlib import Path

import pytest
from cli_support import (
    NOTIFICATION,
    api_rows,
    assert_one_line_error,
    prepared_dir,
    sgq_proc,
    social_edges,
    stats_of,
)
from service_support import Background, append, text_of, wait_for

DELTA = ("time", "op", "src", "trg", "label")


def _csv(rows, header) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buf.getvalue()


def _lines(edges) -> list[str]:
    """The edge file's lines, a header first."""
    return ["src,trg,label,ts,op\n"] + [f"{s},{t},{l},{ts},{op}\n" for s, t, l, ts, op in edges]


def _expected(edges, emit: str) -> str:
    """What an uninterrupted run over all of `edges` has written when its input stops growing:
    every instant but the last handed over (the last may still get edges) and the frontier
    at the last time; nothing closed (the stream has not ended). Interval rows sorted per
    instant, as checkpointed runs write them."""
    last = edges[-1][3]
    if emit == "deltas":
        rows = api_rows(NOTIFICATION, edges, "deltas", close=False)
        return _csv(rows, ("time", "op", "src", "trg", "label"))
    done = [e for e in edges if e[3] < last]
    rows = api_rows(NOTIFICATION, done, "intervals", sort_rounds=True, close=False)
    return _csv(rows, ("src", "trg", "label", "ts", "exp"))


def _places(ckpt: Path) -> dict:
    """The reader's place kept with the newest checkpoint (follow-K.json), if any."""
    for name in sorted(os.listdir(ckpt)) if ckpt.is_dir() else ():
        if name.startswith("follow-") and name.endswith(".json"):
            try:
                return json.loads((ckpt / name).read_text())
            except (ValueError, FileNotFoundError):  # being replaced, or just replaced
                return {}
    return {}


@pytest.mark.parametrize("emit", ["deltas", "intervals"])
@pytest.mark.parametrize("rotate", ["while-running", "while-stopped"])
def test_follow_rotate_sigterm_and_resume_equals_an_uninterrupted_run(tmp_path, emit, rotate):
    edges = social_edges(seed=5, n=700, deletions=0.05)
    lines = _lines(edges)
    expected = _expected(edges, emit)
    live, out, ckpt = tmp_path / "live.csv", tmp_path / "out.csv", tmp_path / "ckpt"
    args = ["run", NOTIFICATION, "-i", live, "-o", out, "--emit", emit, "--follow"]
    args += ["--checkpoint", ckpt, "--checkpoint-every", "40", "--no-progress"]
    live.write_text("".join(lines[:250]))

    first = Background(args, tmp_path, "first", hashseed="1")
    try:
        wait_for(lambda: _places(ckpt), "a first checkpoint", first)
        # the next lines arrive in pieces, one line split in the middle
        middle = "".join(lines[250:450])
        cut = middle.index("\n", len(middle) // 2) + 4
        append(live, middle[:cut])
        wait_for(lambda: _places(ckpt).get("line", 0) > 300, "the first appended lines", first)
        append(live, middle[cut:])
        if rotate == "while-running":
            inode = os.stat(live).st_ino
            os.rename(live, tmp_path / "live.csv.1")
            live.write_text("".join([lines[0]] + lines[450:560]))
            wait_for(
                lambda: _places(ckpt).get("source", {}).get("inode") not in (None, inode),
                "the rotated file's successor",
                first,
            )
    finally:
        code = first.stop(signal.SIGTERM)
    assert code == 0, first.stderr
    assert "Traceback" not in first.stderr
    stopped = stats_of(first.stderr)
    assert stopped["edges"] > 0 and "checkpoint" in stopped["extra"]

    if rotate == "while-stopped":
        os.rename(live, tmp_path / "live.csv.1")
        live.write_text("".join([lines[0]] + lines[450:]))
    else:
        append(live, "".join(lines[560:]))

    second = Background(args, tmp_path, "second", hashseed="2")
    try:
        wait_for(lambda: text_of(out) == expected, "the whole stream's results", second)
    finally:
        code = second.stop(signal.SIGINT)
    assert code == 0, second.stderr
    assert "resuming from checkpoint" in second.stderr
    assert out.read_text() == expected  # nothing more came after the stop
    last = edges[-1][3]
    assert stats_of(second.stderr)["edges"] == sum(1 for e in edges if e[3] < last)
    if emit == "deltas":  # the same bytes as `sgq run` over the whole file, up to its last time
        whole = tmp_path / "whole.csv"
        whole.write_text("".join(lines))
        plain = sgq_proc(["run", NOTIFICATION, "-i", whole, "--emit", "deltas"])
        head, *rows = plain.stdout.decode().splitlines(keepends=True)
        assert out.read_text() == head + "".join(r for r in rows if int(r.split(",")[0]) < last)


def test_follow_without_checkpoint_hands_everything_over_at_sigterm(tmp_path):
    """No checkpoint: the edges read go to the engine before the run stops (the last instant
    too), but the stream is not closed: no expiry after the last time is written."""
    edges = social_edges(seed=8, n=300)
    live, out = tmp_path / "live.csv", tmp_path / "out.csv"
    live.write_text("".join(_lines(edges)))
    run = Background(
        ["run", NOTIFICATION, "-i", live, "-o", out, "--emit", "deltas", "--follow"], tmp_path
    )
    expected = _expected(edges, "deltas")
    try:
        wait_for(lambda: text_of(out) == expected, "the results before the last time", run)
    finally:
        code = run.stop(signal.SIGINT)
    assert code == 0, run.stderr
    assert stats_of(run.stderr)["edges"] == len(edges)
    rows = list(csv.reader(io.StringIO(out.read_text())))[1:]
    assert all(int(r[0]) < edges[-1][3] for r in rows)


def test_idle_flush_writes_the_last_instant_and_later_edges_before_it_are_late(tmp_path):
    """After S seconds without an edge, every change up to the last time read is written;
    an edge that then comes at or before that time is dropped as late and reported, a later
    one is read as usual."""
    program = tmp_path / "reach.dl"
    program.write_text(".window 50000\nAnswer(x, y) :- follows+(x, y).\n")
    edges = social_edges(seed=9, n=300)
    last = edges[-1][3] + 1
    edges.append(("z1", "z2", "follows", last, "+"))  # a result at the last instant
    live, out = tmp_path / "live.csv", tmp_path / "out.csv"
    live.write_text("".join(_lines(edges)))
    args = ["run", program, "-i", live, "-o", out, "--emit", "deltas", "--follow"]
    run = Background([*args, "--idle-flush", "150ms"], tmp_path)
    closed = api_rows(program, edges, "deltas")  # the whole stream, closed
    header = ("time", "op", "src", "trg", "label")
    up_to_last = _csv([r for r in closed if int(r[0]) <= last], header)
    assert any(int(r[0]) == last for r in closed)  # the last instant has results
    try:
        wait_for(lambda: text_of(out) == up_to_last, "the idle flush", run)
        append(live, f"u1,u2,follows,{last},+\nnew1,new2,follows,{last + 5},+\n")
        rejects = tmp_path / "out.csv.rejects.csv"
        wait_for(lambda: "already flushed" in text_of(rejects), "the late edge's report", run)
        wait_for(lambda: f"{last + 5},+,new1,new2" in text_of(out), "the later edge's result", run)
    finally:
        code = run.stop()
    assert code == 0, run.stderr
    stats = stats_of(run.stderr)
    assert stats["edges"] == len(edges) + 1 and stats["dropped"] == 1


def test_follow_a_directory_where_prepared_outputs_land(tmp_path):
    edges = social_edges(seed=4, n=400)
    landing = tmp_path / "landing"
    landing.mkdir()
    prepared_dir(landing / "2024-01-01", edges[:150])
    out = tmp_path / "out.csv"
    run = Background(
        ["run", NOTIFICATION, "-i", landing, "-o", out, "--emit", "deltas", "--follow"], tmp_path
    )
    try:
        first = _expected(edges[:150], "deltas")
        wait_for(lambda: text_of(out) == first, "the first output's results", run)
        staging = tmp_path / "staging"
        prepared_dir(staging, edges[150:])
        os.rename(staging, landing / "2024-01-02")  # lands whole, as a finished job
        wait_for(lambda: text_of(out) == _expected(edges, "deltas"), "the second one's", run)
    finally:
        code = run.stop()
    assert code == 0, run.stderr


@pytest.mark.parametrize(
    "extra, pieces",
    [
        (["--idle-flush", "1s"], ("--idle-flush needs --follow",)),
        (["--follow", "--idle-flush", "0"], ("must be a positive duration",)),
    ],
)
def test_follow_refusals_are_one_line_errors(tmp_path, extra, pieces):
    live = tmp_path / "e.csv"
    live.write_text("".join(_lines(social_edges(seed=1, n=5))))
    proc = sgq_proc(["run", NOTIFICATION, "-i", live, *extra])
    assert proc.returncode == 2
    if "must be" in pieces[0]:
        assert pieces[0] in proc.stderr and "Traceback" not in proc.stderr
    else:
        assert_one_line_error(proc.stderr, *pieces)


def test_follow_stdin_and_gz_are_refused(tmp_path):
    proc = sgq_proc(["run", NOTIFICATION, "-i", "-", "--follow"], stdin=b"")
    assert_one_line_error(proc.stderr, "--follow needs --input FILE or DIR")
    gz = tmp_path / "e.csv.gz"
    gz.write_bytes(b"")
    proc = sgq_proc(["run", NOTIFICATION, "-i", gz, "--follow"])
    assert_one_line_error(proc.stderr, "not a .gz file")


def test_a_checkpoint_of_a_finished_run_is_not_followed(tmp_path):
    live = tmp_path / "e.csv"
    live.write_text("".join(_lines(social_edges(seed=2, n=50))))
    base = [
        "run",
        NOTIFICATION,
        "-i",
        live,
        "-o",
        tmp_path / "o.csv",
        "--checkpoint",
        tmp_path / "c",
    ]
    assert sgq_proc(base).returncode == 0
    proc = sgq_proc([*base, "--follow"])
    assert_one_line_error(proc.stderr, "was written without --follow")


def test_stream_errors_name_the_line_in_a_resumed_generation(tmp_path):
    """A bad line met while following stops the run with FILE:LINE: reason; what came
    before it is written first."""
    edges = social_edges(seed=3, n=40)
    live, out = tmp_path / "live.csv", tmp_path / "out.csv"
    live.write_text("".join(_lines(edges)) + "a,b,follows,notatime,+\n")
    proc = sgq_proc(["run", NOTIFICATION, "-i", live, "-o", out, "--emit", "deltas", "--follow"])
    assert proc.returncode == 2
    assert_one_line_error(
        proc.stderr, f"{live}:{len(edges) + 2}: time 'notatime' is not an integer"
    )
    assert text_of(out).count("\n") > 1


def test_rotation_by_truncation_reads_the_file_again(tmp_path):
    """copytruncate: the file shrinks under the reader, which starts it again."""
    edges = social_edges(seed=6, n=200)
    lines = _lines(edges)
    live, out = tmp_path / "live.csv", tmp_path / "out.csv"
    live.write_text("".join(lines[:100]))
    run = Background(
        ["run", NOTIFICATION, "-i", live, "-o", out, "--emit", "deltas", "--follow"], tmp_path
    )
    try:
        wait_for(lambda: text_of(out).count("\n") > 1, "the first results", run)
        with open(live, "w", encoding="utf-8") as handle:  # truncated, then written again
            handle.write(lines[0])
        wait_for(lambda: "truncated" in run.stderr, "the truncation noticed", run)
        append(live, "".join(lines[100:]))
        wait_for(lambda: text_of(out) == _expected(edges, "deltas"), "the rest", run)
    finally:
        code = run.stop()
    assert code == 0, run.stderr
    assert "truncated" in run.stderr


def test_resume_keeps_the_lateness_buffer_and_the_held_instant(tmp_path):
    """With --max-lateness the reader holds edges back; a stop keeps them beside the
    checkpoint (follow-K.json) and the resumed run hands them over as an uninterrupted run."""
    program = tmp_path / "reach.dl"  # sparse: nearly every edge adds a pair of its own
    program.write_text(".window 20000\nAnswer(x, y) :- follows+(x, y).\n")
    edges = social_edges(seed=13, n=500, users=400)
    # arrival order: some edges up to 2,000 late (within the bound), ties kept in order
    jitter = [(e[3] + (1999 if i % 7 == 3 else 0), i, e) for i, e in enumerate(edges)]
    arrival = [e for _, _, e in sorted(jitter)]
    ordered = sorted(arrival, key=lambda e: e[3])  # what the lateness buffer hands on
    lines = _lines(arrival)
    live, out, ckpt = tmp_path / "live.csv", tmp_path / "out.csv", tmp_path / "ckpt"
    args = ["run", program, "-i", live, "-o", out, "--emit", "deltas", "--follow"]
    args += ["--checkpoint", ckpt, "--checkpoint-every", "40", "--max-lateness", "5000"]
    live.write_text("".join(lines[:260]))
    first = Background(args, tmp_path, "first", hashseed="3")
    try:
        wait_for(lambda: _places(ckpt).get("line", 0) >= 200, "a checkpoint past line 200", first)
    finally:
        assert first.stop() == 0, first.stderr
    held = _places(ckpt)
    assert held["reorder"]["held"] and held["line"] == 260
    # the rest, then an edge no rule reads, late enough to move the frontier past them all
    tail = ("x", "y", "unread", ordered[-1][3] + 6000, "+")
    append(live, "".join(lines[260:]) + "{},{},{},{},{}\n".format(*tail))
    second = Background(args, tmp_path, "second", hashseed="4")
    bound = tail[3] - 5000  # the frontier: every event before it is final
    closed = api_rows(program, [*ordered, tail], "deltas")
    want = _csv([r for r in closed if int(r[0]) < bound], DELTA)
    try:
        wait_for(lambda: text_of(out) == want, "the whole stream's results", second)
    finally:
        assert second.stop() == 0, second.stderr
    assert out.read_text() == want
