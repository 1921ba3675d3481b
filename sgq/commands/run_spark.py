"""`sgq run --engine spark`: the command-line side of the Spark engine (spark_engine/):
its flags, what it refuses, the session, the input's batches, the progress lines.

The input is an edge file read on the driver by the engine's own reader (bounded memory: one
batch), or a directory written by `sgq prepare`, which Spark reads itself (the route for a
stream larger than the driver). `--master` points the run at a cluster (`spark://...`,
`yarn`, `k8s://...`; default `local[2]`), `--partitions` sets the shuffle partitions, and
`--checkpoint DIR` commits every batch (spark_engine/commits.py). `--follow DIR` reads a
landing directory of `sgq prepare` outputs as it grows, as a Structured Streaming query
(sgq/spark_follow.py), until SIGINT/SIGTERM; `--idle-flush S` runs the open batch after
S seconds without a new output. `-o OUT/` (a trailing
`/` or an existing directory) has the executors write each batch's rows as
`OUT/batch=<id>/part-*.csv` (spark_engine/batch_output.py; `sgq results OUT/` reads them back
in order); `-o FILE` collects them to the driver, for small runs.
"""

from __future__ import annotations

import argparse
import os
import sys

from ..base.durable import text_digest
from ..base.errors import UserError
from ..incremental.engine import check_properties
from ..live import check_arguments as check_follow_arguments
from ..parquet_input import MANIFEST, manifest
from ..reorder import TimeLimit, ordered
from ..sga.algebra import properties_read
from ..stream_io import FileLines, guess_format, parse_columns, parse_lines
from .common import window_overrides

