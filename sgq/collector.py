"""The cyclic garbage collector's thresholds for a long evaluation (the `sgq` command and
the benchmark children).

sgq's state is many small long-lived containers (closure rows, coverage entries, index
entries) and its garbage is almost never cyclic: reference counting frees it at once. With
CPython's default thresholds (700, 10, 10) the collector still runs a full collection, which
walks every live container, after every ~70,000 net container allocations: a large share of
the CPU of `sgq run` of `[knows*]` with interval rows over the snb stream. A young generation
of 1,000,000 makes even young collections rare (so Q6 with delta rows over the so stream
still spends seconds in them at 100,000, none at 1,000,000).

A process that runs Spark keeps a young generation of 100,000: the Python proxies of JVM
objects (py4j) free their JVM side when they are collected, and those in reference cycles
wait for the cyclic collector; collected ten times less often they held the Spark driver's
memory until its aggregations failed. `start_session` calls
`tune_for_spark`, and a later `tune_for_long_run` in the same process keeps its setting.

A library user's process keeps its own settings: these are called only where sgq owns the
process or starts Spark.
"""

from __future__ import annotations

import gc

#: (young, middle, old) thresholds of `gc.set_threshold` for a long run without Spark
LONG_RUN_THRESHOLDS = (1_000_000, 50, 100)

#: the same for a process that has started Spark
SPARK_THRESHOLDS = (100_000, 50, 100)

_spark_started = False


def tune_for_long_run() -> None:
    """Set the collector's thresholds for the rest of the process: `LONG_RUN_THRESHOLDS`, or
    `SPARK_THRESHOLDS` once Spark has started in it."""
    gc.set_threshold(*(SPARK_THRESHOLDS if _spark_started else LONG_RUN_THRESHOLDS))


def tune_for_spark() -> None:
    """Record that this process runs Spark, and lower a young generation larger than
    `SPARK_THRESHOLDS`'s (a library user's smaller one stays)."""
    global _spark_started
    _spark_started = True
    young = gc.get_threshold()[0]
    if young > SPARK_THRESHOLDS[0]:
        gc.set_threshold(*SPARK_THRESHOLDS)


def spark_started() -> bool:
    """Whether `tune_for_spark` has been called in this process."""
    return _spark_started
