"""Helpers for the `sgq run` end-to-end tests: run the command (as a subprocess or in
process), write edge files, and compute what the Python API gives for the same edges."""

from __future__ import annotations

import csv
import gzip
import io
import json
import os
import random
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import sgq
from sgq.cli import main

REPO = Path(__file__).resolve().parents[2]
NOTIFICATION = REPO / "specs" / "queries" / "examples" / "notification.dl"
NOTIFICATION_CSV = REPO / "specs" / "streams" / "notification.csv"
Q7 = REPO / "specs" / "queries" / "sga" / "snb" / "q7.dl"  # a join and two closures
Q4 = REPO / "specs" / "queries" / "sga" / "snb" / "q4.dl"  # a regular path (a/b/c)+

INTERVAL_HEADER = "src,trg,label,ts,exp"
DELTA_HEADER = "time,op,src,trg,label"

STATS = re.compile(
    r"^sgq run: (?P<edges>[\d,]+) edges, (?P<rows>[\d,]+) (?P<what>results|deltas) in "
    r"[\d.]+s \([^)]*edges/s\), peak state [\d,]+(?P<extra>.*)$"
)


# ---- running the command ----------------------------------------------------------------


def sgq_proc(
    args,
    *,
    stdin: bytes | None = None,
    hashseed="0",
    env: dict | None = None,
    cwd=None,
    timeout: float = 120,
) -> subprocess.CompletedProcess:
    """`python -m sgq ARGS` in a fresh process (bytes stdout, text stderr)."""
    e = dict(os.environ)
    e["PYTHONHASHSEED"] = str(hashseed)
    if env:
        e.update(env)
    proc = subprocess.run(
        [sys.executable, "-m", "sgq", *map(str, args)],
        input=stdin,
        capture_output=True,
        env=e,
        cwd=cwd,
        timeout=timeout,
    )
    proc.stderr = proc.stderr.decode("utf-8", errors="replace")
    return proc


def sgq_main(args, capsys) -> tuple[int, str, str]:
    """`sgq ARGS` in this process: (exit code, stdout, stderr)."""
    capsys.readouterr()
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def stats_of(stderr: str) -> dict:
    """The final stats line's numbers: edges, rows, what, skipped, dropped, unmatched."""
    lines = [
        line
        for line in stderr.splitlines()
        if line.startswith("sgq run: ") and " edges, " in line and "edges/s" in line
    ]
    assert len(lines) == 1, stderr
    m = STATS.match(lines[0])
    assert m, lines[0]
    extra = m["extra"]

    def count(pattern):
        hit = re.search(pattern, extra)
        return int(hit[1].replace(",", "")) if hit else 0

    return {
        "edges": int(m["edges"].replace(",", "")),
        "rows": int(m["rows"].replace(",", "")),
        "what": m["what"],
        "skipped": count(r"([\d,]+) bad lines skipped"),
        "dropped": count(r"([\d,]+) late edges dropped"),
        "unmatched": count(r"([\d,]+) deletions matched nothing"),
        "extra": extra,
    }


def assert_one_line_error(stderr: str, *pieces: str) -> str:
    """stderr is one `sgq run: error: ...` line holding every piece; never a traceback."""
    assert "Traceback" not in stderr, stderr
    errors = [line for line in stderr.splitlines() if line.startswith("sgq run: error: ")]
    assert len(errors) == 1, stderr
    for piece in pieces:
        assert piece in errors[0], (piece, errors[0])
    return errors[0]


# ---- edge files -----------------------------------------------------------------------


def social_edges(
    seed: int,
    n: int,
    *,
    deletions: float = 0.0,
    users: int = 8,
    messages: int = 14,
    step: int = 2500,
) -> list[tuple]:
    """A time-ordered stream `(src, trg, label, ts, op)` for the notification program:
    follows(u, u), likes(u, m), posts(u, m); ties on purpose, and with `deletions` a share
    of `-` lines deleting an earlier insert (some of them long expired)."""
    rng = random.Random(seed)
    out: list[tuple] = []
    inserted: list[tuple] = []
    t = 0
    for _ in range(n):
        if rng.random() < 0.6:
            t += rng.randint(1, step)
        if inserted and rng.random() < deletions:
            s, d, label = rng.choice(inserted)
            out.append((s, d, label, t, "-"))
            continue
        label = rng.choice(("follows", "follows", "likes", "posts"))
        s = f"u{rng.randrange(users)}"
        if label == "follows":
            d = f"u{rng.randrange(users)}"
        else:
            d = f"m{rng.randrange(messages)}"
        out.append((s, d, label, t, "+"))
        inserted.append((s, d, label))
    return out


