"""`sgq prepare`: turn many raw edge files of any size into one clean, time-ordered stream.

A PySpark job (local session of sgq/oracle/session.py). Raw CSV/TSV/JSON-lines/Parquet files
are validated row by row with the rules of `sgq run`'s reader (sgq/prepare_validate.py, which
reuses sgq/stream_io.py); bad rows go to `DIR/rejects/` (JSON lines: file, line, reason, raw
text); the good ones are sorted by time, stably (ties keep input order: file order, then line
order) and written as Parquet to `DIR/edges/` (src, trg, label: string; ts: int64; op).
`DIR/_PREPARED.json` is written last: counts, time range and the part files in stream order.
sgq/parquet_input.py reads the result back in bounded memory.

Input order is made explicit rather than trusted to Spark: every row carries (file index,
line number). Line numbers come from one cheap pre-pass that counts the lines of each file
split (Spark splits big files, and a split's rows arrive in file order); a worker then numbers
its rows from the split's base. The sort key (ts, file index, line) is unique, so the range-
partitioned sort writes part files whose order (part-00000, part-00001, ...) is stream order;
the manifest records that order and parquet_input checks it while reading.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from functools import partial
from urllib.parse import unquote, urlparse

from .base.errors import UserError
from .parquet_input import MANIFEST
from .prepare_validate import (
    BAD,
    GOOD,
    HEADER_MODES,
    SKIP,
    TIME_FORMATS,
    FilePlan,
    plan_file,
    raw_format,
    validate_line,
    validate_row,
)
from .stream_io import _ALIASES, COLUMNS, REQUIRED, parse_columns

EDGES = "edges"
REJECTS = "rejects"
ROW_GROUP_BYTES = 16 * 1024 * 1024  # bounds the memory parquet_input needs per batch

_OUT_SCHEMA = (
    "src string, trg string, label string, ts long, op string, "
    "fidx int, line long, reason string, raw string"
)


def _norm(path: str) -> str:
    """A file path or Spark's `file:` URI of it -> one comparable absolute path."""
    if path.startswith("file:"):
        path = unquote(urlparse(path).path)
    return os.path.realpath(path)


def _expand_inputs(raws: list[str]) -> list[str]:
    """Files in the given order; a directory stands for its visible files, sorted by name."""
    files: list[str] = []
    for raw in raws:
        if not os.path.exists(raw):
            raise UserError(f"input '{raw}' does not exist")
        if os.path.isdir(raw):
            inside = sorted(
                os.path.join(raw, n)
                for n in os.listdir(raw)
                if not n.startswith((".", "_")) and os.path.isfile(os.path.join(raw, n))
            )
            if not inside:
                raise UserError(f"input directory '{raw}' holds no files")
            files.extend(inside)
        else:
            files.append(raw)
    return files


def _check_output(output: str, files: list[str], overwrite: bool) -> None:
    out = os.path.realpath(output)
    for f in files:
        if os.path.realpath(f).startswith(out + os.sep) or os.path.realpath(f) == out:
            raise UserError(f"input '{f}' lies inside the output directory '{output}'")
    if os.path.exists(output):
        if not os.path.isdir(output):
            raise UserError(f"output '{output}' exists and is not a directory")
        if os.listdir(output):
            if not overwrite:
                raise UserError(
                    f"output directory '{output}' is not empty (use --overwrite to replace it)"
                )
            shutil.rmtree(output)


def _hadoop_path(path: str) -> str:
    """An absolute path with Hadoop's glob characters escaped (Spark globs its paths)."""
    absolute = os.path.abspath(path)
    return "".join("\\" + c if c in "[]{}*?\\" else c for c in absolute)


def _validate_partition(plans: dict, bases: dict, iso: bool, rows):
    """Worker side: number each row from its split's base line, validate it, emit one output
    row (good: the edge; bad: file, line, reason, raw text)."""
    current, n = None, 0
    for row in rows:
        key = (row.f, row.bs)
        if key != current:
            current, n = key, bases.get(key, 0)
        n += 1
        plan = plans[row.f]
        if row.b is not None:
            raw = bytes(row.b)
            kind, edge, reason = validate_line(raw, n, plan, iso)
            shown = raw.decode("utf-8", errors="replace") if kind == BAD else None
        else:
            kind, edge, reason = validate_row(
                dict(zip(COLUMNS, row.v)), n, plan, iso and not plan.ts_epoch
            )
            shown = row.rawtxt if kind == BAD else None
        if kind == SKIP:
            continue
        if kind == GOOD:
            yield (edge[0], edge[1], edge[2], edge[3], edge[4], plan.index, n, None, None)
        else:
            yield (None, None, None, None, None, plan.index, n, reason, shown)


