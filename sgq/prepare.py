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
from .stream_io import _ALIASES, COLUMNS, INT64_MAX, INT64_MIN, REQUIRED, parse_columns

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


def _validate_partition(plans: dict, bases: dict, iso: bool, names: tuple, rows):
    """Worker side: number each row from its split's base line, validate it, emit one output
    row (good: the edge and its properties, three columns each (`property_columns`); bad:
    file, line, reason, raw text)."""
    current, n = None, 0
    empty = (None,) * (3 * len(names))
    for row in rows:
        key = (row.f, row.bs)
        if key != current:
            current, n = key, bases.get(key, 0)
        n += 1
        plan = plans[row.f]
        if row.b is not None:
            kind, edge, reason = validate_line(bytes(row.b), n, plan, iso)
        else:
            values = dict(zip(COLUMNS, row.v))
            kind, edge, reason = validate_row(values, n, plan, iso and not plan.ts_epoch, row.pj)
            if kind == GOOD and row.pbad is not None:
                kind, reason = BAD, f"property '{row.pbad}' is a NaN or an infinity"
        if kind == SKIP:
            continue
        props = empty
        if kind == GOOD and len(edge) > 5:
            try:
                props = property_columns(edge[5], names)
            except ValueError as exc:
                kind, reason = BAD, str(exc)
        if kind == GOOD:
            yield (edge[0], edge[1], edge[2], edge[3], edge[4], plan.index, n, None, None, *props)
        else:
            shown = bytes(row.b).decode("utf-8", errors="replace") if row.b else row.rawtxt
            yield (None, None, None, None, None, plan.index, n, reason, shown, *empty)


def property_columns(props: dict, names: tuple) -> tuple:
    """An edge's properties as the job's columns: for each of `names`, its value in one of
    three (an int64, a double, a string; all null when it is missing). A ValueError for an
    integer outside int64, which a Parquet column does not hold."""
    out: list = []
    for name in names:
        value = props.get(name)
        kind = type(value)
        if kind is int:
            if not INT64_MIN <= value <= INT64_MAX:
                raise ValueError(f"property '{name}' is an integer outside int64")
            out += (value, None, None)
        elif kind is float:
            out += (None, value, None)
        else:
            out += (None, None, value)
    return tuple(out)


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
    mapped = set(mapping.values())
    # (with --columns, every column is named there: `_` skips one, none is a property)
    props = [f for f in fields if f.name not in mapped] if columns is None else []
    plan.names = _parquet_properties(plan.path, props)
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
        *_property_json(props),
    )


def _property_json(props: list) -> list:
    """A raw Parquet row's property columns as the job carries them: `pj`, a JSON object of
    their values (nulls left out), and `pbad`, the name of one holding a NaN or an infinity
    (which no property holds; JSON would write it as text), else null."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import FractionalType

    if not props:
        return [F.lit(None).cast("string").alias("pj"), F.lit(None).cast("string").alias("pbad")]
    values, bad = [], []
    for f in props:
        col = F.col(f"`{f.name}`")
        if isinstance(f.dataType, FractionalType):
            odd = F.isnan(col) | (F.abs(col) == F.lit(float("inf")))
            bad.append(F.when(odd, F.lit(f.name)))
            col = F.when(~odd, col).alias(f.name)
        values.append(col)
    found = F.coalesce(*bad) if bad else F.lit(None)
    return [F.to_json(F.struct(*values)).alias("pj"), found.cast("string").alias("pbad")]


def _parquet_properties(path: str, fields: list) -> tuple[str, ...] | None:
    """The property columns of a raw Parquet file: each a number or text (the column's type
    is its values' type, specs/semantics.md §1)."""
    from pyspark.sql.types import FractionalType, IntegralType, StringType

    for f in fields:
        if not isinstance(f.dataType, IntegralType | FractionalType | StringType):
            raise UserError(
                f"{path}: property column {f.name} is {f.dataType.simpleString()}, not a "
                "number or text"
            )
    return tuple(f.name for f in fields) or None


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
                F.lit(None).cast("string").alias("pj"),
                F.lit(None).cast("string").alias("pbad"),
            )
        )
    for p in plans:
        if p.fmt == "parquet":
            frames.append(_parquet_frame(spark, p, cols))
    names = tuple(dict.fromkeys(n for p in plans for n in (p.names or ())))
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

    schema = _OUT_SCHEMA + "".join(
        f", p{i}_i long, p{i}_f double, p{i}_s string" for i in range(len(names))
    )
    checked = spark.createDataFrame(
        scan.rdd.mapPartitions(partial(_validate_partition, worker_plans, bases, iso, names)),
        schema,
    ).persist(StorageLevel.DISK_ONLY)
    try:
        kinds = [F.count(f"p{i}_{k}").alias(f"p{i}_{k}") for i in range(len(names)) for k in "ifs"]
        stats = checked.agg(
            F.count(F.when(F.col("reason").isNull(), 1)).alias("written"),
            F.count(F.col("reason")).alias("rejected"),
            F.min("ts").alias("ts_min"),
            F.max("ts").alias("ts_max"),
            *kinds,
        ).collect()[0]
        props = [_property_column(name, i, stats) for i, name in enumerate(names)]
        (
            checked.where(F.col("reason").isNull())
            .orderBy("ts", "fidx", "line")
            .select("src", "trg", "label", "ts", "op", *props)
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


def _property_column(name: str, i: int, stats):
    """The column property `name` is written as: int64 when its values are all integers,
    double when they are numbers, string when they are strings (specs/semantics.md §1: the
    column's type is its values' type, and `15` equals `15.0`). A property holding numbers
    and strings both has no Parquet type: a UserError says so."""
    from pyspark.sql import functions as F

    ints, floats, strings = stats[f"p{i}_i"], stats[f"p{i}_f"], stats[f"p{i}_s"]
    if strings and (ints or floats):
        raise UserError(
            f"property '{name}' holds numbers and strings: a Parquet column has one type "
            "(quote its numbers to read them all as strings, or give the strings another "
            "column)"
        )
    if strings:
        return F.col(f"p{i}_s").alias(name)
    if floats:
        return F.coalesce(F.col(f"p{i}_f"), F.col(f"p{i}_i").cast("double")).alias(name)
    return F.col(f"p{i}_i").alias(name)


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
