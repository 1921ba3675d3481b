"""`sgq stats INPUT`: measure the streaming graph characteristics the optimizer plans with
(sga/cost/statistics.py, thesis 6.3.1): per label its rate and distinct source and target
vertices, over the input's first `--sample` edges, as a small JSON file that
`sgq run/explain --optimize --stats FILE` read; for an input with edge properties, per label
and property its count, types, range and distinct strings (sgq/property_statistics.py)."""

from __future__ import annotations

import argparse
import json
import sys

from ..base.errors import UserError
from ..property_statistics import PropertyStatistics
from ..sga.cost.statistics import collect
from ..stream_io import open_output, read_edges

NAME = "stats"
HELP = "Measure the stream statistics the cost-based optimizer reads."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("input", metavar="INPUT", help="edge file (csv, tsv, jsonl; .gz ok)")
    parser.add_argument("--output", "-o", metavar="FILE", help="JSON file (default stdout)")
    parser.add_argument(
        "--sample",
        type=int,
        default=None,
        metavar="N",
        help="read only the first N edges (default: all)",
    )
    parser.add_argument("--format", choices=("csv", "tsv", "jsonl"), help="input format")
    parser.add_argument("--columns", metavar="COLS", help="input column order")


def run(args: argparse.Namespace) -> int:
    if args.sample is not None and args.sample < 1:
        raise UserError(f"--sample: must be a positive integer, not {args.sample}")
    props = PropertyStatistics(args.sample)
    stats = collect(props.watch(read_edges(args.input, args.format, args.columns)), args.sample)
    data = stats.as_dict()
    if props.labels:
        data["properties"] = props.as_dict()
    text = json.dumps(data, indent=2) + "\n"
    if args.output:
        with open_output(args.output, "w", "statistics file") as out:
            out.write(text)
    else:
        sys.stdout.write(text)
    return 0
