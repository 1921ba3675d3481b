"""The oracle's one local SparkSession: created lazily on first use, then reused.

local[2] (this machine has two cores), UI off, one shuffle partition and no whole-stage
codegen (the data is small; job, stage and task launches dominate), logs at ERROR. A missing
Java or pyspark becomes a `UserError` with a message, never a Java stack trace.
"""

from __future__ import annotations

import os
import shutil
import tempfile

from sgq.errors import UserError

_SESSION = None

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


def _log_config() -> str:
    path = os.path.join(tempfile.gettempdir(), "sgq-oracle-log4j2.properties")
    if not os.path.exists(path):
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(_LOG4J2)
    return path


def spark_session():
    """The shared SparkSession (started on the first call, ~5-10 s)."""
    global _SESSION
    if _SESSION is not None:
        return _SESSION
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise UserError("the Spark oracle needs pyspark 4.x: pip install 'pyspark>=4,<5'") from None
    if not _java_available():
        raise UserError(
            "the Spark oracle needs Java 17 (no 'java' on PATH and no JAVA_HOME); "
            "install a JDK 17 and try again"
        )
    java_opts = f"-Dlog4j2.configurationFile={_log_config()}"
    # the driver JVM reads its log configuration at launch: pass it on the submit line
    if "PYSPARK_SUBMIT_ARGS" not in os.environ:
        os.environ["PYSPARK_SUBMIT_ARGS"] = f'--driver-java-options "{java_opts}" pyspark-shell'
    try:
        session = (
            SparkSession.builder.master("local[2]")
            .appName("sgq-oracle")
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            # one shuffle partition: the data is tiny and every task costs a few ms
            .config("spark.sql.shuffle.partitions", "1")
            # interpreted execution: compiling code for every stage costs more than it saves
            .config("spark.sql.codegen.wholeStage", "false")
            .config("spark.default.parallelism", "2")
            .config("spark.driver.extraJavaOptions", java_opts)
            .config("spark.sql.adaptive.enabled", "false")
            # constraint propagation: slow on deep plans, and Spark 4 trips over unions of
            # self-joined checkpoints in InferFiltersFromConstraints ("key not found")
            .config("spark.sql.constraintPropagation.enabled", "false")
            # the driver is the whole local cluster: SGQ_SPARK_MEMORY for large windows
            .config("spark.driver.memory", os.environ.get("SGQ_SPARK_MEMORY", "1g"))
            .getOrCreate()
        )
    except Exception as exc:  # py4j / PySparkRuntimeError: Java gateway did not start
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise UserError(
            f"could not start the local Spark session for the oracle ({first}); "
            "check that Java 17 is installed and JAVA_HOME points at it"
        ) from None
    session.sparkContext.setLogLevel("ERROR")
    _SESSION = session
    return session


def stop_session() -> None:
    """Stop the shared session (tests call it at the end of a session)."""
    global _SESSION
    if _SESSION is not None:
        _SESSION.stop()
        _SESSION = None
