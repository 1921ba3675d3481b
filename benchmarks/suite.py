"""The benchmark suite: generate streams, run every system on every workload in a fresh
subprocess, repeat, and keep medians; ratios are always taken within one suite run.

`python -m sgq.benchmarks.suite` and `sgq bench` drive this module.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import attrs
from sgq.base.options import PlanOptions

from .peer_programs import ALGORITHMS
from .workloads import Workload, specs_dir


def stream_file(w: Workload, cache: Path, data_from: dict | None = None) -> Path:
    """The workload's stream as CSV: a recorded stream of benchmarks/streams/, a public
    dataset converted once into the cache (`data_from`: dataset name -> the file `sgq data
    get --from` takes, for a dataset no installed package ships), or generated once and
    cached by its parameters."""
    from sgq.generators import generate, write_csv

    from .workloads import STREAMS

    if w.dataset is not None:
        from sgq.datasets import stream, write_stream

        path = cache / str(w.stream)
        if not path.exists():
            cache.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".tmp")
            write_stream(stream(w.dataset, (data_from or {}).get(w.dataset)), tmp)
            os.replace(tmp, path)
        return path
    if w.stream is not None:
        return STREAMS / w.stream
    cache.mkdir(parents=True, exist_ok=True)
    name = f"{w.kind}-{w.edges}-d{w.days}-s{w.seed}-x{w.deletions:g}.csv"
    path = cache / name
    if not path.exists():
        tmp = path.with_suffix(".tmp")
        with open(tmp, "w", encoding="utf-8", newline="") as out:
            write_csv(
                generate(w.kind, w.edges, seed=w.seed, days=w.days, deletions=w.deletions), out
            )
        os.replace(tmp, path)
    return path


#: the re-evaluation baseline's own program (run by its path: reeval_process.py says why)
REEVAL_PROCESS = Path(__file__).resolve().parent / "reeval_process.py"


def reeval_command(w: Workload, stream: Path, deltas: str) -> list[str]:
    """The command of the re-evaluation baseline over the whole of `w`'s stream, writing its
    delta rows to `deltas`."""
    return [
        sys.executable,
        str(REEVAL_PROCESS),
        str(stream),
        str(specs_dir() / w.query),
        "--window",
        str(w.window),
        "--slide",
        str(w.slide),
        "--deltas",
        deltas,
    ]


def run_child(system: str, w: Workload, stream: Path, timeout: float, **kw) -> dict:
    """Run one measurement in a fresh interpreter; its JSON result, or an error record. With
    `whole`, the re-evaluation baseline runs as its own program (`reeval_command`), its
    delta rows written to a file of a temporary folder."""
    if system == "reeval" and kw.get("whole"):
        import tempfile

        with tempfile.TemporaryDirectory(prefix="sgq-reeval-") as folder:
            argv = reeval_command(w, stream, str(Path(folder) / "deltas.csv"))
            return _timed_child(system, argv, "", timeout)
    payload = json.dumps(
        {
            "system": system,
            "workload": attrs.asdict(w),
            "stream": str(stream),
            "query": str(specs_dir() / w.query),
            "kw": kw,
        }
    )
    return _timed_child(system, [sys.executable, "-m", "sgq.benchmarks.child"], payload, timeout)


def _timed_child(system: str, argv: list[str], payload: str, timeout: float) -> dict:
    """Run `argv` with `payload` on its stdin, timed from its start to its exit."""
    began = time.perf_counter()
    try:
        proc = subprocess.run(
            argv,
            input=payload,
            text=True,
            capture_output=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired as exc:
        # keep what the measurement printed so far (measure.print_partial)
        partial = _last_json(exc.stdout)
        if partial is None:
            return {"error": f"timeout after {timeout:.0f}s", "timed_out": timeout}
        return dict(partial, timed_out=timeout)
    process_seconds = time.perf_counter() - began
    if proc.returncode != 0:
        tail = (proc.stderr or "").strip().splitlines()[-3:]
        return {"error": " | ".join(tail) or f"exit {proc.returncode}"}
    result = _last_json(proc.stdout)
    if result is None:
        return {"error": "no result printed"}
    if system in ALGORITHMS:  # (a peer's figures are its own program's whole process)
        return result
    return _with_process_figures(result, process_seconds)


def _with_process_figures(result: dict, seconds: float) -> dict:
    """`result` with the child's wall time from its start to its exit (`process_seconds`:
    the interpreter's start, the imports and the program's compilation included) and the
    edges per second over it (`process_throughput`): the measure of the peers' figures
    (peer_programs.py), where `throughput` times the measured loop only. Not for
    a peer, whose child only waits for the peer's own program."""
    result["process_seconds"] = seconds
    if result.get("edges") and seconds > 0:
        result["process_throughput"] = result["edges"] / seconds
    return result