def _parquet_frame(spark, plan: FilePlan, columns: tuple[str, ...] | None):
    """One raw Parquet file as rows (f, bs, b=null, v=[src,trg,label,ts,op] text, rawtxt)."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import DateType, TimestampNTZType, TimestampType

    df = spark.read.parquet(_hadoop_path(plan.path))
    fields = df.schema.fields
    if columns is not None:
        if len(columns) != len(fields):
            raise UserError(
                f"{plan.path}: --columns names {len(columns)} columns, the file has {len(fields)}"
            )
        mapping = {c: f.name for c, f in zip(columns, fields) if c not in ("_", "")}
    else:
        mapping = {}
        for f in fields:
            name = _ALIASES.get(f.name.lower(), f.name.lower())
            if name in COLUMNS and name not in mapping:
                mapping[name] = f.name
        missing = [c for c in REQUIRED if c not in mapping]
        if missing:
            raise UserError(
                f"{plan.path}: no column for {', '.join(missing)} "
                f"(columns: {', '.join(f.name for f in fields)}; use --columns)"
            )
    types = {f.name: f.dataType for f in fields}
    values = []
    for c in COLUMNS:
        if c not in mapping:
            values.append(F.lit(None).cast("string"))
            continue
        col = F.col(f"`{mapping[c]}`")
        if c == "ts" and isinstance(types[mapping[c]], (TimestampType, TimestampNTZType, DateType)):
            col = F.unix_timestamp(col.cast("timestamp"))  # epoch seconds (session time zone)
            plan.ts_epoch = True
        values.append(col.cast("string"))
    return df.select(
        F.col("_metadata.file_path").alias("f"),
        F.col("_metadata.file_block_start").alias("bs"),
        F.lit(None).cast("binary").alias("b"),
        F.array(*values).alias("v"),
        F.to_json(F.struct(*[F.col(f"`{f.name}`") for f in fields])).alias("rawtxt"),
    )


def prepare(
    raws: list[str],
    output: str,
    fmt: str | None = None,
    columns: str | None = None,
    time_format: str = "epoch",
    header: str = "auto",
    overwrite: bool = False,
    spark=None,
) -> dict:
    """Run the job; returns the manifest (also written to `output/_PREPARED.json`)."""
    started = time.time()
    if time_format not in TIME_FORMATS:
        raise UserError(f"unknown time format '{time_format}' (use {', '.join(TIME_FORMATS)})")
    if header not in HEADER_MODES:
        raise UserError(f"unknown header mode '{header}'")
    cols = parse_columns(columns) if columns else None
    files = _expand_inputs(raws)
    formats = [raw_format(f, fmt) for f in files]
    _check_output(output, files, overwrite)
    iso = time_format == "iso8601"
    plans = [
        plan_file(i, f, ff, cols, header, iso) for i, (f, ff) in enumerate(zip(files, formats))
    ]

    if spark is None:
        from .oracle.session import spark_session

        spark = spark_session()
    from py4j.protocol import Py4JError
    from pyspark.errors import PySparkException

    edges_dir = os.path.join(output, EDGES)
    try:
        lines_read, stats = _run_job(spark, plans, cols, time_format == "iso8601", output)
    except (PySparkException, Py4JError) as exc:
        text = str(exc).strip()
        first = text.splitlines()[0] if text else type(exc).__name__
        raise UserError(f"the Spark job failed: {first}") from None

    parts = sorted(n for n in os.listdir(edges_dir) if n.endswith(".parquet"))
    manifest = {
        "format": "sgq-prepared-1",
        "inputs": [
            {
                "path": p.path,
                "format": p.fmt,
                "columns": list(p.order) if p.order else None,
                "header_line": p.header_line,
            }
            for p in plans
        ],
        "time_format": time_format,
        "lines_read": lines_read,
        "rows_read": stats["written"] + stats["rejected"],
        "rejected": stats["rejected"],
        "written": stats["written"],
        "ts_min": stats["ts_min"],
        "ts_max": stats["ts_max"],
        "edges": [f"{EDGES}/{n}" for n in parts],
        "seconds": round(time.time() - started, 3),
    }
    tmp = os.path.join(output, MANIFEST + ".tmp")
    with open(tmp, "w", encoding="utf-8") as handle:
        json.dump(manifest, handle, indent=2)
        handle.write("\n")
    os.replace(tmp, os.path.join(output, MANIFEST))
    return manifest


def _run_job(spark, plans: list[FilePlan], cols, iso: bool, output: str):
    """The Spark part: scan, number, validate, then write edges/ and rejects/; returns
    (lines read, counts)."""
    from pyspark import StorageLevel
    from pyspark.sql import functions as F

    edges_dir = os.path.join(output, EDGES)
    frames = []
    text = [p for p in plans if p.fmt != "parquet"]
    if text:
        frames.append(
            spark.read.option("lineSep", "\n")
            .text([_hadoop_path(p.path) for p in text])
            .select(
                F.col("_metadata.file_path").alias("f"),
                F.col("_metadata.file_block_start").alias("bs"),
                F.col("value").cast("binary").alias("b"),
                F.lit(None).cast("array<string>").alias("v"),
                F.lit(None).cast("string").alias("rawtxt"),
            )
        )
    for p in plans:
        if p.fmt == "parquet":
            frames.append(_parquet_frame(spark, p, cols))
    scan = frames[0]
    for other in frames[1:]:
        scan = scan.unionByName(other)

    # Pre-pass: lines per file split, so workers can number lines from the file's start.
    by_path = {_norm(p.path): p for p in plans}
    splits: dict[str, list[tuple[int, int]]] = {}
    for row in scan.groupBy("f", "bs").count().collect():
        splits.setdefault(row["f"], []).append((row["bs"], row["count"]))
    bases: dict[tuple[str, int], int] = {}
    worker_plans: dict[str, FilePlan] = {}
    lines_read = 0
    for uri, parts in splits.items():
        plan = by_path.get(_norm(uri))
        if plan is None:
            raise UserError(f"Spark read a file that was not asked for: {uri}")
        worker_plans[uri] = plan
        base = 0
        for bs, count in sorted(parts):
            bases[(uri, bs)] = base
            base += count
        lines_read += base

    checked = spark.createDataFrame(
        scan.rdd.mapPartitions(partial(_validate_partition, worker_plans, bases, iso)),
        _OUT_SCHEMA,
    ).persist(StorageLevel.DISK_ONLY)
    try:
        stats = checked.agg(
            F.count(F.when(F.col("reason").isNull(), 1)).alias("written"),
            F.count(F.col("reason")).alias("rejected"),
            F.min("ts").alias("ts_min"),
            F.max("ts").alias("ts_max"),
        ).collect()[0]
        (
            checked.where(F.col("reason").isNull())
            .orderBy("ts", "fidx", "line")
            .select("src", "trg", "label", "ts", "op")
            .write.option("parquet.block.size", ROW_GROUP_BYTES)
            .mode("overwrite")
            .parquet(edges_dir)
        )
        names = {p.index: p.path for p in plans}
        file_name = F.create_map(*[x for i, path in names.items() for x in (F.lit(i), F.lit(path))])
        (
            checked.where(F.col("reason").isNotNull())
            .orderBy("fidx", "line")
            .select(file_name[F.col("fidx")].alias("file"), "line", "reason", "raw")
            .coalesce(1)
            .write.mode("overwrite")
            .json(os.path.join(output, REJECTS))
        )
    finally:
        checked.unpersist()
    return lines_read, stats


def summary(manifest: dict, output: str) -> str:
    """The one line `sgq prepare` prints."""
    span = (
        f", t {manifest['ts_min']}..{manifest['ts_max']}" if manifest["ts_min"] is not None else ""
    )
    return (
        f"prepared {output}: {manifest['rows_read']} rows read from "
        f"{len(manifest['inputs'])} file(s), {manifest['written']} written, "
        f"{manifest['rejected']} rejected{span} ({manifest['seconds']:.1f}s)"
    )
