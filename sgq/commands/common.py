"""What several commands share: window/slide and plan options, compiling a program for a
user."""

from __future__ import annotations

import argparse
import os

from ..errors import UserError
from ..options import PATH_OPERATORS, PlanOptions
from ..sga.rewrite.pipeline import REWRITES


def duration_arg(text: str) -> int:
    """argparse type for `--window 30d` / `--slide 3600`."""
    from ..datalog.parser import parse_duration

    try:
        return parse_duration(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_window_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--window", type=duration_arg, metavar="D",
                        help="window size, overriding .window (units s, m, h, d, w)")
    parser.add_argument("--slide", type=duration_arg, metavar="D",
                        help="slide, overriding .slide (default 1)")


def add_plan_arguments(parser: argparse.ArgumentParser) -> None:
    """`--path-operator` and `--no-rewrite NAME` (sgq/options.py); read with `plan_options`."""
    parser.add_argument("--path-operator", choices=PATH_OPERATORS, default="auto",
                        help="PATH's physical operator: auto (closures that hand over to "
                        "S-PATH when sparse; default), closure (closures that never hand over "
                        "for density), spath (S-PATH from the start)")
    parser.add_argument("--no-rewrite", action="append", default=[], metavar="NAME",
                        help=f"skip the plan rewrite NAME ({', '.join(REWRITES)}); "
                        "repeatable")


def plan_options(args: argparse.Namespace) -> PlanOptions:
    """The PlanOptions of `add_plan_arguments`' flags; an unknown rewrite is a UserError."""
    try:
        return PlanOptions(path_operator=args.path_operator, skip_rewrites=args.no_rewrite)
    except UserError as exc:
        raise UserError(f"--no-rewrite: {exc}") from None


def read_program(path: str) -> str:
    """The text of a .dl file, or a clean error."""
    if not os.path.exists(path):
        raise UserError(f"program file '{path}' does not exist")
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except UnicodeDecodeError:
        raise UserError(f"program file '{path}' is not UTF-8 text") from None
    except OSError as exc:
        raise UserError(f"cannot read '{path}': {exc.strerror}") from None


def compile_program(path: str, window: int | None = None, slide: int | None = None,
                    options: PlanOptions = PlanOptions()):
    """Parse, check and plan the program at `path` with `options`; its errors become a
    UserError (exit 1)."""
    from ..api import compile as compile_query
    from ..datalog.errors import DlErrors

    text = read_program(path)
    try:
        return compile_query(text, filename=path, window=window, slide=slide,
                             options=options)
    except DlErrors as exc:
        raise UserError(exc.render(), exit_code=1) from None
