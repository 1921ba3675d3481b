"""The Spark engine's output as a directory written by the executors, one subdirectory per
batch (issue 15: output that outgrows the driver):

    OUT/batch=<id>/part-*.csv

each file CSV with a header, in the columns of `--emit` (interval rows `src,trg,label,ts,exp`
or deltas `time,op,src,trg,label`, sgq/stream_io.py) and sorted in the single-file output's
order: interval rows by (ts, src, trg, label), deltas by (time, op, src, trg, label). Batch
`id` holds what batch `id` output (spark_engine/batch_grid.py); with deltas, every event of an
instant is in the batch of that instant, so the `-` rows written at the end of input (keys
still open) go to the batches of their instants. `batch=<id>` is Hive-style partitioning:
`spark.read.csv(OUT, header=True)` reads the rows with their `batch`.

Exactly once: a batch's directory is overwritten when the batch is written (Spark's dynamic
partition overwrite: only the batches in the frame are replaced), and it is written before
its state is committed (spark_engine/commits.py), so a run resumed from its checkpoint
rewrites the one batch that was not committed with the same rows. A fresh run first removes
every `batch=` directory an earlier run left.

Reading it back in order (`read_rows`, `sgq results`): the batches in the order of their
numbers; within one, the part files are each sorted and merged (they are written without a
global sort, which would cost a sampling job per batch).
"""

from __future__ import annotations

import csv
import heapq
import os
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..base.errors import UserError
from ..incremental.deltas import DELTA_FIELDS, INTERVAL_FIELDS

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

PREFIX = "batch="
_BATCH = re.compile(r"batch=(-?\d+)$")

#: the order of the rows of one batch, per output columns
ORDER = {
    INTERVAL_FIELDS: ("ts", "src", "trg", "label"),
    DELTA_FIELDS: ("time", "op", "src", "trg", "label"),
}
_NUMERIC = {"ts", "exp", "time"}

#: what makes Spark's CSV writer write what Python's csv module reads back as the same
#: values: RFC 4180 quotes doubled, no trimming, an empty value as nothing
CSV_OPTIONS = {
    "header": "true",
    "escape": '"',
    "ignoreLeadingWhiteSpace": "false",
    "ignoreTrailingWhiteSpace": "false",
    "emptyValue": "",
    "lineSep": "\n",
}


def is_directory(path: str) -> bool:
    """Whether `-o path` names a batch output directory: a trailing `/`, or a directory."""
    return path.endswith("/") or os.path.isdir(path)


class BatchDirectory:
    """The batch output directory `path` (any Hadoop file system URL Spark can write)."""

    def __init__(self, spark: SparkSession, path: str) -> None:
        self.spark = spark
        self.path = path.rstrip("/") or "/"

    def clear(self, after: int | None = None) -> None:
        """Remove the `batch=` directories (with `after`: of the batches after it), so that
        a run writes into a directory holding only its own batches."""
        jvm = self.spark.sparkContext._jvm
        root = jvm.org.apache.hadoop.fs.Path(self.path)
        fs = root.getFileSystem(self.spark.sparkContext._jsc.hadoopConfiguration())
        if not fs.exists(root):
            return
        if not fs.getFileStatus(root).isDirectory():
            raise UserError(f"output '{self.path}' is a file, not a directory")
        for status in fs.listStatus(root):
            got = _BATCH.match(status.getPath().getName())
            if got and (after is None or int(got.group(1)) > after):
                fs.delete(status.getPath(), True)

    def write(self, rows: DataFrame, fields: tuple[str, ...], partitions: int) -> None:
        """Write `rows` (columns `batch` and `fields`) into their batches' directories,
        replacing those, in at most `partitions` files per batch, each sorted."""
        order = ORDER[fields]
        (
            rows.select("batch", *fields)
            .coalesce(partitions)
            .sortWithinPartitions("batch", *order)
            .write.mode("overwrite")
            .option("partitionOverwriteMode", "dynamic")
            .options(**CSV_OPTIONS)
            .partitionBy("batch")
            .csv(self.path)
        )


def batches(path: str) -> list[tuple[int, str]]:
    """The batch directories under a local `path`, `(id, directory)` in the order of ids."""
    if not os.path.isdir(path):
        raise UserError(f"'{path}' is not a directory of batch output (sgq run -o DIR/)")
    found = []
    for name in os.listdir(path):
        got = _BATCH.match(name)
        if got and os.path.isdir(os.path.join(path, name)):
            found.append((int(got.group(1)), os.path.join(path, name)))
    return sorted(found)


def read_rows(path: str) -> tuple[tuple[str, ...], Iterator[list[str]]]:
    """The columns of a local batch output directory and its rows (lists of the CSV
    fields), batch after batch in order, each batch's in the single-file output's order."""
    found = batches(path)
    fields = None
    files_per_batch = []
    for _, directory in found:
        files = sorted(
            os.path.join(directory, f) for f in os.listdir(directory) if f.startswith("part-")
        )
        for name in files:
            head = _header(name)
            if head is None:
                continue
            if fields is None:
                fields = head
            elif head != fields:
                raise UserError(f"'{name}' has columns {','.join(head)}, not {','.join(fields)}")
        files_per_batch.append(files)
    if fields is None:
        return INTERVAL_FIELDS, iter(())
    if fields not in ORDER:
        raise UserError(f"'{path}' holds columns {','.join(fields)}, not sgq run output")
    return fields, _merged(files_per_batch, fields)


def _header(name: str) -> tuple[str, ...] | None:
    with open(name, newline="", encoding="utf-8") as handle:
        first = next(csv.reader(handle), None)
    return None if first is None else tuple(first)


def _merged(files_per_batch: list[list[str]], fields: tuple[str, ...]) -> Iterator[list[str]]:
    at = [fields.index(c) for c in ORDER[fields]]
    numeric = [fields[i] in _NUMERIC for i in at]

    def key(row: list[str]) -> tuple:
        return tuple(int(row[i]) if num else row[i] for i, num in zip(at, numeric))

    for files in files_per_batch:
        yield from heapq.merge(*(_rows(name) for name in files), key=key)


def _rows(name: str) -> Iterator[list[str]]:
    with open(name, newline="", encoding="utf-8") as handle:
        reader = csv.reader(handle)
        next(reader, None)
        yield from reader
