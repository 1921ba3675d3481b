"""`sgq verify`: run the engine and the Spark oracle on one stream and compare them.

The output snapshots must agree at every change point (every input time and expiry instant,
specs/semantics.md §4), and in time: when all inputs with time ≤ τ have been consumed, what the
engine has emitted must already give the snapshot at τ (§5). On a disagreement the command
shows the first failing time, the missing and extra facts, and the smallest slice of the
stream that still fails (delta debugging; each round is one oracle pass over all candidates).

The oracle evaluates the checked program directly (never the engine's plan), so a translation
or engine bug cannot hide on both sides.
"""

from __future__ import annotations

import argparse
import math
import sys

from ..base.errors import UserError
from ..incremental.deltas import DELTA_FIELDS
from ..incremental.time_order import out_of_order
from ..stream_io import ResultWriter, read_edges
from .common import (
    add_input_arguments,
    add_optimizer_arguments,
    add_plan_arguments,
    add_window_arguments,
    compile_for_input,
)

NAME = "verify"
HELP = "check the engine against the Spark oracle on a stream, at every change point"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("program", metavar="FILE.dl", help="the query")
    add_input_arguments(
        parser,
        "edge file (csv, tsv, jsonl; .gz ok) or - for stdin",
    )
    add_window_arguments(parser)
    add_plan_arguments(parser)
    add_optimizer_arguments(parser)
    parser.add_argument(
        "--oracle-output",
        metavar="OUT",
        help="write the oracle's delta view as CSV time,op,src,trg,label",
    )
    parser.add_argument(
        "--no-minimize",
        action="store_true",
        help="on a failure, do not search for the smallest failing slice",
    )


def _edges(args) -> list:
    edges = list(read_edges(args.input, fmt=args.format, columns=args.columns))
    last = -math.inf
    for i, (s, d, lbl, t, *_) in enumerate(edges, start=1):
        why = out_of_order(t, last)
        if why is not None:
            raise UserError(f"{args.input}: edge {i} ({s} -> {d}, {lbl}): {why}")
        last = t
    return edges


def _write_deltas(path: str, deltas) -> None:
    try:
        handle = sys.stdout if path == "-" else open(path, "w", encoding="utf-8", newline="")
    except OSError as exc:
        raise UserError(f"cannot write '{path}': {exc.strerror}") from None
    try:
        writer = ResultWriter(handle, DELTA_FIELDS)
        for row in deltas:
            writer.write(row)
        writer.flush()
    finally:
        if handle is not sys.stdout:
            handle.close()


def _minimize(query, edges):
    """The smallest sub-stream (by ddmin) on which engine and oracle still disagree."""
    from ..oracle.compare import check_engine, ddmin
    from ..oracle.evaluation import evaluate_cases

    def fails_many(candidates):
        results = evaluate_cases(query.checked, candidates)
        return [
            check_engine(query.engine, cand, results[i].points, results[i].snapshot)[0] is not None
            for i, cand in enumerate(candidates)
        ]

    return ddmin(edges, fails_many)


def run(args) -> int:
    from ..oracle.compare import check_engine
    from ..oracle.evaluation import evaluate

    query = compile_for_input(args, NAME)
    checked = query.checked
    if not checked.outputs:
        raise UserError(f"{args.program}: no output predicate (.output, or a rule for Answer)")
    edges = _edges(args)
    expected = evaluate(checked, edges)
    if args.oracle_output:
        _write_deltas(args.oracle_output, expected.delta())
    mismatch, checks = check_engine(query.engine, edges, expected.points, expected.snapshot)
    if mismatch is None:
        print(
            f"verify: OK: engine and oracle agree on {checks} checks at "
            f"{len(expected.points)} change points ({len(edges)} edges, "
            f"outputs {', '.join(checked.outputs)})"
        )
        return 0
    print(f"verify: FAILED after {checks} checks")
    print(mismatch.describe())
    if not args.no_minimize and len(edges) > 1:
        smallest = _minimize(query, edges)
        again = evaluate(checked, smallest)
        small_mismatch, _ = check_engine(query.engine, smallest, again.points, again.snapshot)
        print(f"smallest failing slice ({len(smallest)} of {len(edges)} edges):")
        print("src,trg,label,ts,op")
        for s, d, lbl, t, op in smallest:
            print(f"{s},{d},{lbl},{t},{op}")
        if small_mismatch is not None:
            print(small_mismatch.describe())
    return 1
