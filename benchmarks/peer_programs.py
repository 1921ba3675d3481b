"""The C++ peers measured in the same run as sgq: S-PATH and LM-SRPQ (the LM-SRPQ paper's
code), on the regular path queries of the shared and the real streams.

The peers are not part of sgq: a user builds them outside the repository and hands the suite
the program (`sgq bench --systems engine,spath,lmsrpq --peer-program PATH`); docs/benchmarks.md
says how it was built for the recorded runs. Their program reads whitespace-separated integer
lines `src trg label ts`, so the suite writes each shared stream once in that form (vertices
and labels numbered in order of first appearance) into its cache. The program takes the
algorithm (1 S-PATH, 2 LM-SRPQ), the stream, the window in days, the slide in hours, its
query number and the query's label codes; it processes edge by edge, expires once per slide
and only counts result pairs. Each measurement is the whole process (reading its file
included), as its own figures are.
"""

from __future__ import annotations

import csv
import gzip
import json
import os
import re
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from sgq.base.errors import UserError

from .workloads import DAY, Workload

#: system name -> the program's algorithm number
ALGORITHMS = {"spath": 1, "lmsrpq": 2}

#: shared workload -> (the program's query number, the query's labels in its argument order):
#: Q1 `a*` is query 1, Q2 `a/b*` query 3, RPQ8 `a*/b*` query 8, RPQ10 `(a|b|c)*` query 10
QUERIES: dict[str, tuple[int, tuple[str, ...]]] = {
    "shared-snb-q1": (1, ("knows",)),
    "shared-snb-q2": (3, ("likes", "replyOf")),
    "shared-snb-rpq8": (8, ("hasCreator", "knows")),
    "shared-snb-rpq10": (10, ("knows", "replyOf", "hasCreator")),
    "shared-so-q1": (1, ("a2q",)),
    "shared-so-q2": (3, ("a2q", "c2a")),
    "shared-so-rpq8": (8, ("a2q", "c2a")),
    "shared-so-rpq10": (10, ("a2q", "c2a", "c2q")),
    "real-collegemsg-q1": (1, ("msg",)),
    "real-hospital-q2": (3, ("pat", "nur")),
    "real-high-school-q1": (1, ("contact",)),
    "real-primary-school-q1": (1, ("contact",)),
    "real-flights-q1": (1, ("flight",)),
}


def runs_on(system: str, w: Workload) -> bool:
    """Whether `system` is a peer that has `w`'s query (the peers run the regular path queries
    of the shared and the real streams that their program knows)."""
    return system not in ALGORITHMS or w.name in QUERIES


def check_program(program: str | None) -> str:
    """The peer program's absolute path, or a UserError saying what is wrong with it."""
    if not program:
        raise UserError(
            "--systems spath/lmsrpq need --peer-program PATH: the LM-SRPQ paper's demo "
            "program, built outside this repository (docs/benchmarks.md says how)"
        )
    path = Path(program).expanduser().resolve()
    if not path.is_file() or not os.access(path, os.X_OK):
        raise UserError(f"--peer-program {program}: not an executable file")
    return str(path)


def integer_stream(stream: Path, cache: Path) -> tuple[Path, dict[str, int]]:
    """`stream` (a CSV stream `src,trg,label,ts` and maybe property columns, gzipped or not)
    as the peers' integer lines, written once into `cache`; with the label codes used."""
    name = stream.name.removesuffix(".gz").removesuffix(".csv")
    out = cache / f"peer-{name}.txt"
    codes_file = cache / f"peer-{name}.labels.json"
    if out.exists() and codes_file.exists():
        return out, json.loads(codes_file.read_text(encoding="utf-8"))
    cache.mkdir(parents=True, exist_ok=True)
    vertices: dict[str, int] = {}
    labels: dict[str, int] = {}
    opener = gzip.open if stream.suffix == ".gz" else open
    tmp = out.with_suffix(".tmp")
    with (
        opener(stream, "rt", encoding="utf-8", newline="") as src,
        open(tmp, "w", encoding="utf-8") as dst,
    ):
        rows = csv.reader(src)
        header = next(rows, [])
        if header[:4] != ["src", "trg", "label", "ts"]:
            raise UserError(f"{stream}: expected the columns src,trg,label,ts, got {header}")
        # (the columns after them are the edges' properties, which the peers do not read)
        for s, t, label, ts, *_properties in rows:
            a = vertices.setdefault(s, len(vertices))
            b = vertices.setdefault(t, len(vertices))
            c = labels.setdefault(label, len(labels))
            dst.write(f"{a} {b} {c} {ts}\n")
    os.replace(tmp, out)
    codes_file.write_text(json.dumps(labels), encoding="utf-8")
    return out, labels


