"""`sgq run` end to end: input files, stdin, formats and column orders, both emit modes
checked against the Python API, JSONL output, witness paths, the stats line, the progress
bar, explicit deletions, bad input (fail and skip), time order and --max-lateness, and a
directory written by `sgq prepare` (specs/semantics.md §1, §5, §7)."""

from __future__ import annotations

import csv
import json
import os
import pty
import random
import shutil
import subprocess
import sys

import pytest
from cli_support import (
    DELTA_HEADER,
    INTERVAL_HEADER,
    NOTIFICATION,
    NOTIFICATION_CSV,
    api_rows,
    assert_one_line_error,
    multiset,
    prepared_dir,
    read_edges_csv,
    read_result,
    sgq_main,
    sgq_proc,
    social_edges,
    stats_of,
    write_edges,
)


@pytest.fixture(scope="module")
def stream():
    """A 400-edge stream for the notification program: a join, two closures, expiries."""
    return social_edges(seed=11, n=400)


@pytest.fixture(scope="module")
def expected(stream):
    return {
        "intervals": api_rows(NOTIFICATION, stream, "intervals"),
        "deltas": api_rows(NOTIFICATION, stream, "deltas"),
    }


def _run_to_file(tmp_path, capsys, input_path, *extra, emit="intervals", name="out.csv"):
    out = tmp_path / name
    code, _, err = sgq_main(
        [
            "run",
            NOTIFICATION,
            "--input",
            input_path,
            "--output",
            out,
            "--no-progress",
            "--emit",
            emit,
            *extra,
        ],
        capsys,
    )
    assert code == 0, err
    return out, err


# ---- both emit modes agree with the API -------------------------------------------------


def test_intervals_from_a_file_equal_the_api(tmp_path, capsys, stream, expected):
    assert len(expected["intervals"]) > 100  # the stream is not trivial
    path = write_edges(tmp_path / "e.csv", stream)
    out, err = _run_to_file(tmp_path, capsys, path)
    header, rows = read_result(out)
    assert header == INTERVAL_HEADER
    assert multiset(rows) == multiset(expected["intervals"])
    stats = stats_of(err)
    assert (stats["edges"], stats["rows"], stats["what"]) == (len(stream), len(rows), "results")


def test_deltas_from_a_file_equal_the_api(tmp_path, capsys, stream, expected):
    path = write_edges(tmp_path / "e.csv", stream)
    out, err = _run_to_file(tmp_path, capsys, path, emit="deltas")
    header, rows = read_result(out)
    assert header == DELTA_HEADER
    assert rows == expected["deltas"]  # the delta view's order is deterministic
    ops = {r[1] for r in rows}
    assert ops == {"+", "-"}
    assert stats_of(err)["what"] == "deltas"


@pytest.mark.parametrize(
    "extra",
    [
        ["--path-operator", "closure"],
        ["--path-operator", "spath"],
        ["--no-rewrite", "shared_chains", "--no-rewrite", "finite_paths"],
    ],
)
def test_plan_options_give_the_same_deltas(tmp_path, capsys, stream, expected, extra):
    path = write_edges(tmp_path / "e.csv", stream)
    out, _ = _run_to_file(tmp_path, capsys, path, *extra, emit="deltas")
    assert read_result(out)[1] == expected["deltas"]


def test_the_shipped_example_end_to_end(tmp_path, capsys):
    """specs/streams/notification.csv through specs' notification program."""
    edges = read_edges_csv(NOTIFICATION_CSV)
    out, _ = _run_to_file(tmp_path, capsys, NOTIFICATION_CSV, emit="deltas")
    assert read_result(out)[1] == api_rows(NOTIFICATION, edges, "deltas")
    assert ("2400", "+", "alice", "m1", "Answer") in read_result(out)[1]


