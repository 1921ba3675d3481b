"""`sgq data list` and `sgq data get NAME -o FILE`: public temporal graphs as sgq streams.

The datasets and their conversions are in sgq/datasets/ (one module per source format) and
docs/data.md. `get` writes CSV `src,trg,label,ts` and the dataset's property columns, sorted by
`ts` (Unix seconds), from a file an installed package of the `data` extra ships, or one `npm
pack` left (`--from`).
"""

from __future__ import annotations

import argparse
import sys
import time
from datetime import UTC, datetime

from ..datasets import DATASETS, INSTALL, dataset, installed, source_path, write_stream
from ..progress import Progress

NAME = "data"
HELP = "List public temporal graphs (sgq data list) or write one as an sgq stream (sgq data get)."

_PROGRESS_FROM = 200_000  # edges: smaller datasets finish too fast for a progress line


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    sub.add_parser("list", help="each dataset's size, time span, labels, source and terms")
    get = sub.add_parser("get", help="write a dataset as CSV src,trg,label,ts sorted by ts")
    get.add_argument("name", metavar="NAME", help=", ".join(sorted(DATASETS)))
    get.add_argument(
        "--output",
        "-o",
        required=True,
        metavar="FILE",
        help="the stream to write ('-' = stdout; .gz compresses)",
    )
    get.add_argument(
        "--from",
        dest="source",
        metavar="PATH",
        help="read this file instead of the installed package's (flights: the tarball of "
        "`npm pack vega-datasets`, the folder it unpacks to, or its flights-3m.parquet)",
    )
    get.add_argument("--no-progress", action="store_true", help="no progress line on stderr")


def run(args: argparse.Namespace) -> int:
    if args.action == "list":
        print(listing(), end="")
        return 0
    return _get(args)


def _get(args: argparse.Namespace) -> int:
    d = dataset(args.name)
    path = source_path(d, args.source)
    show = not args.no_progress and d.edges >= _PROGRESS_FROM
    bar = Progress(enabled=show and sys.stderr.isatty()) if show else None
    progress = (lambda n: bar.update(edges=n)) if bar is not None else None
    start = time.perf_counter()
    try:
        n, first, last = write_stream(
            d.convert(path), args.output, progress=progress, properties=d.properties
        )
    finally:
        if bar is not None:
            bar.done()
    elapsed = time.perf_counter() - start
    where = "stdout" if args.output == "-" else args.output
    span = f", {_utc(first)} to {_utc(last)} UTC" if n else ""
    print(
        f"sgq data: wrote {n:,} {d.name} edges to {where} in {elapsed:.1f}s{span} (from {path})",
        file=sys.stderr,
    )
    return 0


def _utc(seconds: int) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M")


def listing() -> str:
    """The text of `sgq data list`: one block per dataset."""
    out = []
    for d in DATASETS.values():
        days = (
            datetime.fromisoformat(d.last) - datetime.fromisoformat(d.first)
        ).total_seconds() / 86400
        if d.registry == "npm":
            how = f"npm pack {d.package}, then sgq data get {d.name} --from {d.package}-VERSION.tgz"
        elif installed(d):
            how = f"ready ({d.package} is installed)"
        else:
            how = f"{INSTALL} (needs {d.package})"
        props = ", ".join(d.properties) if d.properties else "none"
        out += [
            f"{d.name}: {d.title}",
            f"  size        {d.edges:,} edges, {d.vertices:,} vertices",
            f"  time span   {d.first} to {d.last} UTC ({days:,.1f} days); ts in Unix seconds;"
            f" source times: {d.time}",
            f"  labels      {d.labels}",
            f"  properties  {props}",
            f"  source      {d.source}",
            f"  terms       {d.terms}",
            f"  get it      {how}",
            "",
        ]
    return "\n".join(out)
