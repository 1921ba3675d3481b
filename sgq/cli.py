"""The `sgq` command: one subcommand per module of `sgq/commands/`.

Each command module has `NAME`, `HELP`, `add_arguments(parser)` and `run(args) -> int`.
Errors meant for users are printed as messages (never tracebacks) and give exit code 1 for a
failed check and 2 for a usage or input problem.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from . import __version__
from .collector import tune_for_long_run
from .errors import UserError

# The order here is the order of `sgq --help`.
COMMANDS = ("check", "explain", "run", "results", "verify", "gen", "bench", "prepare", "stats")


def _load(name: str):
    try:
        return importlib.import_module(f"sgq.commands.{name}")
    except ModuleNotFoundError as exc:
        if exc.name == f"sgq.commands.{name}":
            return None
        raise


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sgq",
        description="Streaming graph queries: run .dl rule files incrementally over "
        "timestamped edge streams with sliding windows.",
    )
    parser.add_argument("--version", action="version", version=f"sgq {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        module = _load(name)
        if module is None:
            continue
        cmd = sub.add_parser(module.NAME, help=module.HELP, description=module.HELP)
        module.add_arguments(cmd)
        cmd.set_defaults(_run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "_run", None):
        parser.print_help()
        return 2
    tune_for_long_run()
    try:
        return int(args._run(args) or 0)
    except UserError as exc:
        print(f"sgq {args.command}: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("sgq: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
