"""Spark SQL text for the Spark engine's expressions: a DataFrame program written with
`selectExpr`/`filter` strings costs one call to the JVM per operator, where the same program
built from `pyspark.sql.functions` columns costs one per column and function (on a busy
driver, milliseconds each: they dominated a small batch). Values from the user (vertex
constants, labels) go in as quoted literals."""

from __future__ import annotations


def literal(value: str) -> str:
    """`value` as a Spark SQL string literal.

    >>> literal("it's")
    "'it\\\\'s'"
    """
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def greatest(columns: list[str]) -> str:
    """The largest of `columns` (one column: itself)."""
    return columns[0] if len(columns) == 1 else f"greatest({', '.join(columns)})"


def least(columns: list[str]) -> str:
    """The smallest of `columns` (one column: itself)."""
    return columns[0] if len(columns) == 1 else f"least({', '.join(columns)})"
