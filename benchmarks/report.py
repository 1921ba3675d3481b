"""Tables and plots of a suite result: the terminal table and a markdown report of recorded runs."""

from __future__ import annotations

import datetime
import re
from pathlib import Path


def _fmt_rate(m: dict) -> str:
    if not m or "throughput" not in m:
        return "–"
    return f"{m['throughput']:,.0f}" + ("†" if "timed_out" in m else "")


def _fmt_spark(p: dict) -> str:
    if not p:
        return "–"
    if "error" in p:
        return f"> {p['timed_out'] * 1000:,.0f}" if "timed_out" in p else "error"
    return _fmt_ms(p) + ("†" if "timed_out" in p else "")


def _fmt_ms(m: dict, key: str = "latency_slide", q: str = "p50") -> str:
    if not m or key not in m:
        return "–"
    return f"{m[key][q] * 1000:,.2f}"


def _slide_key(m: dict) -> str:
    """Per-slide latency over full windows when measured, else over every slide."""
    return (
        "latency_slide_full"
        if m and m.get("latency_slide_full", {}).get("p50")
        else "latency_slide"
    )


def _fmt_ratio(x: float) -> str:
    return f"{x:,.0f}x" if x >= 10 else f"{x:.2g}x"


def table_rows(result: dict) -> list[list[str]]:
    rows = []
    for row in result["rows"]:
        w = row["workload"]
        e, i, r = row.get("engine", {}), row.get("ingest", {}), row.get("reeval", {})
        p = row.get("spark", {})
        ratios = row.get("ratios", {})
        rows.append(
            [
                w["name"],
                f"{w['edges']:,}",
                f"{w['edges'] * w['window'] / (w['days'] * 86400):,.0f}",
                f"{w['window'] // 86400}d/{w['slide'] // 3600}h",
                _fmt_rate(e) if "error" not in e else "error",
                _fmt_ms(e, "latency_edge", "p50"),
                _fmt_ms(e, "latency_edge", "p99"),
                _fmt_ms(e, _slide_key(e)),
                _fmt_ms(e, _slide_key(e), "p99"),
                f"{e.get('peak_rss_mb', 0):,.0f}",
                f"{e.get('peak_state', 0):,}",
                _fmt_rate(i),
                f"{ratios['throughput_vs_ingest'] * 100:.1f}%"
                if "throughput_vs_ingest" in ratios
                else "–",
                _fmt_ms(r) if "error" not in r else "error",
                _fmt_ratio(ratios["reeval_slide_latency_over_engine"])
                if "reeval_slide_latency_over_engine" in ratios
                else "–",
                _fmt_spark(p),
            ]
        )
    return rows


HEADERS = [
    "workload",
    "edges",
    "edges/ω",
    "ω/β",
    "engine e/s",
    "edge p50 ms",
    "edge p99 ms",
    "slide p50 ms",
    "slide p99 ms",
    "RSS MB",
    "peak state",
    "ingest e/s",
    "vs ingest",
    "reeval slide p50 ms",
    "reeval/engine",
    "spark slide p50 ms",
]


def format_table(result: dict) -> str:
    return _aligned([HEADERS] + table_rows(result))


def _aligned(rows: list[list[str]]) -> str:
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
    lines = [
        "  ".join(cell.rjust(widths[c]) if c else cell.ljust(widths[c]) for c, cell in enumerate(r))
        for r in rows
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _markdown_table(result: dict) -> str:
    rows = table_rows(result)
    out = ["| " + " | ".join(HEADERS) + " |", "|" + "---|" * len(HEADERS)]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out)


