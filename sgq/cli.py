"""The `sgq` command: one subcommand per module of `sgq/commands/`.

Each command module has `NAME`, `HELP`, `add_arguments(parser)` and `run(args) -> int`.
Errors meant for users are printed as messages (never tracebacks) and give exit code 1 for a
failed check and 2 for a usage or input problem.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from .base.errors import UserError
from .base.version import VERSION
from .collector import tune_for_long_run

# The order here is the order of `sgq --help`.
COMMANDS = (
    "check",
    "explain",
    "run",
    "results",
    "verify",
    "gen",
    "data",
    "bench",
    "prepare",
    "stats",
)


def _load(name: str):
    try:
        return importlib.import_module(f"sgq.commands.{name}")
    except ModuleNotFoundError as exc:
        if exc.name == f"sgq.commands.{name}":
            return None
        raise


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or of the command `only` alone (what `main` builds when
    the command is named: the other command modules, and what they import, are not loaded,
    a measurable part of a short run's process)."""
    parser = argparse.ArgumentParser(
        prog="sgq",
        description="Streaming graph queries: run .dl rule files incrementally over "
        "timestamped edge streams with sliding windows.",
    )
    parser.add_argument("--version", action="version", version=f"sgq {VERSION}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS if only is None else (only,):
        module = _load(name)
        if module is None:
            continue
        cmd = sub.add_parser(module.NAME, help=module.HELP, description=module.HELP)
        module.add_arguments(cmd)
        cmd.set_defaults(_run=module.run)
    return parser


def _named_command(argv: list[str]) -> str | None:
    """The command `argv` names in its first word, if it is one (else None: `--help`, a
    typo, no command)."""
    return argv[0] if argv and argv[0] in COMMANDS else None


def main(argv: list[str] | None = None) -> int:
    tune_for_long_run()  # (before the command's module is imported: its containers too)
    parser = build_parser(_named_command(sys.argv[1:] if argv is None else argv))
    args = parser.parse_args(argv)
    if not getattr(args, "_run", None):
        parser.print_help()
        return 2
    from .datalog.errors import DlErrors  # (small: no lark, no attrs beyond the AST's)

    try:
        return int(args._run(args) or 0)
    except DlErrors as exc:  # a program's errors, exactly as `sgq check` prints them
        print(exc.render(), file=sys.stderr)
        return 1
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
