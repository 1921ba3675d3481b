"""`sgq prepare`: validate, time-sort and convert raw edge files into a Parquet stream
directory that `sgq run --input DIR` reads in bounded memory (a Spark job; sgq/prepare.py)."""

from __future__ import annotations

import argparse

from ..base.errors import UserError

NAME = "prepare"
HELP = (
    "clean and time-sort raw edge files (CSV/TSV/JSON lines/Parquet) into a Parquet stream (Spark)"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "raw",
        nargs="+",
        metavar="RAW",
        help="raw edge files or directories of them, in input order",
    )
    parser.add_argument(
        "--output",
        "-o",
        required=True,
        metavar="DIR",
        help="output directory: edges/ (Parquet), rejects/ (JSON lines), _PREPARED.json",
    )
    parser.add_argument(
        "--format",
        choices=("csv", "tsv", "json", "jsonl", "parquet"),
        help="raw format of every input (default: by extension)",
    )
    parser.add_argument(
        "--columns",
        metavar="COLS",
        help="column order, e.g. ts,src,label,trg[,op] (default: header or src,trg,label,ts[,op])",
    )
    parser.add_argument(
        "--time-format",
        choices=("epoch", "iso8601"),
        default="epoch",
        help="integer times (default) or ISO-8601 date-times, turned into epoch seconds",
    )
    header = parser.add_mutually_exclusive_group()
    header.add_argument(
        "--header",
        dest="header",
        action="store_const",
        const="header",
        help="CSV/TSV files start with a header line",
    )
    header.add_argument(
        "--no-header",
        dest="header",
        action="store_const",
        const="no-header",
        help="CSV/TSV files have no header line (default: recognised by its names)",
    )
    parser.set_defaults(header="auto")
    parser.add_argument(
        "--overwrite", action="store_true", help="replace a non-empty output directory"
    )


def run(args: argparse.Namespace) -> int:
    from ..prepare import prepare, summary

    if not args.output:
        raise UserError("--output needs a directory")
    manifest = prepare(
        args.raw,
        args.output,
        fmt=args.format,
        columns=args.columns,
        time_format=args.time_format,
        header=args.header,
        overwrite=args.overwrite,
    )
    print(summary(manifest, args.output))
    return 0
