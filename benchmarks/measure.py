"""One measurement: a system run over one workload's stream file, in this process.

Systems (all read and parse the same CSV file, so parsing cost is in every number):
- `engine`: sgq's incremental engine, one batch per timestamp (the product).
- `ingest`: parse + WSCAN only — validity intervals and window contents, no query: the
  ceiling for any engine on this stream.
- `reeval`: the one-time query re-evaluated from scratch on the window's snapshot at slide
  ends (benchmarks/reevaluate.py), the strategy incremental engines replace: here its latency
  per slide on a few full windows; on the shared streams the suite runs it over the whole
  stream as a process of its own (reeval_process.py).
- `spark`: the Spark oracle re-run on the window at each slide boundary (a handful only:
  it costs seconds per slide).
- `spath`, `lmsrpq`: the C++ peers on the shared streams' regular path queries, a program
  built outside the repository (peer_programs.py); they read their own integer form of the
  stream.
- `recompute`: the per-slide recompute program a user would write instead (yardstick.py),
  kept outside the repository, on the shared and real streams' queries it knows.

Each returns a dict of raw figures; `suite.py` runs each in a fresh subprocess (so peak RSS is
the system's own) and takes medians over repetitions.
"""

from __future__ import annotations

import gc
import json
import os
import resource
import time
from collections import deque

from sgq.stream_io import read_edges

from .reeval_run import percentiles as _percentiles
from .workloads import Workload


