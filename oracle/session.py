"""The oracle's one local SparkSession: created lazily on first use, then reused.

local[2] (this machine has two cores), UI off, one shuffle partition (the data is small; job,
stage and task launches dominate) and sgq's shared settings (sgq/spark_session.py). A missing
Java or pyspark becomes a `UserError` with a message, never a Java stack trace.
"""

from __future__ import annotations

from sgq.spark_session import start_session

_SESSION = None


def spark_session():
    """The shared SparkSession (started on the first call, which takes seconds)."""
    global _SESSION
    if _SESSION is None:
        _SESSION = start_session("sgq-oracle", "the Spark oracle")
    return _SESSION


def stop_session() -> None:
    """Stop the shared session (tests call it at the end of a session)."""
    global _SESSION
    if _SESSION is not None:
        _SESSION.stop()
        _SESSION = None
