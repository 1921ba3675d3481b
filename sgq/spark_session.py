"""Starting a SparkSession for sgq: the settings every sgq Spark job shares, and the checks
that turn a missing Java or pyspark into a `UserError` with a message (never a Java stack
trace).

Used by the oracle (oracle/session.py: one lazy local session per process) and by the Spark
engine (`sgq run --engine spark`, spark_engine/), which stay independent of each other: this
module only starts sessions, it evaluates nothing. Settings: interpreted execution (no whole-
stage codegen: compiling code for every stage costs more than it saves on batches of this
size), no adaptive execution (stable plans and partitioning), no constraint propagation (slow
on deep plans, and Spark 4 trips over unions of self-joined checkpoints in
InferFiltersFromConstraints: "key not found"), logs at ERROR.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile

from .base.errors import UserError
from .collector import tune_for_spark

_LOG4J2 = """\
status = error
rootLogger.level = error
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n
"""


def _java_available() -> bool:
    home = os.environ.get("JAVA_HOME")
    if home and os.path.exists(os.path.join(home, "bin", "java")):
        return True
    return shutil.which("java") is not None


def worker_python(master: str) -> None:
    """On a local master, Spark's Python workers run this interpreter (`PYSPARK_PYTHON`,
    unless the user set it): else they run the first `python3` on PATH, which, for a
    `.venv/bin/sgq` started without activating its venv, has no sgq installed (its jobs
    then failed with "No module named 'sgq.datalog'")."""
    if master.startswith("local") and "PYSPARK_PYTHON" not in os.environ:
        os.environ["PYSPARK_PYTHON"] = sys.executable


def _log_config() -> str:
    path = os.path.join(tempfile.gettempdir(), "sgq-oracle-log4j2.properties")
    if not os.path.exists(path):
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(_LOG4J2)
    return path


def start_session(
    app_name: str,
    purpose: str,
    master: str = "local[2]",
    *,
    ui: bool = False,
    shuffle_partitions: int = 1,
):
    """A SparkSession named `app_name` on `master` (an active session of this process is
    reused as it is: Spark allows one per process). `purpose` names the caller in error
    messages ("the Spark oracle"); `ui`: serve the Spark UI; `shuffle_partitions`: the
    default of `spark.sql.shuffle.partitions` (one for the oracle's tiny data)."""
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise UserError(f"{purpose} needs pyspark 4.x: pip install 'pyspark>=4,<5'") from None
    tune_for_spark()  # before any py4j proxy exists: see sgq/collector.py
    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    if not _java_available():
        raise UserError(
            f"{purpose} needs Java 17 (no 'java' on PATH and no JAVA_HOME); "
            "install a JDK 17 and try again"
        )
    worker_python(master)
    java_opts = f"-Dlog4j2.configurationFile={_log_config()}"
    # the driver JVM reads its log configuration at launch: pass it on the submit line
    if "PYSPARK_SUBMIT_ARGS" not in os.environ:
        os.environ["PYSPARK_SUBMIT_ARGS"] = f'--driver-java-options "{java_opts}" pyspark-shell'
    try:
        session = (
            SparkSession.builder.master(master)
            .appName(app_name)
            .config("spark.ui.enabled", "true" if ui else "false")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.sql.shuffle.partitions", str(shuffle_partitions))
            .config("spark.sql.codegen.wholeStage", "false")
            .config("spark.default.parallelism", "2")
            .config("spark.driver.extraJavaOptions", java_opts)
            .config("spark.sql.adaptive.enabled", "false")
            .config("spark.sql.constraintPropagation.enabled", "false")
            # the driver is the whole local cluster: SGQ_SPARK_MEMORY for large windows
            .config("spark.driver.memory", os.environ.get("SGQ_SPARK_MEMORY", "1g"))
            # the page of a hash table, which Spark sizes from the driver's memory otherwise:
            # with a 2g or a 4g driver (not 1g or 3g), building the broadcast side of a join on
            # two string keys (property values) failed for want of memory, even on tiny inputs
            .config("spark.buffer.pageSize", "16m")
            # what a finished batch's broadcasts and checkpoints hold is freed once the driver's
            # garbage collector has found them unreachable; over a long run (or a long test
            # run on one session) a collection every minute keeps it from piling up
            .config("spark.cleaner.periodicGC.interval", "1min")
            .getOrCreate()
        )
    except Exception as exc:  # py4j / PySparkRuntimeError: Java gateway did not start
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise UserError(
            f"could not start the Spark session for {purpose} on {master} ({first}); "
            "check that Java 17 is installed and JAVA_HOME points at it"
        ) from None
    session.sparkContext.setLogLevel("ERROR")
    return session