def _last_json(out) -> dict | None:
    """The last JSON object line of a child's stdout (str or bytes), if any."""
    if isinstance(out, bytes):
        out = out.decode("utf-8", "replace")
    for line in reversed((out or "").strip().splitlines()):
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return None


def _median_of(runs: list[dict]) -> dict:
    """Medians of numeric fields (nested one level) over repeated runs."""
    ok = [r for r in runs if "error" not in r]
    if not ok:
        return runs[0] if runs else {"error": "no run"}
    out: dict = {"runs": len(ok)}
    for key, value in ok[0].items():
        if isinstance(value, bool):
            out[key] = value
        elif isinstance(value, (int, float)):
            out[key] = statistics.median(r[key] for r in ok)
        elif isinstance(value, dict) and all(isinstance(v, (int, float)) for v in value.values()):
            out[key] = {k: statistics.median(r[key][k] for r in ok) for k in value}
        else:
            out[key] = value
    return out


def machine_info() -> dict:
    info = {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "processor": platform.processor() or platform.machine(),
    }
    commit = _git_commit()
    if commit:
        info["commit"] = commit
    try:
        with open("/proc/meminfo") as fh:
            info["memory_gb"] = round(int(fh.readline().split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    return info


def _git_commit() -> str | None:
    """The checkout's commit (with `+changes` when the tree differs), when in a git checkout."""
    root = Path(__file__).resolve().parent.parent

    def git(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(["git", *args], cwd=root, text=True, capture_output=True, timeout=10)

    try:
        head = git("rev-parse", "--short", "HEAD")
        dirty = git("status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.SubprocessError):
        return None
    if head.returncode != 0:
        return None
    return head.stdout.strip() + ("+changes" if dirty.stdout.strip() else "")


#: a measurement whose first run takes longer than this (seconds) is not repeated
SLOW_RUN = 120.0


def run_suite(
    workloads: list[Workload],
    systems: tuple[str, ...],
    repeat: int,
    cache: Path,
    timeout: float = 600.0,
    log: Callable[[str], None] = print,
    reeval_slides: int | None = 5,
    save: Callable[[dict], None] | None = None,
    options: PlanOptions = PlanOptions(),
    peer_program: str | None = None,
    data_from: dict | None = None,
    yardstick_program: str | None = None,
) -> dict:
    """Every system on every workload, `repeat` times each; medians and same-run ratios.
    `save` gets the result so far after each workload (a long run that is stopped keeps its
    finished workloads). `options` plan the engine's query (A/B runs: `sgq bench
    --no-rewrite shared_chains` against the same command without it). `peer_program`: the
    C++ peers' program, for the systems spath and lmsrpq (peer_programs.py);
    `yardstick_program`: the per-slide recompute program, for the system recompute
    (yardstick.py)."""
    from . import yardstick
    from .peer_programs import runs_on

    started = time.time()
    rows: list = []
    machine = machine_info()

    def result() -> dict:
        return {
            "started": started,
            "seconds": time.time() - started,
            "machine": machine,
            "repeat": repeat,
            "slow_run": SLOW_RUN,
            "rows": list(rows),
        }

    for w in workloads:
        stream = stream_file(w, cache, data_from)
        row: dict = {"workload": attrs.asdict(w)}
        plans: dict = {}  # system -> the child's keywords
        for system in systems:
            if w.query.startswith("timing/") and system != "engine":
                continue  # the baselines have no time variables (specs/semantics.md §4b)
            if w.query.startswith("rspq/") and system == "reeval":
                continue  # nor does the re-evaluation search simple paths (§4a)
            if not runs_on(system, w):
                continue  # the peers run regular path queries of the shared and real streams
            if system == "recompute" and not yardstick.runs_on(w):
                continue  # nor does the yardstick know every query
            kw = {}
            if system in ("spath", "lmsrpq", "recompute"):
                # a program of its own, stopped by its own limit a little inside the child's
                program = yardstick_program if system == "recompute" else peer_program
                kw = {"program": program, "cache": str(cache), "limit": timeout - 5}
            if system == "engine" and options != PlanOptions():
                kw = {"options": options.as_dict()}
            if system == "reeval":
                # on the shared streams: every slide, as a process of its own timed whole
                # like the engine (throughput), not only a few full-window slides (latency)
                kw = {"whole": True} if w.stream else {"max_slides": reeval_slides}
            plans[system] = kw
        # the repeats go round the systems (engine, reeval, engine, ...), not one system's
        # runs in a row: a machine whose speed drifts over minutes then shifts every system
        # alike, and the same-run ratios hold (in a row, a slow stretch fell on one system)
        runs: dict = {system: [] for system in plans}
        stopped: set = set()  # spark runs once; a slow or timed-out run is not repeated
        for _ in range(repeat):
            for system, kw in plans.items():
                if system in stopped:
                    continue
                t0 = time.time()
                runs[system].append(run_child(system, w, stream, timeout, **kw))
                if (
                    system == "spark"
                    or time.time() - t0 > SLOW_RUN
                    or "timed_out" in runs[system][-1]
                ):
                    stopped.add(system)
        for system, done in runs.items():
            row[system] = _median_of(done)
            log(f"  {w.name:<20} {system:<7} {_short(row[system])}")
        row["ratios"] = ratios(row)
        rows.append(row)
        if save is not None:
            save(dict(result(), complete=len(rows) == len(workloads)))
    return result()


def _short(m: dict) -> str:
    if "error" in m:
        return "error: " + m["error"]
    parts = [f"TIMED OUT at {m['timed_out']:.0f}s, figures so far:"] if "timed_out" in m else []
    if "throughput" in m:
        parts.append(f"{m['throughput']:,.0f} edges/s")
    if "latency_slide" in m:
        parts.append(f"slide p50 {m['latency_slide']['p50'] * 1000:,.1f} ms")
    if "peak_rss_mb" in m:
        parts.append(f"rss {m['peak_rss_mb']:,.0f} MB")
    return ", ".join(parts)


def ratios(row: dict) -> dict:
    """engine vs baselines, measured in the same suite run."""
    out = {}
    e, i, r = row.get("engine", {}), row.get("ingest", {}), row.get("reeval", {})
    if "throughput" in e and i.get("throughput"):
        out["throughput_vs_ingest"] = e["throughput"] / i["throughput"]
    if e.get("process_throughput") and r.get("process_throughput"):
        # whole process against whole process (the baseline's loop leaves out no reading)
        out["throughput_vs_reeval"] = e["process_throughput"] / r["process_throughput"]
    for peer in ("spath", "lmsrpq", "recompute", "reeval"):
        # whole process against whole process, by CPU: the peer's CPU over sgq's (the
        # interpreter's start, imports and planning included); > 1: sgq is faster
        p = row.get(peer, {})
        # (a peer stopped at the time limit: its limit, a lower bound of its time)
        done = p.get("timed_out") or p.get(
            "cpu_seconds" if peer != "reeval" else "process_cpu_seconds"
        )
        if e.get("process_cpu_seconds") and done and "timed_out" not in e:
            out[f"cpu_vs_{peer}"] = done / e["process_cpu_seconds"]
            if "timed_out" in p:
                out[f"cpu_vs_{peer}_at_least"] = True
    best = [out[f"cpu_vs_{p}"] for p in ("spath", "lmsrpq", "recompute") if f"cpu_vs_{p}" in out]
    if best:
        # the target: sgq against the fastest of the others (> 1: sgq is faster)
        out["cpu_vs_best"] = min(best)
    y, r = row.get("recompute", {}), row.get("reeval", {})
    if y.get("cpu_seconds") and r.get("process_cpu_seconds") and "timed_out" not in r:
        # the baseline against the yardstick: within 1.2 is the bar (> 1: reeval is slower)
        out["reeval_cpu_over_recompute"] = r["process_cpu_seconds"] / y["cpu_seconds"]
    full = e.get("latency_slide_full") or e.get("latency_slide")
    if full and "latency_slide" in r and full["p50"] > 0:
        out["reeval_slide_latency_over_engine"] = r["latency_slide"]["p50"] / full["p50"]
    return out


def main(argv: list[str] | None = None) -> int:  # pragma: no cover - thin wrapper
    from sgq.commands.bench import main as bench_main

    return bench_main(argv)
