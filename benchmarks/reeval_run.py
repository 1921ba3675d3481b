"""The re-evaluation baseline over a whole stream: at each slide's last instant `τ`, the
window's snapshot evaluated from scratch (reevaluate.py), and the output's changes since the
previous slide written as delta rows `τ,+|-,src,trg,label` (`--deltas FILE`), the delta
view of specs/semantics.md §5 read at slide ends only. After the stream, every result left
leaves at the first slide end by which the whole window has expired (the slides between are
not evaluated).

`main` is the program `sgq bench` times over its whole process (reeval_process.py starts
it): it reads the stream itself, every line of it, and prints one JSON line of figures.
`run` does the work in this process; `on_slide(τ, outputs)` sees each slide's output
relations (the tests compare them with the engine's).

Cost per slide: `Reevaluation.evaluate` on the snapshot, plus the output's size for the
delta rows.
"""

from __future__ import annotations

import json
import resource
import sys
import time
from collections.abc import Callable

from sgq.datalog.ast import Atom
from sgq.datalog.checked import CheckedProgram

from .reeval_window import Window, check_order, read_stream, statistics
from .reevaluate import Reevaluation

#: seconds between the partial results a long run prints (the suite keeps the last one when
#: it stops the run at its timeout)
PARTIAL_EVERY = 15.0


def percentiles(values: list[float]) -> dict[str, float]:
    """p50, p99 and max of `values` (zeros for none)."""
    if not values:
        return {"p50": 0.0, "p99": 0.0, "max": 0.0}
    xs = sorted(values)
    pick = lambda q: xs[min(len(xs) - 1, int(q * (len(xs) - 1) + 0.5))]  # noqa: E731
    return {"p50": pick(0.5), "p99": pick(0.99), "max": xs[-1]}


def _own(relation: dict) -> dict:
    """An output relation as source -> set of targets that no later slide changes (an input
    label named as an output is the window's own index, which the next slide changes)."""
    if all(type(targets) is set for targets in relation.values()):
        return relation
    return {s: set(targets) for s, targets in relation.items()}


def _changes(tau: int, label: str, before: dict, now: dict) -> tuple[str, int]:
    """The delta rows from `before` to `now` (source -> targets) at `tau`: their text (the
    lines of one source and op joined in C) and how many they are."""
    tail = f",{label}\n"
    pieces = []
    n = 0
    for op, old, new in (("-", before, now), ("+", now, before)):
        for s, targets in old.items():
            other = new.get(s)
            changed = targets if other is None else targets - other
            if changed:
                head = f"{tau},{op},{s},"
                pieces.append(head + (tail + head).join(changed) + tail)
                n += len(changed)
    return "".join(pieces), n


def run(
    checked: CheckedProgram,
    stream: str,
    deltas: str | None = None,
    on_slide: Callable[[int, dict], None] | None = None,
) -> dict:
    """Every slide of `stream`; the figures of the run (its loop: reading included)."""
    start = time.perf_counter()
    start_cpu = time.process_time()
    labels = checked.edb
    edges, count, first, last = read_stream(stream, set(labels))
    # a window's figures plan the joins (a body of one atom needs none)
    joins = any(sum(isinstance(lit, Atom) for lit in r.body) > 1 for r in checked.program.rules)
    evaluation = Reevaluation(checked, statistics(edges, checked) if joins else None)
    window = Window(checked, labels)
    slide = checked.slide
    sink = open(deltas, "w", encoding="utf-8", newline="") if deltas else None
    if sink is not None:
        sink.write("time,op,src,trg,label\n")
    before: dict[str, dict] = {label: {} for label in checked.outputs}
    lat: list[float] = []
    rows = 0
    i, n, previous = 0, len(edges), None
    next_partial = start + PARTIAL_EVERY
    for j in range(first // slide, last // slide + 1) if first is not None else ():
        tau = (j + 1) * slide - 1
        while i < n and edges[i][3] <= tau:
            edge = edges[i]
            check_order(previous, edge[3])
            previous = edge[3]
            window.apply(edge)
            i += 1
        window.expire(tau)
        t0 = time.perf_counter()
        relations = evaluation.evaluate(window.live)
        now = {label: _own(relations.get(label) or {}) for label in checked.outputs}
        if sink is not None:
            for label in checked.outputs:
                text, written = _changes(tau, label, before[label], now[label])
                sink.write(text)
                rows += written
        if on_slide is not None:
            on_slide(tau, now)
        before = now
        t1 = time.perf_counter()
        lat.append(t1 - t0)
        if t1 > next_partial:
            print(
                json.dumps(
                    dict(_figures(count, start, start_cpu, lat, before, rows, window), partial=True)
                ),
                flush=True,
            )
            next_partial = t1 + PARTIAL_EVERY
    if sink is not None:
        if first is not None:
            widest = max(
                (checked.window_of(label) for label in labels), default=checked.window or 0
            )
            end = ((last // slide * slide + widest) // slide + 1) * slide - 1
            for label in checked.outputs:
                text, written = _changes(end, label, before[label], {})
                sink.write(text)
                rows += written
        sink.close()
    return _figures(count, start, start_cpu, lat, before, rows, window)


def _figures(count, start, start_cpu, lat, outputs, rows, window) -> dict:
    seconds = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return {
        "edges": count,
        "seconds": seconds,
        "throughput": count / seconds if seconds else 0.0,
        "cpu_seconds": time.process_time() - start_cpu,
        # the process so far: the interpreter's start and the imports included
        "process_cpu_seconds": usage.ru_utime + usage.ru_stime,
        "slides": len(lat),
        "latency_slide": percentiles(lat),
        "last_snapshot_results": sum(len(t) for rel in outputs.values() for t in rel.values()),
        "slide_deltas": rows,
        "unmatched_deletions": window.unmatched,
        "peak_rss_mb": usage.ru_maxrss / 1024.0,
    }


def main(argv: list[str] | None = None) -> int:
    import argparse

    from sgq.base.errors import UserError
    from sgq.datalog.check import check_text
    from sgq.datalog.errors import DlErrors

    parser = argparse.ArgumentParser(
        prog="reeval_process.py",
        description="the re-evaluation baseline of sgq bench over a whole stream",
    )
    parser.add_argument("stream", help="the edge file (CSV or TSV, gzipped or not)")
    parser.add_argument("query", help="the .dl program")
    parser.add_argument("--window", type=int, default=None, help="ω in time units")
    parser.add_argument("--slide", type=int, default=None, help="β in time units")
    parser.add_argument("--deltas", default=None, metavar="FILE", help="write each slide's changes")
    args = parser.parse_args(argv)
    try:
        with open(args.query, encoding="utf-8") as handle:
            text = handle.read()
        checked = check_text(text, args.query, window=args.window, slide=args.slide)
        result = run(checked, args.stream, args.deltas)
    except (UserError, DlErrors, OSError) as exc:
        print(f"reeval: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(result))
    return 0