@pytest.mark.parametrize("header", [True, False])
@pytest.mark.parametrize("emit", ["intervals", "deltas"])
def test_stdin_to_stdout(tmp_path, stream, expected, header, emit):
    """`--input -` as a process: stdin with and without a header line, results on stdout,
    the stats line on stderr."""
    data = write_edges(tmp_path / "e.csv", stream, header=header).read_bytes()
    proc = sgq_proc(["run", NOTIFICATION, "--input", "-", "--emit", emit], stdin=data)
    assert proc.returncode == 0, proc.stderr
    head, rows = read_result(proc.stdout.decode())
    assert head == (INTERVAL_HEADER if emit == "intervals" else DELTA_HEADER)
    if emit == "deltas":
        assert rows == expected["deltas"]
    else:
        assert multiset(rows) == multiset(expected["intervals"])
    assert stats_of(proc.stderr)["edges"] == len(stream)
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("header", [True, False])
def test_columns_in_another_order(tmp_path, capsys, stream, expected, header):
    cols = ("ts", "label", "src", "op", "trg")
    path = write_edges(tmp_path / "e.csv", stream, header=header, columns=cols)
    out, _ = _run_to_file(tmp_path, capsys, path, "--columns", ",".join(cols), emit="deltas")
    assert read_result(out)[1] == expected["deltas"]


def test_a_header_in_another_order_needs_no_columns_option(tmp_path, capsys, stream, expected):
    path = write_edges(tmp_path / "e.csv", stream, columns=("label", "ts", "trg", "src", "op"))
    out, _ = _run_to_file(tmp_path, capsys, path, emit="deltas")
    assert read_result(out)[1] == expected["deltas"]


def test_columns_that_do_not_fit_the_file_are_a_line_error(tmp_path, capsys, stream):
    path = write_edges(tmp_path / "e.csv", stream, header=False)  # src,trg,label,ts,op
    code, _, err = sgq_main(
        [
            "run",
            NOTIFICATION,
            "-i",
            path,
            "-o",
            tmp_path / "o.csv",
            "--columns",
            "ts,src,label,trg,op",
        ],
        capsys,
    )
    assert code == 2
    assert_one_line_error(err, f"{path}:1:", "is not an integer")


@pytest.mark.parametrize(
    "name,fmt,extra",
    [
        ("e.tsv", "tsv", []),
        ("e.jsonl", "jsonl", []),
        ("e.ndjson", "jsonl-arrays", []),
        ("e.csv.gz", "csv", []),
        ("e.tsv.gz", "tsv", []),
        ("e.jsonl.gz", "jsonl", []),
        ("edges.txt", "tsv", ["--format", "tsv"]),
    ],
)
def test_input_formats(tmp_path, capsys, stream, expected, name, fmt, extra):
    path = write_edges(tmp_path / name, stream, fmt=fmt)
    out, err = _run_to_file(tmp_path, capsys, path, *extra, emit="deltas")
    assert read_result(out)[1] == expected["deltas"]
    assert stats_of(err)["edges"] == len(stream)


@pytest.mark.parametrize("emit", ["intervals", "deltas"])
def test_jsonl_output(tmp_path, capsys, stream, expected, emit):
    path = write_edges(tmp_path / "e.csv", stream)
    out, _ = _run_to_file(tmp_path, capsys, path, emit=emit, name="out.jsonl")
    lines = out.read_text(encoding="utf-8").splitlines()
    objs = [json.loads(line) for line in lines]  # every line is JSON, no CSV header
    fields = (INTERVAL_HEADER if emit == "intervals" else DELTA_HEADER).split(",")
    assert all(list(o) == fields for o in objs)
    rows = [tuple(str(o[f]) for f in fields) for o in objs]
    if emit == "deltas":
        assert rows == expected["deltas"]
        assert all(isinstance(o["time"], int) for o in objs)
    else:
        assert multiset(rows) == multiset(expected["intervals"])
        assert all(isinstance(o["ts"], int) and isinstance(o["exp"], int) for o in objs)


def _coverage(rows) -> dict:
    """Per key, the union of its intervals as sorted disjoint [ts, exp) (append-only input:
    every row is a start or a widening)."""
    by_key: dict = {}
    for s, d, label, ts, exp in rows:
        by_key.setdefault((s, d, label), []).append((int(ts), int(exp)))
    out = {}
    for key, ivs in by_key.items():
        merged: list = []
        for ts, exp in sorted(ivs):
            if merged and ts <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], exp)
            else:
                merged.append([ts, exp])
        out[key] = merged
    return out


