"""What several commands share: window/slide options and compiling a program for a user."""

from __future__ import annotations

import argparse
import os

from ..errors import UserError


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


def compile_program(path: str, window: int | None = None, slide: int | None = None):
    """Parse, check and plan the program at `path`; its errors become a UserError (exit 1)."""
    from ..api import compile as compile_query
    from ..datalog.errors import DlErrors

    text = read_program(path)
    try:
        return compile_query(text, filename=path, window=window, slide=slide)
    except DlErrors as exc:
        raise UserError(exc.render(), exit_code=1) from None
