"""`sgq check FILE... [--window D] [--slide D]`: parse and check `.dl` programs.

Per file: a one-line summary when it is valid, or every error of the file (`FILE:LINE:COL:
error: ...`, the line, a caret) on stderr. Exit 0 when every file is valid, 1 when some file
has errors, 2 when a file cannot be read (the others are still checked).
"""

from __future__ import annotations

import argparse
import sys

from ..api import read_program
from ..base.errors import UserError
from .common import add_window_arguments, window_overrides

NAME = "check"
HELP = "check .dl programs and summarise them (rules, inputs, outputs, window, slide)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help=".dl program files")
    add_window_arguments(parser)


def summary(path: str, checked) -> str:
    """`x.dl: ok — 3 rules, inputs: a, b, outputs: Ans, window 30d, slide 1d`"""
    from ..datalog.errors import shown
    from ..datalog.parser import format_duration

    rules = len(checked.program.rules)
    parts = [
        f"{rules} rule{'s' if rules != 1 else ''}",
        "inputs: " + (", ".join(checked.edb) or "none"),
        "outputs: " + ", ".join(checked.outputs),
    ]
    window = f"window {format_duration(checked.window)}" if checked.window is not None else "window"
    if checked.label_windows:
        window += (
            " ("
            + ", ".join(
                f"{label}: {format_duration(size)}" for label, size in checked.label_windows
            )
            + ")"
        )
    parts.append(window)
    parts.append(f"slide {format_duration(checked.slide)}")
    return shown(f"{path}: ok — " + ", ".join(parts))  # (a name's control characters escaped)


def run(args: argparse.Namespace) -> int:
    from ..datalog.check import check_text
    from ..datalog.errors import DlErrors

    status = 0
    for path in args.files:
        try:
            text = read_program(path)
        except UserError as exc:
            print(f"sgq check: error: {exc}", file=sys.stderr)
            status = max(status, 2)
            continue
        try:
            checked = check_text(text, path, **window_overrides(args))
        except DlErrors as exc:
            print(exc.render(), file=sys.stderr)
            status = max(status, 1)
            continue
        print(summary(path, checked))
    return status