def _process_cpu() -> float:
    """CPU seconds of this whole process so far: the interpreter's start, the imports and the
    planning included (the figure to set beside a peer's whole process)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


#: seconds between the partial results a long measurement prints (kept if it times out)
PARTIAL_EVERY = 15.0


def print_partial(result: dict) -> None:
    """One JSON line of what a measurement has so far: `suite.run_child` keeps the last one
    when it has to stop the measurement at its timeout."""
    print(json.dumps(dict(result, partial=True)), flush=True)


def _groups(path: str, properties: bool, labels, slide: int, left_out: list[int]):
    """(first t, edges) in the groups `sgq run` hands to the engine: the edges of `labels`
    only (the program's; the others are counted into `left_out[0]`), several instants each,
    one slide's at most; `properties`: the edges carry their properties."""
    from sgq.edge_blocks import counting_left_out
    from sgq.evaluation import block_batches
    from sgq.reorder import ordered_blocks
    from sgq.stream_io import read_blocks

    def count(n: int) -> None:
        left_out[0] += n

    blocks = counting_left_out(read_blocks(path, properties=properties, labels=labels), count)
    for batch in block_batches(ordered_blocks(blocks, path, [0]), False, slide):
        yield batch[0][3], batch


def _batches(path: str, properties: bool):
    """(t, edges of time t) in stream order; `properties`: the edges carry their properties."""
    batch: list = []
    current = None
    for edge in read_edges(path, properties=properties):
        if edge[3] != current:
            if batch:
                yield current, batch
            batch = []
            current = edge[3]
        batch.append(edge)
    if batch:
        yield current, batch


def run_engine(
    workload: Workload, stream: str, query_path: str, options: dict | None = None
) -> dict:
    """The incremental engine: throughput, latency per timestamp batch and per slide, state.
    On a shared stream (`workload.stream`) the whole delta output is written to a file as
    `sgq run --emit deltas -o FILE` writes it, and that is part of every figure. `options`:
    the plan options (`PlanOptions.as_dict()`, base/options.py), default ones when None; with
    the optimizer on, the plan is chosen over the statistics of the stream's first edges, as
    `sgq run` chooses it. `cpu_seconds` is the process CPU time of the run (the figure to
    compare on a loaded machine), `plan_cpu_seconds` that of planning (sampling included),
    `optimized` whether the optimizer chose a plan other than today's."""
    import tempfile

    from sgq.base.options import PlanOptions
    from sgq.incremental.deltas import DELTA_FIELDS

    from sgq.api import compile as compile_query
    from sgq.evaluation import properties_kept
    from sgq.sampling import sample_input
    from sgq.stream_io import ResultWriter, file_head

    with open(query_path, encoding="utf-8") as handle:
        text = handle.read()
    if workload.untimed:
        from sgq.datalog.parser import parse
        from sgq.datalog.printer import print_program
        from sgq.datalog.untimed import without_time

        text = print_program(without_time(parse(text, query_path)))
    plan_options = PlanOptions(**(options or {}))
    plan_cpu = time.process_time()
    # with the optimizer on, the statistics `sgq run` would plan with: the first edges, read
    # only when the rules give the plan alternatives
    query = compile_query(
        text,
        filename=query_path,
        window=workload.window,
        slide=workload.slide,
        options=plan_options,
        statistics=lambda: sample_input(stream).statistics,
    )
    plan_cpu = time.process_time() - plan_cpu
    optimized = query.optimized is not None and query.optimized.chosen is not query.optimized.today
    # the input's properties as `sgq run` hands them over (only where the engine needs them)
    properties = properties_kept(query, file_head(stream))
    engine = query.engine(history=False, deltas=workload.stream is not None, properties=properties)
    sink = view = writer = None
    if workload.stream is not None:
        sink = tempfile.TemporaryFile("w+", encoding="utf-8", newline="")
        view = engine.delta_view()
        writer = ResultWriter(sink, DELTA_FIELDS)
    batch_lat: list[float] = []
    slide_lat: list[float] = []
    full_slide_lat: list[float] = []  # slides whose window is full (after the warm-up)
    slide_acc = 0.0
    current_slide = None
    full_from = None
    results = 0
    edges = 0
    peak_state = 0
    peak_by_operator: dict[str, int] = {}
    gc.collect()
    start = time.perf_counter()
    start_cpu = time.process_time()
    next_partial = start + PARTIAL_EVERY
    # on a shared stream the edges go in as `sgq run` gives them (groups of instants): the
    # figures are then those of the command a user runs; else one batch per instant
    left_out = [0]  # the edges of labels no rule reads, left out of the groups
    if writer is not None:
        read = _groups(
            stream, properties is not None, engine.dataflow.reads, workload.slide, left_out
        )
    else:
        read = _batches(stream, properties is not None)
    for t, batch in read:
        s = t // workload.slide
        if full_from is None:
            full_from = _full_window_slide(workload, t)
        if s != current_slide:
            if current_slide is not None:
                slide_lat.append(slide_acc)
                if current_slide >= full_from:
                    full_slide_lat.append(slide_acc)
                stats = engine.stats()
                peak_state = max(peak_state, stats.get("state", 0))
                for name, size in stats.get("operators", {}).items():
                    if size > peak_by_operator.get(name, 0):
                        peak_by_operator[name] = size
            current_slide, slide_acc = s, 0.0
        t0 = time.perf_counter()
        engine.push_batch(batch)
        results += _take(engine, view, writer)
        dt = time.perf_counter() - t0
        batch_lat.extend([dt] * len(batch))
        slide_acc += dt
        edges += len(batch)
        if t0 + dt > next_partial:
            spent = t0 + dt - start
            print_partial(
                {
                    "edges": edges,
                    "seconds": spent,
                    "throughput": edges / spent,
                    "cpu_seconds": time.process_time() - start_cpu,
                    "plan_cpu_seconds": plan_cpu,
                    "optimized": optimized,
                    "results": results,
                }
            )
            next_partial = t0 + dt + PARTIAL_EVERY
    edges += left_out[0]
    engine.close()
    results += _take(engine, view, writer)
    if writer is not None:
        writer.write_groups(view.close_grouped())
        writer.flush()
    total = time.perf_counter() - start
    cpu = time.process_time() - start_cpu
    if sink is not None:
        sink.close()
    slide_lat.append(slide_acc)
    stats = engine.stats()
    return {
        "edges": edges,
        "seconds": total,
        "throughput": edges / total if total else 0.0,
        "cpu_seconds": cpu,
        "plan_cpu_seconds": plan_cpu,
        "process_cpu_seconds": _process_cpu(),
        "optimized": optimized,
        "latency_edge": _percentiles(batch_lat),
        "latency_slide": _percentiles(slide_lat),
        "latency_slide_full": _percentiles(full_slide_lat),
        "results": results,
        **({"deltas": writer.rows} if writer is not None else {}),
        "peak_state": max(peak_state, stats.get("peak_state", 0)),
        "state_by_operator": stats.get("operators", {}),
        "peak_state_by_operator": peak_by_operator,
        "peak_rss_mb": _peak_rss_mb(),
    }


def _full_window_slide(workload: Workload, first_time: int) -> int:
    """The first slide whose window holds no warm-up: it starts a whole window after the
    stream's first edge."""
    return -(-(first_time + workload.window) // workload.slide)


def run_ingest(workload: Workload, stream: str, query_path: str) -> dict:
    """Parse + WSCAN: each edge's validity interval, window contents kept in expiry order."""
    window, slide = workload.window, workload.slide
    live: deque = deque()
    edges = 0
    peak = 0
    start = time.perf_counter()
    for src, trg, label, t, _op in read_edges(stream):
        exp = (t // slide) * slide + window
        while live and live[0][3] <= t:
            live.popleft()
        live.append((src, trg, label, exp))
        edges += 1
        if len(live) > peak:
            peak = len(live)
    total = time.perf_counter() - start
    return {
        "edges": edges,
        "seconds": total,
        "throughput": edges / total if total else 0.0,
        "peak_state": peak,
        "peak_rss_mb": _peak_rss_mb(),
    }


def _checked(workload: Workload, query_path: str):
    from sgq.datalog.check import check_text

    with open(query_path, encoding="utf-8") as handle:
        return check_text(handle.read(), query_path, window=workload.window, slide=workload.slide)


def _full_window_snapshots(workload: Workload, stream: str, checked, max_slides: int | None):
    """(τ, snapshot: label -> source -> targets) at the last instants of the first
    `max_slides` slides whose window is full, `-` edges applied (reeval_window.Window)."""
    from .reeval_window import Window, read_stream

    edges, _count, first, last = read_stream(stream, set(checked.edb))
    if first is None:
        return
    window = Window(checked, checked.edb)
    slide = workload.slide
    full_from = _full_window_slide(workload, first)
    taken = i = 0
    for j in range(first // slide, last // slide + 1):
        tau = (j + 1) * slide - 1
        while i < len(edges) and edges[i][3] <= tau:
            window.apply(edges[i])
            i += 1
        window.expire(tau)
        if j < full_from:
            continue
        if max_slides is not None and taken >= max_slides:
            return
        taken += 1
        yield tau, window.live


def run_reeval(
    workload: Workload, stream: str, query_path: str, max_slides: int | None = None
) -> dict:
    """Re-evaluation from scratch (reevaluate.py) of the window's snapshot at the last
    instants of the first `max_slides` slides whose window is full: latency per slide, in
    this process. (On the shared streams the suite times the whole stream's re-evaluation
    as a process of its own instead: reeval_process.py.)"""
    from .reevaluate import Reevaluation

    checked = _checked(workload, query_path)
    evaluation = Reevaluation(checked)
    lat: list[float] = []
    results = 0
    window_edges = 0
    for _tau, snap in _full_window_snapshots(workload, stream, checked, max_slides):
        t0 = time.perf_counter()
        rel = evaluation.evaluate(snap)
        lat.append(time.perf_counter() - t0)
        results = sum(len(t) for o in checked.outputs for t in (rel.get(o) or {}).values())
        window_edges = sum(len(t) for index in snap.values() for t in index.values())
    return {
        "slides": len(lat),
        "latency_slide": _percentiles(lat),
        "last_window_edges": window_edges,
        "last_snapshot_results": results,
        "peak_rss_mb": _peak_rss_mb(),
    }


def run_spark(
    workload: Workload, stream: str, query_path: str, max_slides: int = 3, budget: float = 180.0
) -> dict:
    """The Spark oracle re-run per slide on the window's contents (a few slides only, and no
    new slide once `budget` seconds are spent): each snapshot becomes a one-instant stream,
    and the oracle evaluates it from scratch. Prints a partial result after each slide."""
    from sgq.oracle import evaluate, spark_session

    checked = _checked(workload, query_path)
    # a 67k-edge window's closures overflow the tests' 1 GB driver (executor lost mid-join)
    os.environ.setdefault("SGQ_SPARK_MEMORY", "4g")
    spark_session()  # start-up is not part of a slide's latency
    lat: list[float] = []
    results = 0
    for tau, snap in _full_window_snapshots(workload, stream, checked, max_slides):
        edges = [
            (s, t, label, tau, "+")
            for label, index in snap.items()
            for s, targets in index.items()
            for t in targets
        ]
        t0 = time.perf_counter()
        results = len(evaluate(checked, edges).snapshot(tau))
        lat.append(time.perf_counter() - t0)
        print_partial({"slides": len(lat), "latency_slide": _percentiles(lat)})
        if sum(lat) > budget:
            break
    return {
        "slides": len(lat),
        "latency_slide": _percentiles(lat),
        "last_snapshot_results": results,
        "peak_rss_mb": _peak_rss_mb(),
    }


def run_spath(workload: Workload, stream: str, query_path: str, **kw) -> dict:
    """The C++ S-PATH (peer_programs.py), whole process."""
    from .peer_programs import run_peer

    return run_peer("spath", workload, stream, **kw)


def run_lmsrpq(workload: Workload, stream: str, query_path: str, **kw) -> dict:
    """The C++ LM-SRPQ (peer_programs.py), whole process."""
    from .peer_programs import run_peer

    return run_peer("lmsrpq", workload, stream, **kw)


def run_recompute(workload: Workload, stream: str, query_path: str, **kw) -> dict:
    """The per-slide recompute program, the yardstick (yardstick.py), whole process."""
    from .yardstick import run_yardstick

    return run_yardstick(workload, stream, **kw)


SYSTEMS = {
    "engine": run_engine,
    "ingest": run_ingest,
    "reeval": run_reeval,
    "spark": run_spark,
    "spath": run_spath,
    "lmsrpq": run_lmsrpq,
    "recompute": run_recompute,
}


def _take(engine, view, writer) -> int:
    """The rows the engine emitted since the last call: with `writer`, their deltas written
    (through `view`); else interval rows counted as the engine keeps them (segments)."""
    if writer is None:
        return sum(len(rows) for _label, rows in engine.drain_segments())
    drained = engine.drain_rows()
    writer.write_groups(view.feed_grouped(drained, engine.time))
    return len(drained)
