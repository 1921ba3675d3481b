"""`sgq explain FILE`: print the SGA plan of a `.dl` program that `sgq run` executes (thesis
5.2.2, then the rewrite passes of sga/rewrite/pipeline.py); `--no-rewrite NAME` skips a pass,
`--canonical` skips `shared_chains` and `bind_path_sources`. The text form opens with the
passes by name (those that changed the plan, those that had nothing to change, those
skipped) and the PATH operator `--path-operator` chooses for `sgq run`. With the optimizer
on and statistics to plan with (`--stats FILE`, or `--input EDGES` to sample), it prints
the optimizer's choice with each operator's estimated cost per time unit (text, json, dot)
and `--plans N` the N cheapest alternatives (sga/optimize/, thesis ch. 6); without
statistics, today's plan.

Errors in the program are printed as `FILE:LINE:COL: error: ...` with the source line and a
caret, exit code 1; a missing file or a bad option is a usage error, exit code 2.
"""

from __future__ import annotations

import argparse
import sys

from sgq.api import read_program
from sgq.base.errors import UserError
from sgq.base.options import OPT_IN_REWRITES
from sgq.datalog.check import check_text
from sgq.datalog.errors import DlErrors
from sgq.sga.explain import explain_dot, explain_json, explain_text
from sgq.sga.optimize.report import optimized_dot, optimized_json, optimized_text
from sgq.sga.optimize.search import optimize
from sgq.sga.rewrite.pipeline import REWRITES
from sgq.sga.translate import translate

from .common import (
    add_optimizer_arguments,
    add_plan_arguments,
    add_window_arguments,
    optimizer_note,
    plan_options,
    plan_statistics,
    window_overrides,
)

NAME = "explain"
HELP = "Print the streaming graph algebra plan of a .dl program."

FORMATS = {"text": explain_text, "json": explain_json, "dot": explain_dot}
OPTIMIZED = {"text": optimized_text, "json": optimized_json, "dot": optimized_dot}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="the .dl program")
    parser.add_argument(
        "--format",
        choices=tuple(FORMATS),
        default="text",
        help="text (the papers' notation, default), json, or dot (Graphviz)",
    )
    add_window_arguments(parser)
    parser.add_argument(
        "--canonical",
        action="store_true",
        help="the canonical plan (thesis Algorithm SGQParser) without the shared-chains rewrite",
    )
    add_plan_arguments(parser)
    add_optimizer_arguments(parser)
    parser.add_argument(
        "--input", "-i", metavar="EDGES", help="edge file --optimize samples for statistics"
    )
    parser.add_argument(
        "--plans",
        type=int,
        default=0,
        metavar="N",
        help="with --optimize: also list the N cheapest plans with their estimated costs",
    )


def run(args: argparse.Namespace) -> int:
    options = plan_options(args)
    canonical = {"shared_chains", "bind_path_sources"} if args.canonical else set()
    skip = options.skip_rewrites | canonical
    text = read_program(args.file)
    try:
        checked = check_text(text, args.file, **window_overrides(args))
        plan = translate(checked, skip=skip, enable=options.rewrites)
    except DlErrors as exc:
        print(exc.render(), file=sys.stderr)
        return 1
    if args.plans and not options.optimize:
        raise UserError("--plans lists the optimizer's plans: add --optimize")
    if args.plans < 0:
        raise UserError("--plans must be >= 0")
    if options.optimize:
        sampled = plan_statistics(args, args.input)
        if sampled.statistics is not None:
            result = optimize(plan, sampled.statistics, alternatives=max(1, args.plans))
            sys.stdout.write(OPTIMIZED[args.format](result, sampled.statistics, args.plans))
            return 0
        if args.plans:
            raise UserError(f"--plans needs statistics: {sampled.note}")
        if args.optimize or args.input:  # asked for, or an input that could not be sampled
            optimizer_note(NAME, sampled.note)
    if args.format == "text":
        off = set(OPT_IN_REWRITES) - options.rewrites
        passes = [
            name
            if name in plan.rewrites
            else f"{name} ({'skipped' if name in skip else 'off' if name in off else 'no change'})"
            for name in REWRITES
        ]
        sys.stdout.write(f"rewrites: {', '.join(passes)}\npath operator: {options.path_operator}\n")
        from ..incremental.runtime import (
            delta_intersections,
            exact_end_joins,
            functional_joins,
            pattern_guards,
            sideways_intersections,
        )

        if options.tuning.intersections:
            for label in delta_intersections(plan):
                sys.stdout.write(
                    f"intersection: {label} (with --emit deltas, of its inputs' delta streams)\n"
                )
            for label, closure in sideways_intersections(plan, options):
                sys.stdout.write(
                    f"sideways: {label} (with --emit deltas, its closure {closure} names only "
                    "the pairs its other input holds)\n"
                )
        for label in functional_joins(plan, options):
            sys.stdout.write(
                f"functional join: {label} (its keys read off its two inputs' entries while "
                "one has one join vertex per vertex; the keyed join from the first round "
                "neither has)\n"
            )
        share = options.tuning.renewed_share
        for label in exact_end_joins(plan, options):
            sys.stdout.write(
                f"exact ends: {label} (with --emit deltas, renewed input tuples joined too "
                f"while they are at most {share:.0%} of the tuples taken; past that, its keys' "
                "ends re-derived when they come up)\n"
            )
        for label, atom in pattern_guards(plan, options.tuning.intersections):
            sys.stdout.write(
                f"guard: {label} by {atom} (with --emit deltas, a span's entering keys from its "
                "entries when fewer may enter than the span has new tuples)\n"
            )
    sys.stdout.write(FORMATS[args.format](plan))
    return 0
