"""The Spark oracle: the one-time meaning of a program (specs/semantics.md §4) evaluated in batch on
every change point at once, straight from the checked datalog program (never the SGA plan).

Public surface (pyspark is imported lazily, so importing this package never needs Java):
`evaluate_cases`, `evaluate`, `OracleResult`, `spark_session`.
"""

from __future__ import annotations

from .result import OracleResult
from .session import spark_session


def evaluate_cases(checked, streams):
    """See `oracle.evaluation.evaluate_cases` (imported lazily: it needs pyspark)."""
    from .evaluation import evaluate_cases as run

    return run(checked, streams)


def evaluate(checked, edges):
    """See `oracle.evaluation.evaluate`."""
    from .evaluation import evaluate as run

    return run(checked, edges)


def evaluate_many(cases):
    """See `oracle.evaluation.evaluate_many`."""
    from .evaluation import evaluate_many as run

    return run(cases)


__all__ = ["OracleResult", "evaluate", "evaluate_cases", "evaluate_many", "spark_session"]
