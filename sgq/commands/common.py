"""What several commands share: window/slide and plan options, compiling a program for a
user."""

from __future__ import annotations

import argparse
import sys

from ..api import read_program
from ..base.errors import UserError
from ..base.options import DEFAULT_SIMPLE_BUDGET, OPT_IN_REWRITES, PATH_OPERATORS, PlanOptions
from ..sampling import DEFAULT_SAMPLE, Sampled, read_statistics, sample_input
from ..sga.rewrite.pipeline import REWRITES
from ..stream_io import FORMATS


def duration_arg(text: str) -> int:
    """argparse type for `--window 30d` / `--slide 3600`."""
    from ..datalog.parser import parse_duration

    try:
        return parse_duration(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


_SECONDS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}


def seconds_arg(text: str) -> float:
    """argparse type for a wall-clock duration: `5s`, `500ms`, `2m`, `1h` or seconds (`0.5`)."""
    raw = text.strip().lower()
    for unit in ("ms", "s", "m", "h"):
        if raw.endswith(unit):
            number, scale = raw[: -len(unit)], _SECONDS[unit]
            break
    else:
        number, scale = raw, 1.0
    try:
        value = float(number) * scale
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"'{text}' is not a duration (e.g. 5s, 500ms, 2m, 0.5)"
        ) from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"'{text}' must be a positive duration")
    return value


def add_input_arguments(parser: argparse.ArgumentParser, sources: str) -> None:
    """`--input` (`sources`: what it may name), `--format` and `--columns`: how `sgq run` and
    `sgq verify` read an edge stream."""
    parser.add_argument("--input", "-i", required=True, metavar="EDGES", help=sources)
    parser.add_argument(
        "--format", choices=FORMATS, help="input format (default: by extension, csv)"
    )
    parser.add_argument(
        "--columns",
        metavar="COLS",
        help="input column order, e.g. ts,src,label,trg[,op] (default src,trg,label,ts[,op] or the header)",
    )


def add_window_arguments(parser: argparse.ArgumentParser) -> None:
    """`--window D` and `--slide D`; read with `window_overrides`."""
    parser.add_argument(
        "--window",
        type=duration_arg,
        metavar="D",
        help="window size, overriding .window (e.g. 24h, 30d, 3600; units s, m, h, d, w)",
    )
    parser.add_argument(
        "--slide",
        type=duration_arg,
        metavar="D",
        help="slide, overriding .slide (e.g. 1h; default 1)",
    )


def window_overrides(args: argparse.Namespace) -> dict:
    """`window=` and `slide=` of `add_window_arguments`' flags (None: the program's own), as
    keyword arguments for `check_text`, `compile_program` and a checkpoint's settings."""
    return {"window": args.window, "slide": args.slide}


def add_plan_arguments(parser: argparse.ArgumentParser) -> None:
    """`--path-operator` and `--no-rewrite NAME` (base/options.py); read with `plan_options`."""
    parser.add_argument(
        "--path-operator",
        choices=PATH_OPERATORS,
        default="auto",
        help="PATH's physical operator: auto (closures that hand over to "
        "S-PATH when sparse; default), closure (closures that never hand over "
        "for density), spath (S-PATH from the start)",
    )
    for flag, what, names in (
        ("--no-rewrite", "skip the plan rewrite", REWRITES),
        ("--rewrite", "run the opt-in plan rewrite", OPT_IN_REWRITES),
    ):
        parser.add_argument(
            flag,
            action="append",
            default=[],
            metavar="NAME",
            help=f"{what} NAME ({', '.join(names)}); repeatable",
        )
    parser.add_argument(
        "--simple-budget",
        type=int,
        default=DEFAULT_SIMPLE_BUDGET,
        metavar="N",
        help="steps the search of a 'simple' path atom may take per round before the run "
        f"stops with an error (default {DEFAULT_SIMPLE_BUDGET:,})",
    )