#: the flags of `sgq run` the Spark engine does not take yet, with why
_REFUSED = (
    ("paths", "--paths", "witness paths are not kept by the Spark engine"),
    ("max_lateness", "--max-lateness", "the Spark engine takes time-ordered input"),
    ("metrics_port", "--metrics-port", "the Spark UI shows the run's metrics"),
    ("metrics_file", "--metrics-file", "the Spark UI shows the run's metrics"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """`--engine`, `--master` and `--partitions` of `sgq run`."""
    parser.add_argument(
        "--engine",
        choices=("incremental", "spark"),
        default="incremental",
        help="incremental: the single-process engine (default); spark: micro-batches of one "
        "slide bucket on Spark, for windows or rates beyond one process (insert-only "
        "streams; see docs/scaling.md)",
    )
    parser.add_argument(
        "--master",
        metavar="URL",
        default="local[2]",
        help="with --engine spark: the Spark master (default local[2]; spark://HOST:7077, "
        "yarn, k8s://...)",
    )
    parser.add_argument(
        "--partitions",
        type=int,
        metavar="N",
        default=None,
        help="with --engine spark: shuffle partitions (default: 2, or the session's own)",
    )


def check_arguments(args: argparse.Namespace) -> None:
    """Spark-only flags without --engine spark, and flags the Spark engine refuses."""
    if args.engine != "spark":
        if args.master != "local[2]" or args.partitions is not None:
            raise UserError("--master and --partitions go with --engine spark")
        return
    for attr, flag, why in _REFUSED:
        if getattr(args, attr, None):
            raise UserError(f"--engine spark does not take {flag} yet: {why}")
    if args.rejects and not args.idle_flush:
        raise UserError(
            "--engine spark takes --rejects only with --follow --idle-flush (for the edges it "
            "drops as late): bad lines stop a Spark engine run (--on-error fail)"
        )
    check_follow_arguments(args)
    if args.follow:
        _check_follow(args)
    if args.on_error != "fail":
        raise UserError("--engine spark does not take --on-error skip yet: bad lines stop the run")
    if args.partitions is not None and args.partitions < 1:
        raise UserError(f"--partitions: must be a positive integer, not {args.partitions}")
    if args.input == "-":
        raise UserError("--engine spark needs --input FILE or a prepared directory, not stdin")
    if not os.path.exists(args.input):
        raise UserError(f"input file '{args.input}' does not exist")


def _check_follow(args: argparse.Namespace) -> None:
    """`--follow` with the Spark engine: a landing directory of sgq prepare outputs."""
    from ..follow import check_landing_dir

    if os.path.exists(args.input) and not os.path.isdir(args.input):
        raise UserError(
            "--engine spark --follow reads a directory sgq prepare outputs land in, not a "
            "file: follow a file with the single-process engine, or land it with sgq prepare"
        )
    check_landing_dir(args.input)


def run(args: argparse.Namespace, query) -> int:
    """Evaluate `query` with the Spark engine as `args` say."""
    from ..run_job import output_format
    from ..spark_engine.commits import SparkCheckpoint
    from ..spark_engine.engine import SparkEngine
    from ..spark_run import DirectorySink, SparkRun, progress_line
    from ..spark_session import start_session

    prepared = os.path.isdir(args.input) and not args.follow
    settings = _settings(args, query, prepared)
    properties = _input_properties(args, prepared)
    check_properties(properties_read(query.plan), properties or ())  # before Spark starts
    ckpt = SparkCheckpoint(args.checkpoint, settings, args.kill_at) if args.checkpoint else None
    spark = start_session(
        "sgq-spark-engine",
        "the Spark engine",
        args.master,
        ui=True,
        shuffle_partitions=args.partitions or 2,
    )
    if args.partitions is not None:
        spark.conf.set("spark.sql.shuffle.partitions", str(args.partitions))
    engine = SparkEngine(query.plan, spark, properties or ())
    ui = spark.sparkContext.uiWebUrl
    print(
        f"sgq run: Spark engine on {spark.sparkContext.master}, "
        f"{spark.conf.get('spark.sql.shuffle.partitions')} shuffle partitions"
        + (f"; Spark UI {ui}" if ui else ""),
        file=sys.stderr,
    )
    quiet = args.no_progress
    report = None if quiet else (lambda r: print(progress_line(r), file=sys.stderr))
    job = SparkRun(engine, args.output, args.emit, output_format(args), ckpt, report)
    if args.follow:
        _follow(args, job)
    else:
        job.run(_batches(args, engine, spark, prepared))
    written = (
        f"interval rows into {args.output}"
        if isinstance(job.sink, DirectorySink)
        else ("deltas" if args.emit == "deltas" else "results")
    )
    print(
        f"sgq run: {job.commit.edges:,} edges, {job.rows:,} {written} in {job.batches:,} batches "
        f"({engine.store.jobs:,} state jobs), peak state {job.peak_state:,} rows",
        file=sys.stderr,
    )
    return 0


def _follow(args: argparse.Namespace, job) -> None:
    """Follow the landing directory until SIGINT/SIGTERM (sgq/spark_follow.py)."""
    import shutil
    import tempfile

    from ..live import StopRequest
    from ..rejects import rejects_path
    from ..spark_follow import FollowRun

    scratch = None
    if args.checkpoint:
        stream_dir = os.path.join(args.checkpoint, "stream")
    else:
        scratch = stream_dir = tempfile.mkdtemp(prefix="sgq-follow-")
    rejects = rejects_path(args) if args.idle_flush else None
    follow = FollowRun(job, args.input, stream_dir, rejects, args.idle_flush)
    try:
        with StopRequest() as stop:
            follow.start()
            print(f"sgq run: following {args.input} (stop with Ctrl-C)", file=sys.stderr)
            follow.follow(stop)
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)


def _input_properties(args: argparse.Namespace, prepared: bool) -> tuple[str, ...] | None:
    """The input's property names (None: it has none; specs/semantics.md §1), read from its
    head before Spark starts: a program reading another fails before any work."""
    from ..live import follow_properties
    from ..parquet_input import prepared_properties
    from ..stream_io import file_properties

    columns = parse_columns(args.columns) if args.columns else None
    if args.follow:
        return follow_properties(args, columns)
    if prepared:
        return None if args.format or args.columns else prepared_properties(args.input)
    return file_properties(args.input, args.format, columns)


def _batches(args, engine, spark, prepared: bool):
    from ..spark_source import driver_batches, prepared_batches

    if prepared:
        if args.format or args.columns:
            raise UserError(
                "--format and --columns do not apply to a directory prepared by sgq prepare"
            )
        yield from prepared_batches(
            spark, args.input, engine.grid, engine.labels, engine.keys, TimeLimit.of(engine.plan)
        )
        return
    columns = parse_columns(args.columns) if args.columns else None
    fmt = args.format or guess_format(args.input)
    position = [0]
    if args.input.endswith(".gz"):
        import gzip

        handle = gzip.open(args.input, "rb")
    else:
        try:
            handle = open(args.input, "rb")
        except OSError as exc:
            raise UserError(
                f"cannot read input file '{args.input}': {exc.strerror or exc}"
            ) from None
    with handle:
        lines = FileLines(handle, args.input)
        edges = ordered(
            parse_lines(lines, fmt, columns, args.input, position=position),
            args.input,
            position,
            limit=TimeLimit.of(engine.plan),
        )
        yield from driver_batches(
            spark, edges, engine.grid, engine.labels, args.input, position, engine.keys
        )


def _settings(args: argparse.Namespace, query, prepared: bool) -> dict:
    """What a checkpoint must agree on with the command resuming it."""
    from ..run_job import output_format

    if prepared:
        manifest(args.input)  # a clean error if it is not a prepared directory
        with open(os.path.join(args.input, MANIFEST), encoding="utf-8") as handle:
            source = {"prepared_manifest_sha256": text_digest(handle.read())}
    elif args.follow:
        source = {"follow": True}
    else:
        source = {"format": args.format or guess_format(args.input), "columns": args.columns}
    from ..spark_engine.batch_output import is_directory

    return {
        "engine": "spark",
        "output_directory": args.output != "-" and is_directory(args.output),
        "program_sha256": text_digest(query.source),
        **query.options.as_dict(),
        **window_overrides(args),
        "emit": args.emit,
        "output_format": output_format(args),
        **source,
    }