def _plots(result: dict, folder: Path) -> list[str]:
    """PNG plots (matplotlib, optional): throughput and p99 vs window, vs slide."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    made = []
    for tag, key, xlabel, scale in (
        (r"-w\d+d$", "window", "window (days)", 86400),
        (r"-s\d+h$", "slide", "slide (hours)", 3600),
    ):
        rows = [
            r
            for r in result["rows"]
            if re.search(tag, r["workload"]["name"]) and "throughput" in r.get("engine", {})
        ]
        if len(rows) < 2:
            continue
        xs = [r["workload"][key] / scale for r in rows]
        fig, ax1 = plt.subplots(figsize=(6, 3.5))
        ax1.plot(xs, [r["engine"]["throughput"] for r in rows], "o-", label="throughput")
        ax1.set_xlabel(xlabel)
        ax1.set_ylabel("edges/s")
        ax2 = ax1.twinx()
        ax2.plot(
            xs,
            [r["engine"][_slide_key(r["engine"])]["p99"] * 1000 for r in rows],
            "s--",
            color="tab:red",
            label="slide p99",
        )
        ax2.set_ylabel("slide latency p99 (ms)")
        ax1.set_title(
            f"{re.split(tag, rows[0]['workload']['name'])[0]}: throughput and p99 vs {key}"
        )
        fig.tight_layout()
        name = f"bench-{key}.png"
        fig.savefig(folder / name, dpi=110)
        plt.close(fig)
        made.append(name)
    return made


def deletion_rows(result: dict) -> list[list[str]]:
    """Issue 6: each `-xP` workload against the same base at 0% (`-x0`) of the same run."""
    rows = []
    by_name = {r["workload"]["name"]: r for r in result["rows"]}
    for name, row in by_name.items():
        m = re.search(r"^(.*)-x(\d+)$", name)
        e = row.get("engine", {})
        base = by_name.get(f"{m.group(1)}-x0", {}).get("engine", {}) if m else {}
        if not m or "throughput" not in e or "throughput" not in base:
            continue
        k = _slide_key(e)
        rows.append(
            [
                name,
                f"{m.group(2)}%",
                _fmt_rate(e),
                f"{e['throughput'] / base['throughput']:.2f}",
                _fmt_ms(e, k, "p50"),
                _fmt_ms(e, k, "p99"),
                f"{e[k]['p99'] / base[k]['p99']:.2f}" if base.get(k, {}).get("p99") else "–",
                _fmt_ms(e, "latency_edge", "p99"),
                f"{e.get('peak_state', 0):,}",
            ]
        )
    return rows


def simple_rows(result: dict) -> list[list[str]]:
    """Issue 17: each `rspq-...` workload against its `rpq-...` twin of the same run (same
    stream, the query without `simple`): throughput and tail latency ratios (as the RPQ
    paper §5.5 compares them)."""
    rows = []
    by_name = {r["workload"]["name"]: r for r in result["rows"]}
    for name, row in by_name.items():
        if not name.startswith("rspq-"):
            continue
        e = row.get("engine", {})
        base = by_name.get("rpq-" + name[len("rspq-") :], {}).get("engine", {})
        if "throughput" not in e or "throughput" not in base:
            rows.append([name, e.get("error", "–")[:60], "–", "–", "–", "–", "–"])
            continue
        k = _slide_key(e)
        p99, base_p99 = e.get(k, {}).get("p99"), base.get(_slide_key(base), {}).get("p99")
        rows.append(
            [
                name,
                _fmt_rate(e),
                _fmt_rate(base),
                f"{base['throughput'] / e['throughput']:.2f}",
                _fmt_ms(e, k, "p99"),
                f"{p99 / base_p99:.2f}" if p99 and base_p99 else "–",
                f"{e.get('peak_state', 0):,}",
            ]
        )
    return rows


SIMPLE_HEADERS = [
    "workload",
    "simple e/s",
    "arbitrary e/s",
    "time ratio",
    "slide p99 ms",
    "slide p99 ratio",
    "peak state",
]


def format_simple(result: dict, markdown: bool = False) -> str:
    return _section(SIMPLE_HEADERS, simple_rows(result), markdown)


DELETION_HEADERS = [
    "workload",
    "deletions",
    "engine e/s",
    "e/s vs 0%",
    "slide p50 ms",
    "slide p99 ms",
    "slide p99 vs 0%",
    "edge p99 ms",
    "peak state",
]


SHARED_HEADERS = [
    "workload",
    "sgq e/s",
    "sgq e/s whole process",
    "reeval e/s whole process",
    "sgq/reeval",
    "deltas written",
    "sgq RSS MB",
    "reeval RSS MB",
]


def shared_rows(result: dict) -> list[list[str]]:
    """Issue 14: the shared streams, sgq (its delta output written) against the re-evaluation
    baseline of the same run, both timed over their whole process. The C++ peers of the same
    run are `peer_rows`; figures recorded elsewhere appear in no table."""

    def whole(m: dict) -> str:
        if "error" in m:
            return "error"
        if "process_throughput" not in m:
            return "–"
        return f"{m['process_throughput']:,.0f}" + ("†" if "timed_out" in m else "")

    rows = []
    for row in result["rows"]:
        name = row["workload"]["name"]
        if not name.startswith("shared-"):
            continue
        e, r = row.get("engine", {}), row.get("reeval", {})
        rows.append(
            [
                name,
                _fmt_rate(e) if "error" not in e else "error",
                whole(e),
                whole(r) if r else "–",
                _fmt_ratio(row["ratios"]["throughput_vs_reeval"])
                if "throughput_vs_reeval" in row.get("ratios", {})
                else "–",
                f"{e['deltas']:,}" + ("†" if "timed_out" in e else "") if "deltas" in e else "–",
                f"{e['peak_rss_mb']:,.0f}" if "peak_rss_mb" in e else "–",
                f"{r['peak_rss_mb']:,.0f}" if "peak_rss_mb" in r else "–",
            ]
        )
    return rows


def format_shared(result: dict, markdown: bool = False) -> str:
    return _section(SHARED_HEADERS, shared_rows(result), markdown)


PEER_HEADERS = [
    "workload",
    "sgq CPU s",
    "reeval CPU s",
    "recompute CPU s",
    "C++ S-PATH CPU s",
    "C++ LM-SRPQ CPU s",
    "sgq vs recompute",
    "sgq vs best",
    "reeval / recompute",
    "sgq RSS MB",
    "recompute RSS MB",
    "S-PATH RSS MB",
    "LM-SRPQ RSS MB",
]


def peer_rows(result: dict) -> list[list[str]]:
    """The programs measured in the same run beside sgq (`--systems
    reeval,recompute,spath,lmsrpq`): CPU seconds of the whole process each, sgq's with its
    delta output written. "sgq vs X" is X's CPU over sgq's (above 1: sgq is faster), "best"
    the fastest of the recompute program and the C++ peers; "reeval / recompute" is the
    re-evaluation baseline's CPU over the recompute program's."""

    def cpu(m: dict, key: str = "cpu_seconds") -> str:
        if not m:
            return "–"
        if "timed_out" in m:
            return f"> {m['timed_out']:,.0f}"
        return "error" if "error" in m else f"{m[key]:,.2f}" if key in m else "–"

    def vs(ratios: dict, peer: str) -> str:
        x = ratios.get(f"cpu_vs_{peer}")
        if x is None:
            return "–"
        return ("≥ " if ratios.get(f"cpu_vs_{peer}_at_least") else "") + _fmt_cpu_ratio(x)

    def rss(m: dict) -> str:
        return f"{m['peak_rss_mb']:,.0f}" if m and "peak_rss_mb" in m else "–"

    rows = []
    for row in result["rows"]:
        y, s, lm = row.get("recompute"), row.get("spath"), row.get("lmsrpq")
        if not y and not s and not lm:
            continue
        e, ratios = row.get("engine", {}), row.get("ratios", {})
        over = ratios.get("reeval_cpu_over_recompute")
        rows.append(
            [
                row["workload"]["name"],
                cpu(e, "process_cpu_seconds"),
                cpu(row.get("reeval") or {}, "process_cpu_seconds"),
                cpu(y or {}),
                cpu(s or {}),
                cpu(lm or {}),
                vs(ratios, "recompute"),
                vs(ratios, "best"),
                "–" if over is None else _fmt_cpu_ratio(over),
                rss(e),
                rss(y or {}),
                rss(s or {}),
                rss(lm or {}),
            ]
        )
    return rows


def _fmt_cpu_ratio(x: float) -> str:
    """A same-run ratio of CPU seconds, two decimals below ten (the targets sit at one)."""
    return f"{x:,.0f}x" if x >= 10 else f"{x:.2f}x"


def format_peers(result: dict, markdown: bool = False) -> str:
    return _section(PEER_HEADERS, peer_rows(result), markdown)


PEERS_TEXT = (
    "The programs measured in the same run beside sgq, one after the other for each repeat: "
    "the re-evaluation baseline (reeval), the per-slide recompute program a user would write "
    "instead (`--systems recompute --yardstick-program PATH`, benchmarks/yardstick.py; kept "
    "outside this repository), and the C++ S-PATH and LM-SRPQ (`--systems spath,lmsrpq "
    "--peer-program PATH`, benchmarks/peer_programs.py: the LM-SRPQ paper's program, built "
    "outside this repository, on the same streams in its integer form). CPU seconds of the "
    "whole process each: sgq's includes the interpreter's start, the imports, planning and "
    "writing its delta output, reeval's writing each slide's changes; the recompute program "
    "and the peers read their file and write nothing. `sgq vs X`: X's CPU over sgq's (above "
    "1x, sgq is faster); best: the fastest of the recompute program and the peers. `> N`: "
    "stopped at N s."
)


def _section(headers: list[str], rows: list[list[str]], markdown: bool) -> str:
    """A table for the terminal (aligned) or the report (markdown); "" without rows."""
    if not rows:
        return ""
    if markdown:
        out = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
        return "\n".join(out + ["| " + " | ".join(r) + " |" for r in rows])
    return _aligned([headers] + rows)


SHARED_TEXT = (
    "The shared streams (benchmarks/streams/, window 10 days, slide 1 day): sgq writes its "
    "whole delta output to a file, as `sgq run Q.dl -i STREAM --emit deltas -o FILE` does, and "
    "the re-evaluation baseline (benchmarks/reeval_process.py) recomputes the window's "
    "snapshot at every slide end and writes each slide's changes, in the same run. `sgq e/s` "
    "is timed from the first edge read to the last result written (the engine gets the edges "
    "in the groups of instants `sgq run` makes, so its latency columns in the table above are "
    "per group on these rows); `whole process` from the measuring process's start to its exit "
    "(the interpreter's start, the imports, reading the stream and writing included), the "
    "measure of sgq/reeval and of the C++ peers' figures. Every ratio is between systems of "
    "this run."
)


def format_deletions(result: dict, markdown: bool = False) -> str:
    return _section(DELETION_HEADERS, deletion_rows(result), markdown)


TIMING_HEADERS = [
    "timing workload",
    "edges/s with order",
    "edges/s without",
    "speed-up",
    "CPU speed-up",
    "results with / without",
    "PATTERN state with",
    "PATTERN state without",
    "state ratio",
]


def _pattern_state(m: dict) -> int:
    """Peak entries of the PATTERN operators of one run (per operator, at slide boundaries):
    their output coverage and the chains a nested plan keeps (a timed one stores no partial
    match: the starts it compares are in the shared input indexes)."""
    peaks = m.get("peak_state_by_operator") or {}
    return sum(v for k, v in peaks.items() if "PATTERN[" in k)


def _fmt_speedup(x: float) -> str:
    """A timing speed-up: two decimals below ten (whether the order helps at all is the
    question on the closest rows)."""
    return f"{x:.2f}x" if x < 10 else _fmt_ratio(x)


def timing_rows(result: dict) -> list[list[str]]:
    """Issue 18: each timing workload against its `-free` twin (the same query without its
    time variables, on the same stream, in the same run)."""
    rows = []
    for row in result["rows"]:
        name = row["workload"]["name"]
        if not name.startswith("timing-") or row["workload"].get("untimed"):
            continue
        free = _row(result, name + "-free")
        e, f = row.get("engine", {}), (free or {}).get("engine", {})
        if "throughput" not in e or "throughput" not in f:
            continue
        ps, pf = _pattern_state(e), _pattern_state(f)
        rows.append(
            [
                name,
                f"{e['throughput']:,.0f}",
                f"{f['throughput']:,.0f}",
                _fmt_speedup(e["throughput"] / f["throughput"]),
                _fmt_speedup(f["cpu_seconds"] / e["cpu_seconds"])
                if e.get("cpu_seconds") and f.get("cpu_seconds")
                else "–",
                f"{e.get('results', 0):,.0f} / {f.get('results', 0):,.0f}",
                f"{ps:,.0f}",
                f"{pf:,.0f}",
                _fmt_ratio(ps / pf) if pf else "–",
            ]
        )
    return rows


def format_timing(result: dict, markdown: bool = False) -> str:
    return _section(TIMING_HEADERS, timing_rows(result), markdown)


TIMING_TEXT = (
    "The timing-order workloads of specs/queries/timing/ (issue 18), each run with its time "
    "variables and comparisons and without them (`-free`: datalog/untimed.py) on the same "
    "stream in the same run; the free query's results are a superset. Speed-up: the ratio of "
    "the two throughputs (wall clock); CPU speed-up: the ratio of the user CPU seconds of the "
    "same measured loops (medians), which other work on the machine disturbs less (`–`: a run "
    "recorded before they were). PATTERN state: the peak "
    "entries of the query's PATTERN operators at slide boundaries (the timed operator keeps its "
    "output coverage and stores no partial match, the starts it compares being in the shared "
    "input indexes; the free plan keeps its output and the chains its nested PATTERNs "
    "materialise)."
)


def _any_timed_out(result: dict) -> bool:
    return any(
        "timed_out" in m for row in result["rows"] for m in row.values() if isinstance(m, dict)
    )


def _row(result: dict, name: str) -> dict | None:
    return next((r for r in result["rows"] if r["workload"]["name"] == name), None)


def _output_bound(row: dict) -> str:
    """Rows the engine emitted per slide against the size of one output snapshot: every
    result whose validity widens is emitted again at once (timeliness), so a slide's work is
    at least this share of what a re-evaluation produces."""
    w, e, r = row["workload"], row.get("engine", {}), row.get("reeval", {})
    slides = w["days"] * 86400 / w["slide"]
    snap = r.get("last_snapshot_results")
    if not e.get("results") or not snap or "timed_out" in e:
        return ""
    per = e["results"] / slides
    return (
        f"; the engine emits {per:,.0f} rows per slide, {per / snap:.0%} of a "
        f"{snap:,}-pair snapshot"
    )


def targets(result: dict) -> list[tuple[str, str, str]]:
    """(target, measured, verdict) for each target of issue 5 the run has figures for."""
    out = []
    big = [
        r
        for r in result["rows"]
        if r["workload"]["edges"] * r["workload"]["window"] / (r["workload"]["days"] * 86400)
        >= 50_000
        and "reeval_slide_latency_over_engine" in r.get("ratios", {})
    ]
    if big:
        best = max(big, key=lambda r: r["ratios"]["reeval_slide_latency_over_engine"])
        x = best["ratios"]["reeval_slide_latency_over_engine"]
        out.append(
            (
                "per-slide latency ≥ 100x lower than re-evaluation (windows ≥ 50k edges)",
                f"{_fmt_ratio(x)} ({best['workload']['name']}; worst "
                f"{_fmt_ratio(min(r['ratios']['reeval_slide_latency_over_engine'] for r in big))})"
                + _output_bound(best),
                "met" if x >= 100 else "not met",
            )
        )
    for name, goal in (("rpq-q11-snb", 0.30), ("sga-q1-snb", 0.10)):
        row = _row(result, name)
        if row and "throughput_vs_ingest" in row.get("ratios", {}):
            x = row["ratios"]["throughput_vs_ingest"]
            out.append(
                (
                    f"{name}: throughput ≥ {goal:.0%} of raw ingest",
                    f"{x:.1%}",
                    "met" if x >= goal else "not met",
                )
            )
    return out


def format_targets(result: dict) -> str:
    return "\n".join(f"- {t}: {m} — {v}" for t, m, v in targets(result))


def merge(results: list[dict]) -> dict:
    """One result from several recorded runs (`sgq bench --from`): their rows in order (a
    workload recorded again replaces the earlier row), each row tagged with its run."""
    rows: dict = {}
    for k, result in enumerate(results):
        for row in result["rows"]:
            rows[row["workload"]["name"]] = dict(row, run=k)
    return {"rows": list(rows.values()), "sources": results}


def _run_header(result: dict) -> list[str]:
    m = result["machine"]
    when = datetime.datetime.fromtimestamp(result["started"], datetime.UTC).strftime(
        "%Y-%m-%d %H:%M UTC"
    )
    return [
        f"Recorded {when} with `{result.get('command', 'sgq bench')}` "
        f"({result['seconds']:.0f} s; medians of {result['repeat']} runs per figure"
        + (
            f", one run where the first took more than {result['slow_run']:.0f} s)."
            if "slow_run" in result
            else ")."
        ),
        "",
        f"Machine: {m.get('cpus')} CPUs, {m.get('memory_gb', '?')} GB, Python {m['python']}, {m['platform']}"
        + (f"; sgq at commit {m['commit']}." if m.get("commit") else "."),
        "",
        *([result["note"], ""] if result.get("note") else []),
    ]


SYSTEMS_TEXT = (
    "Systems, all reading the same CSV stream: **engine** = sgq's incremental engine; "
    "**ingest** = parse + WSCAN only (the ceiling); **reeval** = the one-time query "
    "recomputed from scratch at each slide end, `-` edges applied, its joins planned as a "
    "person plans them (benchmarks/reevaluate.py; on the shared streams a process of its own "
    "over the whole stream, timed whole); **spark** = "
    "the Spark oracle re-run on the window at a few slide boundaries. "
    "Latency per edge is the time of the batch (one timestamp) the edge arrived in; "
    "latency per slide is the engine's total work within one slide, over the slides "
    "whose window is full (no warm-up); reeval is measured on such slides too. Ratios are "
    "always between figures of the same run."
)


def write_report(result: dict, path: Path) -> None:
    """A markdown report: per recorded run its command, machine and table; then deletions,
    targets and plots over all of them (`result` is one run, or `merge` of several)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    plots = _plots(result, path.parent)
    sources = result.get("sources") or [result]
    text = ["# Benchmarks", "", SYSTEMS_TEXT, ""]
    for k, source in enumerate(sources):
        part = {"rows": [r for r in result["rows"] if r.get("run", 0) == k]}
        if len(sources) > 1:
            text += [f"## Run {k + 1}", ""]
        text += _run_header(source) + [_markdown_table(part), ""]
        if source.get("complete") is False:
            text += [
                "**This run was stopped before its last workloads**; the table holds the "
                "workloads it finished.",
                "",
            ]
        if _any_timed_out(part):
            text += [
                "† stopped at the measurement's timeout: the figure is over the part it "
                "processed (the engine's first edges, or Spark's first slides); `> N` in "
                "the Spark column: not even one slide in N ms.",
                "",
            ]
    if shared_rows(result):
        text += [
            "## Shared streams (issue 14)",
            "",
            SHARED_TEXT,
            "",
            format_shared(result, markdown=True),
            "",
        ]
    if peer_rows(result):
        text += [PEERS_TEXT, "", format_peers(result, markdown=True), ""]
    if timing_rows(result):
        text += ["## Timing order (issue 18)", "", TIMING_TEXT, "", format_timing(result, True), ""]
    if deletion_rows(result):
        text += [
            "## Deletions (issue 6)",
            "",
            "The same generator run with 0, 2, 5 and 10% of its lines turned into `-` edges "
            "of earlier inserts (`sgq gen --deletions`); ratios against the 0% run of the "
            "same suite run.",
            "",
            format_deletions(result, markdown=True),
            "",
        ]
    text += [
        "## Targets (issue 5)",
        "",
        format_targets(result) or "(no workload of this run bears on a target)",
        "",
    ]
    for name in plots:
        text += [f"![{name}]({name})", ""]
    path.write_text("\n".join(text))