def write_edges(
    path,
    edges,
    *,
    header: bool = True,
    fmt: str = "csv",
    op: bool = True,
    columns=("src", "trg", "label", "ts", "op"),
) -> Path:
    """Write `edges` as csv / tsv / jsonl (objects) / jsonl-arrays; `.gz` paths are
    gzip'd. `columns` reorders the columns (op dropped when `op` is False)."""
    path = Path(path)
    cols = [c for c in columns if op or c != "op"]
    index = {"src": 0, "trg": 1, "label": 2, "ts": 3, "op": 4}
    rows = [[e[index[c]] for c in cols] for e in edges]
    buf = io.StringIO()
    if fmt in ("csv", "tsv"):
        w = csv.writer(buf, delimiter="," if fmt == "csv" else "\t", lineterminator="\n")
        if header:
            w.writerow(cols)
        w.writerows(rows)
    elif fmt == "jsonl":
        for r in rows:
            buf.write(json.dumps(dict(zip(cols, r))) + "\n")
    elif fmt == "jsonl-arrays":
        for r in rows:
            buf.write(json.dumps(r) + "\n")
    else:
        raise ValueError(fmt)
    data = buf.getvalue().encode("utf-8")
    if path.name.endswith(".gz"):
        data = gzip.compress(data)
    path.write_bytes(data)
    return path


def read_edges_csv(path) -> list[tuple]:
    """The edges of a csv file with the header src,trg,label,ts[,op]."""
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    out = []
    for r in rows[1:]:
        out.append((r[0], r[1], r[2], int(r[3]), r[4] if len(r) > 4 else "+"))
    return out


def read_result(path_or_text) -> tuple[str, list[tuple]]:
    """(header line, rows as tuples of strings) of a CSV result file or text."""
    text = (
        path_or_text
        if isinstance(path_or_text, str)
        else Path(path_or_text).read_text(encoding="utf-8")
    )
    lines = text.splitlines()
    assert lines, "empty result"
    rows = [tuple(r) for r in csv.reader(lines[1:])]
    return lines[0], rows


# ---- what the Python API says ---------------------------------------------------------


def api_rows(
    program,
    edges,
    emit: str = "intervals",
    *,
    sort_rounds: bool = False,
    window=None,
    slide=None,
    close: bool = True,
) -> list[tuple]:
    """The rows `sgq run` writes for time-ordered `edges`, computed with sgq.compile and the
    Engine directly: one push_batch per timestamp, drain after each; intervals sorted per
    round by (src, trg, label) when `sort_rounds` (checkpoint mode). As tuples of strings."""
    query = sgq.compile(str(program), window=window, slide=slide)
    eng = query.engine(history=False)
    view = eng.delta_view() if emit == "deltas" else None
    out: list[tuple] = []

    def take():
        results = eng.drain()
        if view is not None:
            out.extend(tuple(map(str, row)) for row in view.feed(results, eng.time))
            return
        rows = [(r.src, r.trg, r.label, str(r.ts), str(r.exp)) for r in results]
        if sort_rounds:
            rows.sort(key=lambda r: r[:3])
        out.extend(rows)

    group: list = []
    for e in edges:
        if group and e[3] != group[0][3]:
            eng.push_batch(group)
            take()
            group = []
        group.append(e)
    if group:
        eng.push_batch(group)
        take()
    if close:
        eng.close()
        take()
        if view is not None:
            out.extend(tuple(map(str, row)) for row in view.close())
    return out


def prepared_dir(root, edges, parts=3, row_group_size=50):
    """The layout `sgq prepare` writes (see tests/prepare/test_parquet_input.py): stably
    time-sorted edges in Parquet parts listed by _PREPARED.json."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from sgq.parquet_input import MANIFEST

    rows = sorted(edges, key=lambda e: e[3])
    os.makedirs(root / "edges", exist_ok=True)
    size = -(-len(rows) // parts)
    names = []
    for i in range(parts):
        chunk = rows[i * size : (i + 1) * size]
        cols = list(zip(*chunk))
        table = pa.table(
            {
                "src": pa.array(cols[0], pa.string()),
                "trg": pa.array(cols[1], pa.string()),
                "label": pa.array(cols[2], pa.string()),
                "ts": pa.array(cols[3], pa.int64()),
                "op": pa.array(cols[4], pa.string()),
            }
        )
        name = f"edges/part-{i:05d}.parquet"
        pq.write_table(table, root / name, row_group_size=row_group_size)
        names.append(name)
    (root / MANIFEST).write_text(
        json.dumps({"format": "sgq-prepared-1", "edges": names, "written": len(rows)})
    )
    return root


def multiset(rows) -> Counter:
    return Counter(tuple(r) for r in rows)
