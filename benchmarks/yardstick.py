"""The per-slide recompute program measured in the same run as sgq: the yardstick of the
shared and the real streams, the program a user would write instead of sgq.

It is not part of sgq: a plain Python program kept outside this repository that rebuilds the
window at every slide's end and evaluates the query from scratch with a hand-picked plan. A
user hands the suite its path (`sgq bench --systems engine,recompute --yardstick-program
PATH`); docs/benchmarks.md says which program the recorded runs used. Its command line:

    PROGRAM --input STREAM.csv --query NAME --labels A[,B[,C]] --window Ns --slide Ns

where NAME is one of Q1 `a*`, Q2 `a/b*`, RPQ8 `a*/b*`, RPQ10 `(a|b|c)*`, Q5 (the cyclic join of
four atoms) and Q6 (`a+` joined with two atoms), the labels bound to a, b, c in order; it
prints one JSON line with its `result` (the pairs of the last slide's snapshot). It reads a
plain CSV file, so a gzipped stream is written out once into the cache. Each measurement is
its whole process, timed from outside as the C++ peers are (peer_programs.py): wall clock, CPU
and peak RSS from the OS's accounting of the finished child. It writes nothing: sgq's figures
include writing its whole delta output.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from sgq.base.errors import UserError

from .peer_programs import QUERIES as PEER_QUERIES
from .peer_programs import follow_child
from .workloads import Workload

#: the path queries by the C++ peers' query number (peer_programs.QUERIES): Q1 `a*`, Q2
#: `a/b*`, RPQ8 `a*/b*`, RPQ10 `(a|b|c)*`
_PATH_QUERIES = {1: "Q1", 3: "Q2", 8: "RPQ8", 10: "RPQ10"}

#: workload -> (the program's query name, the query's labels bound to a, b, c): the peers'
#: path queries, and the joins Q5 and Q6 of the shared streams
QUERIES: dict[str, tuple[str, tuple[str, ...]]] = {
    **{name: (_PATH_QUERIES[number], labels) for name, (number, labels) in PEER_QUERIES.items()},
    "shared-snb-q5": ("Q5", ("knows", "hasCreator", "replyOf")),
    "shared-snb-q6": ("Q6", ("knows", "likes", "hasCreator")),
    "shared-so-q5": ("Q5", ("a2q", "c2a", "c2q")),
    "shared-so-q6": ("Q6", ("a2q", "c2a", "c2q")),
}


def runs_on(w: Workload) -> bool:
    """Whether the yardstick has `w`'s query."""
    return w.name in QUERIES


def check_program(program: str | None) -> str:
    """The yardstick program's absolute path, or a UserError saying what is wrong."""
    if not program:
        raise UserError(
            "--systems recompute needs --yardstick-program PATH: the per-slide recompute "
            "program kept outside this repository (docs/benchmarks.md says which)"
        )
    path = Path(program).expanduser().resolve()
    if not path.is_file():
        raise UserError(f"--yardstick-program {program}: not a file")
    return str(path)


def plain_stream(stream: Path, cache: Path) -> Path:
    """`stream` as a plain CSV file: itself, or a gzipped one decompressed once into `cache`."""
    if stream.suffix != ".gz":
        return stream
    out = cache / f"plain-{stream.name.removesuffix('.gz')}"
    if not out.exists():
        cache.mkdir(parents=True, exist_ok=True)
        tmp = out.with_suffix(".tmp")
        with gzip.open(stream, "rb") as src, open(tmp, "wb") as dst:
            shutil.copyfileobj(src, dst)
        os.replace(tmp, out)
    return out


def command(w: Workload, data: Path, program: str) -> list[str]:
    """The yardstick's command line for workload `w` over the plain CSV `data`."""
    query, labels = QUERIES[w.name]
    return [
        sys.executable,
        program,
        "--input",
        str(data),
        "--query",
        query,
        "--labels",
        ",".join(labels),
        "--window",
        f"{w.window}s",
        "--slide",
        f"{w.slide}s",
    ]


def run_yardstick(workload: Workload, stream: str, program: str, cache: str, limit: float) -> dict:
    """One run of the yardstick over the workload's stream, its whole process timed from
    outside (wall clock, CPU, peak RSS); stopped after `limit` seconds."""
    data = plain_stream(Path(stream), Path(cache).resolve())
    argv = command(workload, data, program)
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    peak_kb, usage, status = follow_child(proc.pid, start + limit)
    seconds = time.perf_counter() - start
    out, err = proc.stdout.read(), proc.stderr.read()  # (small: one JSON line, or an error)
    proc.stdout.close()
    proc.stderr.close()
    if usage is None:
        return {"error": f"timeout after {limit:.0f}s", "timed_out": limit}
    if status != 0:
        tail = err.decode("utf-8", "replace").strip().splitlines()[-2:]
        return {"error": " | ".join(tail) or f"exit {status}"}
    try:
        printed = json.loads(out.decode("utf-8").strip().splitlines()[-1])
    except (ValueError, IndexError):
        return {"error": "the yardstick printed no JSON line"}
    edges = int(printed.get("edges", 0))
    return {
        "edges": edges,
        "seconds": seconds,
        "cpu_seconds": usage.ru_utime + usage.ru_stime,
        "throughput": edges / seconds if seconds else 0.0,
        "last_results": printed.get("result"),
        "peak_rss_mb": peak_kb / 1024.0,
        "command": " ".join(["python", "YARDSTICK_PROGRAM", *argv[2:3], data.name, *argv[4:]]),
    }