def test_paths_name_a_witness_valid_at_the_row_start(tmp_path, capsys, stream, expected):
    """--paths adds a `path` column of `s-label->t` edges: each is an input edge of a label
    the program reads, and all are valid together (window 24h, slide 1h) at the row's last
    instant exp - 1 (a widening row carries the witness of the derivation that widened it);
    the other columns cover the same instants per key as the rows without --paths (a path
    run may write more widenings)."""
    path = write_edges(tmp_path / "e.csv", stream)
    out, _ = _run_to_file(tmp_path, capsys, path, "--paths")
    header, rows = read_result(out)
    assert header == INTERVAL_HEADER + ",path"
    assert _coverage(r[:5] for r in rows) == _coverage(expected["intervals"])
    inserted: dict[tuple, list[int]] = {}
    for s, d, label, t, _op in stream:
        inserted.setdefault((s, d, label), []).append(t)
    window, slide = 86400, 3600
    for row in rows:
        last = int(row[4]) - 1
        assert last >= int(row[3])
        witness = row[5].split(" ")
        assert witness and witness[0], row
        for step in witness:
            s, rest = step.split("-", 1)
            label, d = rest.split("->")
            assert label in ("follows", "likes", "posts"), row
            times = inserted.get((s, d, label), [])
            assert any(t <= last < t // slide * slide + window for t in times), (row, step)


def test_the_progress_bar_is_drawn_on_a_terminal_unless_no_progress(tmp_path, stream):
    """On a terminal stderr the bar is drawn; --no-progress turns it off (the stats line
    stays)."""
    path = write_edges(tmp_path / "e.csv", stream)
    seen = {}
    for flag in ([], ["--no-progress"]):
        master, slave = pty.openpty()
        try:
            env = dict(os.environ, PYTHONHASHSEED="0")
            proc = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "sgq",
                    "run",
                    str(NOTIFICATION),
                    "-i",
                    str(path),
                    "-o",
                    str(tmp_path / "o.csv"),
                    *flag,
                ],
                stderr=slave,
                stdout=subprocess.DEVNULL,
                env=env,
                timeout=120,
            )
            os.close(slave)
            slave = None
            chunks = []
            while True:
                try:
                    data = os.read(master, 65536)
                except OSError:
                    break
                if not data:
                    break
                chunks.append(data)
        finally:
            if slave is not None:
                os.close(slave)
            os.close(master)
        assert proc.returncode == 0
        seen[bool(flag)] = b"".join(chunks).decode("utf-8", errors="replace")
    assert "e/s" in seen[False] and "\r" in seen[False], seen[False]
    assert "e/s" not in seen[True], seen[True]
    assert "sgq run: 400 edges" in seen[True]


# ---- explicit deletions -----------------------------------------------------------------


def test_minus_edges_are_deletions(tmp_path, capsys):
    """A 5th column `-` deletes: the delta view shows the `-` at the deletion time, long
    before the window would end the tuple; a `-` matching nothing is counted."""
    program = tmp_path / "q.dl"
    program.write_text(".window 100\nAnswer(x, y) :- a+(x, y).\n")
    path = tmp_path / "e.csv"
    path.write_text("1,2,a,0,+\n2,3,a,1,+\n1,2,a,4,-\n7,8,a,5,-\n")
    out = tmp_path / "d.csv"
    code, _, err = sgq_main(
        ["run", program, "-i", path, "-o", out, "--emit", "deltas", "--no-progress"], capsys
    )
    assert code == 0, err
    assert out.read_text().splitlines() == [
        DELTA_HEADER,
        "0,+,1,2,Answer",
        "1,+,1,3,Answer",
        "1,+,2,3,Answer",
        "4,-,1,2,Answer",
        "4,-,1,3,Answer",
        "101,-,2,3,Answer",
    ]
    assert stats_of(err)["unmatched"] == 1
    out = tmp_path / "i.csv"
    code, _, err = sgq_main(["run", program, "-i", path, "-o", out, "--no-progress"], capsys)
    assert code == 0
    rows = read_result(out)[1]
    # the end records: (1,2) and (1,3) now end at 4
    assert ("1", "2", "Answer", "0", "4") in rows and ("1", "3", "Answer", "1", "4") in rows


def test_a_stream_with_deletions_equals_the_api(tmp_path, capsys):
    edges = social_edges(seed=5, n=500, deletions=0.1)
    assert sum(e[4] == "-" for e in edges) > 20
    path = write_edges(tmp_path / "e.csv", edges)
    for emit in ("intervals", "deltas"):
        out, err = _run_to_file(tmp_path, capsys, path, emit=emit)
        rows = read_result(out)[1]
        want = api_rows(NOTIFICATION, edges, emit)
        if emit == "deltas":
            assert rows == want
        else:
            assert multiset(rows) == multiset(want)


