"""`sgq results OUT/`: the rows of a batch output directory (`sgq run --engine spark -o
OUT/`, spark_engine/batch_output.py) as one CSV file in the order `sgq run -o FILE` writes:
batch after batch, each batch's part files merged. The directory must be on a local (or
mounted) file system; on HDFS or S3, read it with Spark (`spark.read.csv(OUT, header=True)`
gives each row its `batch`)."""

from __future__ import annotations

import argparse
import sys
from itertools import islice

from ..spark_engine.batch_output import read_rows
from ..stream_io import ResultWriter, open_output

NAME = "results"
HELP = "Print the rows of a batch output directory (sgq run --engine spark -o DIR/) in order."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("directory", metavar="DIR", help="a directory written by sgq run -o DIR/")
    parser.add_argument("--output", "-o", metavar="FILE", help="CSV file (default stdout)")


def run(args: argparse.Namespace) -> int:
    fields, rows = read_rows(args.directory)
    out = open_output(args.output, "w", "output file") if args.output else sys.stdout
    try:
        writer = ResultWriter(out, fields, "csv")
        while chunk := list(islice(rows, 1 << 14)):
            writer.write_many(chunk)
    finally:
        if out is not sys.stdout:
            out.close()
    return 0