def add_optimizer_arguments(parser: argparse.ArgumentParser) -> None:
    """`--optimize`/`--no-optimize`, `--stats FILE` and `--sample N` (sga/optimize/)."""
    on = "on" if PlanOptions().optimize else "off"
    parser.add_argument(
        "--optimize",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="let the cost-based optimizer (thesis ch. 6) choose the plan from statistics of "
        f"the input stream (default: {on}; --no-optimize: today's plan)",
    )
    parser.add_argument(
        "--stats",
        metavar="FILE",
        help="statistics written by 'sgq stats' (default: sample the input's first edges)",
    )
    parser.add_argument(
        "--sample",
        type=int,
        default=DEFAULT_SAMPLE,
        metavar="N",
        help=f"input edges the optimizer samples without --stats (default {DEFAULT_SAMPLE:,})",
    )


def plan_statistics(
    args: argparse.Namespace, source: str | None, fmt: str | None = None, columns=None
) -> Sampled:
    """The stream statistics the optimizer plans with: `--stats FILE`, else the first
    `--sample` edges of the input `source` (sgq/sampling.py: none from stdin or `--follow`)."""
    if args.stats:
        return Sampled(read_statistics(args.stats), f"statistics of '{args.stats}'")
    return sample_input(
        source, fmt, columns, sample=args.sample, follow=getattr(args, "follow", False)
    )


def optimizer_note(command: str, note: str) -> None:
    """Say on stderr why the optimizer kept today's plan (no statistics could be had)."""
    print(f"sgq {command}: optimizer: {note}; today's plan runs", file=sys.stderr)


def _optimize(args: argparse.Namespace) -> bool:
    """`--optimize`/`--no-optimize` if given, else the default; off by default with `--paths`
    (witness paths are over the plan's own edges), refused when both are asked for."""
    asked = getattr(args, "optimize", None)
    if asked and getattr(args, "paths", False):
        raise UserError(
            "--optimize does not go with --paths: the optimized plan's witness paths run "
            "over its derived edges"
        )
    if asked is None:
        return PlanOptions().optimize and not getattr(args, "paths", False)
    return asked


def plan_options(args: argparse.Namespace) -> PlanOptions:
    """The PlanOptions of `add_plan_arguments`' flags; an unknown rewrite is a UserError."""
    budget = getattr(args, "simple_budget", DEFAULT_SIMPLE_BUDGET)
    if budget < 1:
        raise UserError(f"--simple-budget: must be a positive integer, not {budget}")
    optimize = _optimize(args)
    try:
        return PlanOptions(
            path_operator=args.path_operator,
            skip_rewrites=args.no_rewrite,
            rewrites=getattr(args, "rewrite", ()),
            simple_budget=budget,
            optimize=optimize,
        )
    except UserError as exc:
        flag = "--rewrite" if "opt-in" in str(exc) else "--no-rewrite"
        raise UserError(f"{flag}: {exc}") from None


def compile_for_input(args: argparse.Namespace, command: str):
    """`args.program` planned with the plan flags and, with the optimizer on, the statistics
    of `--stats` or of the `--input`'s first edges (`sgq run`, `sgq verify`), read only when
    the rules give the plan alternatives; when there are none to read (stdin, `--follow`),
    today's plan, and a note on stderr says so."""
    options = plan_options(args)
    if options.optimize and args.sample < 1:
        raise UserError(f"--sample: must be a positive integer, not {args.sample}")

    def statistics():  # read only when the optimizer has plans to choose among
        sampled = plan_statistics(args, args.input, args.format, args.columns)
        if sampled.statistics is None:
            optimizer_note(command, sampled.note)
        return sampled.statistics

    return compile_program(
        args.program, options=options, statistics=statistics, **window_overrides(args)
    )


def compile_program(
    path: str,
    window: int | None = None,
    slide: int | None = None,
    options: PlanOptions = PlanOptions(),
    statistics=None,
):
    """Parse, check and plan the program at `path` with `options` (and `statistics`, for the
    optimizer). The file's text is the program, whatever it holds (an empty file is a
    program with no rules, a file holding a path is not that path); its errors are raised as
    `DlErrors`, which `sgq` prints as `sgq check` does (exit 1)."""
    from ..api import compile as compile_query

    return compile_query(
        text=read_program(path),
        filename=path,
        window=window,
        slide=slide,
        options=options,
        statistics=statistics,
    )
