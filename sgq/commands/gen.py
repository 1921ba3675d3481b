"""`sgq gen KIND --edges N --seed S --output FILE`: write a deterministic synthetic edge stream.

KIND is `snb` (LDBC-SNB-like social stream), `so` (StackOverflow-like user interactions) or
`gmark` (random schema, labels l0..l{K-1}). The CSV has the header `src,trg,label,ts,op`,
times in seconds from 0, non-decreasing; the same seed gives the same bytes.
"""

from __future__ import annotations

import argparse
import sys
import time

from ..base.errors import UserError
from ..generators import KINDS, MAX_DELETIONS, generate, gmark_schema, write_csv
from ..progress import Progress

NAME = "gen"
HELP = "Write a deterministic synthetic edge stream (snb, so or gmark) as CSV."

_PROGRESS_FROM = 200_000  # edges: smaller runs finish too fast for a progress line


def _ratio(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number") from None
    if not 0.0 <= value <= MAX_DELETIONS:
        raise argparse.ArgumentTypeError(f"must be between 0 and {MAX_DELETIONS}, not {text}")
    return value


def _count(text: str) -> int:
    try:
        value = int(text.replace("_", ""))
    except ValueError:
        try:
            value = float(text)  # 1e6
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not an integer") from None
        if value != int(value):
            raise argparse.ArgumentTypeError(f"'{text}' is not an integer") from None
        value = int(value)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative, not {text}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("kind", choices=KINDS, metavar="KIND", help="snb, so or gmark")
    parser.add_argument(
        "--edges",
        "-n",
        type=_count,
        required=True,
        help="number of lines to write, deletions included (1e6 is fine)",
    )
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument(
        "--days", type=int, default=None, help="time span in days of 86400 s (default 100)"
    )
    parser.add_argument(
        "--deletions",
        type=_ratio,
        default=0.0,
        metavar="RATIO",
        help=f"fraction of '-' lines deleting recent edges, 0..{MAX_DELETIONS}",
    )
    parser.add_argument(
        "--labels", type=int, default=None, help="gmark: number of labels l0..l{K-1} (default 4)"
    )
    parser.add_argument(
        "--vertices", type=int, default=None, help="gmark: number of vertices (default edges/8)"
    )
    parser.add_argument(
        "--persons",
        type=int,
        default=None,
        help="snb: number of persons at the end (default edges/400)",
    )
    parser.add_argument(
        "--users", type=int, default=None, help="so: number of users (default edges/25)"
    )
    parser.add_argument(
        "--schema", action="store_true", help="gmark: print the drawn schema on stderr"
    )
    parser.add_argument(
        "--output",
        "-o",
        default="-",
        metavar="FILE",
        help="output CSV ('-' = stdout, the default; .gz compresses)",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress line on stderr")


def run(args: argparse.Namespace) -> int:
    opts = {}
    for name, kinds in (
        ("labels", ("gmark",)),
        ("vertices", ("gmark",)),
        ("persons", ("snb",)),
        ("users", ("so",)),
    ):
        value = getattr(args, name)
        if value is None:
            continue
        if args.kind not in kinds:
            raise UserError(f"--{name} applies to {' and '.join(kinds)}, not {args.kind}")
        opts[name] = value
    if args.schema and args.kind != "gmark":
        raise UserError(f"--schema applies to gmark, not {args.kind}")
    rows = generate(
        args.kind, args.edges, args.seed, days=args.days, deletions=args.deletions, **opts
    )
    if args.schema:
        _print_schema(args)
    show = not args.no_progress and args.edges >= _PROGRESS_FROM
    progress = None
    bar = None
    if show:
        bar = Progress(enabled=sys.stderr.isatty())
        progress = lambda n: bar.update(edges=n)  # noqa: E731
    start = time.perf_counter()
    try:
        n = write_csv(rows, args.output, progress=progress)
    finally:
        if bar is not None:
            bar.done()
    if show:
        elapsed = max(time.perf_counter() - start, 1e-9)
        where = "stdout" if args.output == "-" else args.output
        print(
            f"sgq gen: wrote {n} {args.kind} edges to {where} in {elapsed:.1f}s "
            f"({n / elapsed:,.0f} edges/s)",
            file=sys.stderr,
        )
    return 0


def _print_schema(args: argparse.Namespace) -> None:
    schema = gmark_schema(
        args.edges, args.seed, labels=args.labels if args.labels else 4, vertices=args.vertices
    )
    print(schema.describe(), file=sys.stderr)