# ---- bad input --------------------------------------------------------------------------

BAD_LINES = [
    ("u1,u2,follows", "expected 5 columns"),
    ("u1,u2,follows,soon,+", "time 'soon' is not an integer"),
    ("u1,u2,follows,{t},*", "unknown op '*'"),
    (",u2,follows,{t},+", "empty src"),
    (b"u1,u\xff2,follows,{t},+", "not valid UTF-8"),
]


def _with_bad_line(tmp_path, edges, at: int, bad) -> tuple:
    """Write edges with a header and one bad line after edge `at`; its line number."""
    path = write_edges(tmp_path / "e.csv", edges)
    lines = path.read_bytes().splitlines(keepends=True)
    t = edges[at][3]
    text = bad.encode() if isinstance(bad, str) else bad
    text = text.replace(b"{t}", str(t).encode())
    lines.insert(at + 2, text + b"\n")  # header, edges[0..at], then the bad line
    path.write_bytes(b"".join(lines))
    return path, at + 3


@pytest.mark.parametrize("bad,reason", BAD_LINES)
def test_on_error_fail_names_file_line_and_keeps_what_was_written(
    tmp_path, capsys, stream, bad, reason
):
    at = 250
    path, lineno = _with_bad_line(tmp_path, stream, at, bad)
    for emit in ("intervals", "deltas"):
        out = tmp_path / f"out-{emit}.csv"
        code, _, err = sgq_main(
            ["run", NOTIFICATION, "-i", path, "-o", out, "--emit", emit, "--no-progress"], capsys
        )
        assert code == 2
        assert_one_line_error(err, f"{path}:{lineno}: {reason}")
        rows = read_result(out)[1]
        before = stream[: at + 1]
        last = before[-1][3]
        done = [e for e in before if e[3] < last]  # every timestamp known complete
        low = api_rows(NOTIFICATION, done, emit, close=False)
        high = api_rows(NOTIFICATION, before, emit, close=False)
        assert len(low) > 50
        assert not (multiset(low) - multiset(rows)), "results emitted before were lost"
        assert not (multiset(rows) - multiset(high)), "rows from after the bad line"


def test_on_error_fail_on_stdin_keeps_stdout(tmp_path, stream):
    at = 250
    path, lineno = _with_bad_line(tmp_path, stream, at, "x,y")
    proc = sgq_proc(["run", NOTIFICATION, "-i", "-", "--emit", "deltas"], stdin=path.read_bytes())
    assert proc.returncode == 2
    assert_one_line_error(proc.stderr, f"<stdin>:{lineno}: expected 5 columns")
    rows = read_result(proc.stdout.decode())[1]
    before = stream[: at + 1]
    low = api_rows(NOTIFICATION, [e for e in before if e[3] < before[-1][3]], "deltas", close=False)
    assert rows[: len(low)] == low and len(low) > 20


def _messy(tmp_path, stream):
    """The stream with five bad lines; (path, [(line, reason)], clean edges)."""
    path = write_edges(tmp_path / "messy.csv", stream)
    lines = path.read_bytes().splitlines(keepends=True)
    plan = {
        40: BAD_LINES[0],
        90: BAD_LINES[1],
        150: BAD_LINES[2],
        151: BAD_LINES[3],
        300: BAD_LINES[4],
    }
    out, bad = [lines[0]], []
    for i, line in enumerate(lines[1:]):
        out.append(line)
        if i in plan:
            text, reason = plan[i]
            text = text.encode() if isinstance(text, str) else text
            out.append(text.replace(b"{t}", str(stream[i][3]).encode()) + b"\n")
            bad.append((len(out), reason))
    path.write_bytes(b"".join(out))
    return path, bad