def command(system: str, w: Workload, data: Path, codes: dict[str, int], program: str) -> list:
    """The peer's command line for workload `w` over its integer stream `data`."""
    if w.window % DAY or w.slide % 3600:
        raise UserError(f"{w.name}: the peers take windows in days and slides in hours")
    query, labels = QUERIES[w.name]
    missing = [label for label in labels if label not in codes]
    if missing:
        raise UserError(f"{w.name}: labels {missing} are not in the stream")
    return [
        program,
        str(ALGORITHMS[system]),
        str(data),
        str(w.window // DAY),
        str(w.slide // 3600),
        str(query),
        *(str(codes[label]) for label in labels),
    ]


#: the result count the peers print at each checkpoint (one per window length of slides)
_RESULTS = re.compile(r"result pair size: (\d+)")
#: the line the program prints at each slide
_SLIDES = re.compile(r"^\d+ slices have been inserted$", re.MULTILINE)


def run_peer(
    system: str, workload: Workload, stream: str, program: str, cache: str, limit: float
) -> dict:
    """One run of a peer over the workload's stream: the whole process, timed from outside
    (wall clock, and its CPU and peak RSS from the OS's accounting of the finished child);
    stopped after `limit` seconds."""
    data, codes = integer_stream(Path(stream), Path(cache).resolve())
    argv = command(system, workload, data, codes, program)
    with open(data, "rb") as lines:
        edges = sum(1 for _ in lines)
    with tempfile.TemporaryDirectory(prefix="sgq-peer-") as work:
        # the program writes its memory, latency and speed files into its working directory
        with open(Path(work) / "stdout", "w+", encoding="utf-8") as out:
            start = time.perf_counter()
            proc = subprocess.Popen(argv, cwd=work, stdout=out, stderr=subprocess.DEVNULL)
            peak_kb, usage, status = follow_child(proc.pid, start + limit)
            seconds = time.perf_counter() - start
            out.seek(0)
            printed = out.read()
    if usage is None:
        return {"error": f"timeout after {limit:.0f}s", "timed_out": limit}
    if status != 0:
        return {"error": f"{Path(program).name} exited with {status}"}
    cpu = usage.ru_utime + usage.ru_stime
    slides = len(_SLIDES.findall(printed))
    if slides == 0:
        # the program exits 0 on a file it cannot open, having read nothing; the demo of a
        # later commit than the one docs/benchmarks.md names prints no slide
        return {
            "error": f"{Path(program).name} slid no window over {data} (no 'N slices have "
            "been inserted' line: it read nothing, or it is not the LM-SRPQ demo of commit "
            "bc3b807 that docs/benchmarks.md names)"
        }
    counts = _RESULTS.findall(printed)
    return {
        "edges": edges,
        "seconds": seconds,
        "cpu_seconds": cpu,
        "throughput": edges / seconds if seconds else 0.0,
        "slides": slides,
        # the program prints its result-pair count at every window length of slides
        **({"last_checkpoint_results": int(counts[-1])} if counts else {}),
        "peak_rss_mb": peak_kb / 1024.0,
        "command": " ".join(["PEER_PROGRAM", *argv[1:2], Path(argv[2]).name, *argv[3:]]),
    }


#: seconds between two readings of the running child's high-water RSS
_POLL = 0.02


def follow_child(pid: int, deadline: float) -> tuple[int, object, int]:
    """Wait for the child `pid` (a peer, or the yardstick: yardstick.py): (its peak RSS in
    KB, its resource usage, its exit status), or usage None when it was killed at `deadline`.
    The peak is read from /proc while it runs (every `_POLL` seconds: a peak held for less may
    be missed): the OS's own figure for a child (ru_maxrss) counts the forking interpreter's
    size too."""
    peak = 0
    while True:
        try:
            with open(f"/proc/{pid}/status", encoding="ascii") as status:
                for line in status:
                    if line.startswith("VmHWM:"):
                        peak = max(peak, int(line.split()[1]))
        except OSError:
            pass
        done, status, usage = os.wait4(pid, os.WNOHANG)
        if done:
            return peak, usage, os.waitstatus_to_exitcode(status)
        if time.perf_counter() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.wait4(pid, 0)
            return peak, None, -1
        time.sleep(_POLL)