@pytest.mark.parametrize("rejects", ["given", "default", "stdout"])
def test_on_error_skip_writes_rejects_and_counts_them(tmp_path, capsys, stream, expected, rejects):
    path, bad = _messy(tmp_path, stream)
    args = [
        "run",
        NOTIFICATION,
        "-i",
        path,
        "--emit",
        "deltas",
        "--on-error",
        "skip",
        "--no-progress",
    ]
    if rejects == "given":
        where = tmp_path / "bad-lines.csv"
        args += ["-o", tmp_path / "out.csv", "--rejects", where]
    elif rejects == "default":
        where = tmp_path / "out.csv.rejects.csv"
        args += ["-o", tmp_path / "out.csv"]
    else:
        where = tmp_path / "sgq-rejects.csv"
    if rejects == "stdout":
        proc = sgq_proc(args, cwd=tmp_path)
        code, out, err = proc.returncode, proc.stdout.decode(), proc.stderr
    else:
        code, _, err = sgq_main(args, capsys)
        out = (tmp_path / "out.csv").read_text()
    assert code == 0, err
    assert read_result(out)[1] == expected["deltas"]
    text = where.read_text(encoding="utf-8").splitlines()
    assert text[0] == "line,reason,text"
    got = [(int(r[0]), r[1]) for r in csv.reader(text[1:])]
    assert [g[0] for g in got] == [b[0] for b in bad]
    for (_line, reason), (_, want) in zip(got, bad):
        assert want in reason
    stats = stats_of(err)
    assert (stats["skipped"], stats["dropped"]) == (len(bad), 0)
    assert str(where.name) in stats["extra"]


def test_out_of_order_is_an_error_by_default(tmp_path, capsys, stream):
    edges = list(stream)
    i = 200
    while edges[i][3] == edges[i + 1][3]:
        i += 1
    edges[i], edges[i + 1] = edges[i + 1], edges[i]
    path = write_edges(tmp_path / "e.csv", edges)
    code, _, err = sgq_main(["run", NOTIFICATION, "-i", path, "-o", tmp_path / "o.csv"], capsys)
    assert code == 2
    assert_one_line_error(
        err, f"{path}:{i + 3}:", f"time {edges[i + 1][3]} is earlier", "--max-lateness"
    )
    # --on-error skip is about malformed lines: out of order stays an error
    code, _, err = sgq_main(
        ["run", NOTIFICATION, "-i", path, "-o", tmp_path / "o.csv", "--on-error", "skip"], capsys
    )
    assert code == 2
    assert_one_line_error(err, f"{path}:{i + 3}:")


def _shuffle_late(edges, bound: int, seed: int) -> list:
    """The edges with some moved later in the file, by at most `bound` time units."""
    rng = random.Random(seed)
    out = list(edges)
    for _ in range(len(out) // 4):
        i = rng.randrange(len(out) - 1)
        j = i
        while j + 1 < len(out) and out[j + 1][3] - out[i][3] <= bound and rng.random() < 0.8:
            j += 1
        if j > i:
            out.insert(j, out.pop(i))
    return out


@pytest.mark.parametrize("emit", ["intervals", "deltas"])
def test_max_lateness_reorders_within_the_bound(tmp_path, capsys, stream, emit):
    bound = 3600
    late = _shuffle_late(stream, bound, seed=3)
    assert late != stream
    in_order = sorted(late, key=lambda e: e[3])  # stable: ties keep file order
    p_late = write_edges(tmp_path / "late.csv", late)
    p_sorted = write_edges(tmp_path / "sorted.csv", in_order)
    code, _, err = sgq_main(
        ["run", NOTIFICATION, "-i", p_late, "-o", tmp_path / "o.csv", "--no-progress"], capsys
    )
    assert code == 2 and "earlier than" in err  # needs the option
    a, err = _run_to_file(tmp_path, capsys, p_late, "--max-lateness", "1h", emit=emit, name="a.csv")
    b, _ = _run_to_file(tmp_path, capsys, p_sorted, emit=emit, name="b.csv")
    assert a.read_bytes() == b.read_bytes()
    assert stats_of(err)["dropped"] == 0
    assert not (tmp_path / "a.csv.rejects.csv").exists()


@pytest.mark.parametrize("emit", ["intervals", "deltas"])
def test_edges_no_rule_reads_count_and_change_nothing(tmp_path, capsys, stream, emit):
    """Edges of labels the program does not read, between and after the ones it does: left
    out before the engine where a finished file is read a block at a time, counted all the
    same; the output is what the edge-by-edge reader (`--max-lateness`) gives."""
    noisy = []
    for k, (src, trg, label, ts, op) in enumerate(stream):
        noisy.append((src, trg, label, ts, op))
        noisy += [(f"n{k}", src, "visits", ts, "+")] * (k % 3)
    noisy += [("n", "m", "visits", stream[-1][3] + 86400 * k, "+") for k in range(1, 4)]
    path = write_edges(tmp_path / "noisy.csv", noisy)
    a, err_a = _run_to_file(tmp_path, capsys, path, emit=emit, name="a.csv")
    b, err_b = _run_to_file(tmp_path, capsys, path, "--max-lateness", "1s", emit=emit, name="b.csv")
    assert a.read_bytes() == b.read_bytes()
    assert stats_of(err_a)["edges"] == stats_of(err_b)["edges"] == len(noisy)


def test_max_lateness_drops_and_reports_later_edges(tmp_path, capsys, stream):
    edges = list(stream)
    # move three edges far back: each arrives more than 1h after a later time was seen
    moved = []
    for i in (100, 200, 300):
        while edges.count(edges[i]) > 1:
            i += 1
        e = edges[i]
        j = i
        while edges[j][3] - e[3] <= 3600 * 3:
            j += 1
        moved.append((e, j))
    late = list(edges)
    for e, j in moved:
        late.remove(e)
        late.insert(late.index(edges[j]) + 1, e)
    path = write_edges(tmp_path / "late.csv", late)
    out, err = _run_to_file(tmp_path, capsys, path, "--max-lateness", "1h", emit="deltas")
    kept = [e for e in edges if e not in [m[0] for m in moved]]
    assert read_result(out)[1] == api_rows(NOTIFICATION, kept, "deltas")
    stats = stats_of(err)
    assert (stats["skipped"], stats["dropped"]) == (0, 3)
    assert err.count("warning:") == 3 and "late by" in err
    rejects = (tmp_path / "out.csv.rejects.csv").read_text().splitlines()
    assert rejects[0] == "line,reason,text"
    assert len(rejects) == 4
    for (e, _), line in zip(moved, rejects[1:]):
        assert ",".join(map(str, e)) in line and "dropped" in line
        assert int(line.split(",")[0]) == late.index(e) + 2


# ---- errors are messages ----------------------------------------------------------------


def test_user_errors_are_one_line_messages(tmp_path, capsys, stream):
    path = write_edges(tmp_path / "e.csv", stream)
    bad_program = tmp_path / "bad.dl"
    bad_program.write_text(".window 10\nAnswer(x, y) :- Answer(y, x).\n")
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    gz = write_edges(tmp_path / "e.csv.gz", stream).read_bytes()
    (tmp_path / "cut.csv.gz").write_bytes(gz[: len(gz) // 2])
    (tmp_path / "not.csv.gz").write_bytes(b"src,trg,label,ts\n")
    flipped = bytearray(gz)
    for i in range(len(gz) // 3, len(gz) // 3 + 40):
        flipped[i] ^= 0x5A
    (tmp_path / "flipped.csv.gz").write_bytes(bytes(flipped))
    messy, _ = _messy(tmp_path, stream)
    run = ["run", NOTIFICATION, "-i"]
    cases = [
        (run + [tmp_path / "missing.csv"], 2, "does not exist"),
        (["run", tmp_path / "missing.dl", "-i", path], 2, "does not exist"),
        (run + [path, "--columns", "src,trg,when"], 2, "unknown column"),
        (run + [path, "--columns", "src,trg,label"], 2, "lacks ts"),
        (
            run + [path, "--no-rewrite", "bogus"],
            2,
            "--no-rewrite: unknown rewrite 'bogus'; the rewrites are finite_paths, "
            "relax_simple_paths, shared_chains, bind_path_sources",
        ),
        (run + [tmp_path], 2, "not a directory prepared"),
        (run + [path, "-o", tmp_path / "no" / "such" / "out.csv"], 2, "cannot write the output"),
        (run + [path, "-o", tmp_path], 2, "cannot write the output"),
        (
            run + [messy, "-o", tmp_path / "o.csv", "--on-error", "skip", "--rejects", tmp_path],
            2,
            "cannot write the rejects file",
        ),
        (
            run + [tmp_path / "cut.csv.gz", "-o", tmp_path / "o.csv"],
            2,
            f"{tmp_path / 'cut.csv.gz'}:",
        ),
        (
            run + [tmp_path / "cut.csv.gz", "-o", tmp_path / "o.csv", "--on-error", "skip"],
            2,
            "cannot read the input",
        ),
        (run + [tmp_path / "flipped.csv.gz", "-o", tmp_path / "o.csv"], 2, "cannot read the input"),
        (
            run + [tmp_path / "not.csv.gz", "-o", tmp_path / "o.csv"],
            2,
            f"{tmp_path / 'not.csv.gz'}:1: cannot read the input",
        ),
        (run + [path, "-o", tmp_path / "o.csv", "--checkpoint", a_file / "sub"], 2, "--checkpoint"),
    ]
    for args, want, piece in cases:
        code, _, err = sgq_main(args, capsys)
        assert code == want, (args, code, err)
        assert_one_line_error(err, piece)
    # a program error renders file:line:col with its source line and caret: exit 1
    proc = sgq_proc(["run", bad_program, "-i", path])
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr and "bad.dl:2:" in proc.stderr
    # the same as a process: a damaged .gz is a message, not a traceback
    proc = sgq_proc(["run", NOTIFICATION, "-i", tmp_path / "cut.csv.gz", "--emit", "deltas"])
    assert proc.returncode == 2
    assert_one_line_error(proc.stderr, "cannot read the input")
    assert proc.stdout.startswith(b"time,op,src,trg,label\n")


# ---- a directory written by sgq prepare ---------------------------------------------------


@pytest.mark.parametrize("emit", ["intervals", "deltas"])
def test_a_prepared_directory_gives_the_csv_output(tmp_path, capsys, emit):
    edges = social_edges(seed=8, n=400, deletions=0.05)
    csv_path = write_edges(tmp_path / "e.csv", edges)
    prepared = prepared_dir(tmp_path / "prepared", edges)
    a, _ = _run_to_file(tmp_path, capsys, csv_path, emit=emit, name="a.csv")
    b, err = _run_to_file(tmp_path, capsys, prepared, emit=emit, name="b.csv")
    assert a.read_bytes() == b.read_bytes()
    assert stats_of(err)["edges"] == len(edges)
    code, _, err = sgq_main(["run", NOTIFICATION, "-i", prepared, "--format", "csv"], capsys)
    assert code == 2
    assert_one_line_error(err, "do not apply to a directory")


@pytest.mark.spark
@pytest.mark.slow
def test_sgq_prepare_then_run(tmp_path, capsys):
    """The real `sgq prepare` (Spark): its directory gives the CSV's output."""
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("no Java for Spark")
    edges = social_edges(seed=9, n=300, deletions=0.05)
    csv_path = write_edges(tmp_path / "e.csv", edges)
    proc = sgq_proc(["prepare", csv_path, "--output", tmp_path / "prepared"], timeout=600)
    assert proc.returncode == 0, proc.stderr
    for emit in ("intervals", "deltas"):
        a, _ = _run_to_file(tmp_path, capsys, csv_path, emit=emit, name="a.csv")
        b, _ = _run_to_file(tmp_path, capsys, tmp_path / "prepared", emit=emit, name="b.csv")
        assert a.read_bytes() == b.read_bytes()


@pytest.mark.parametrize("operator", ["auto", "spath", "closure"])
def test_deltas_of_a_quoted_output_label_are_quoted(tmp_path, capsys, operator):
    """Vertices known plain do not make a label plain: an output predicate named `"a,b"`
    is quoted in every delta line (the writer checks what it cannot know plain)."""
    program = tmp_path / "q.dl"
    program.write_text(
        '.window 10\n.output "a,b", C\n"a,b"(x, y) :- knows+(x, y).\nC(x, y) :- knows(x, y).\n'
    )
    edges = [("p1", "p2", "knows", 0, "+"), ("p2", "p3", "knows", 1, "+")]
    path = write_edges(tmp_path / "e.csv", edges)
    out = tmp_path / "out.csv"
    code, _, err = sgq_main(
        ["run", program, "--input", path, "--output", out, "--no-progress", "--emit", "deltas"]
        + ["--path-operator", operator],
        capsys,
    )
    assert code == 0, err
    text = out.read_text(encoding="utf-8")
    assert '0,+,p1,p2,"a,b"\n' in text and "0,+,p1,p2,C\n" in text
    _header, rows = read_result(out)
    assert sorted(r for r in rows if r[4] == "a,b") == [
        ("0", "+", "p1", "p2", "a,b"),
        ("1", "+", "p1", "p3", "a,b"),
        ("1", "+", "p2", "p3", "a,b"),
        ("10", "-", "p1", "p2", "a,b"),
        ("10", "-", "p1", "p3", "a,b"),
        ("11", "-", "p2", "p3", "a,b"),
    ]
