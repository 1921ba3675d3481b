"""Property values in the Spark engine (specs/semantics.md §1, §4c): how they travel in a
batch's edge columns and in the engine's vertex columns, and the SQL that tests and compares
them as base/property_values.py does.

A value is a string column, so that one column holds an edge's integers, floats and strings
alike, and equal values are equal strings: a type tag, then the text. A number is `n` then its
text, an integral one (an int, or a float such as `15.0`) as the integer it is and any other
float as the shortest text that reads back as it: `15` and `15.0` are both `n15`, which
`"15"`, a string (`s15`), is not. So a join on encoded values is §4c's equality (equal,
comparable values), and a missing value is NULL. Orderings and offsets decode numbers as
doubles.

A reified edge `e = (x, y, values)` (sga/algebra.py `WScan.carries`) is the JSON array of its
parts' strings, which Spark writes and reads back (`get_json_object`) exactly: ATTRIBUTE's
parts are then one expression each.
"""

from __future__ import annotations

from ..sga.algebra import PropertyCondition, PropertyTest
from .sql_text import literal

NUMBER = "n"
STRING = "s"


def column(key: str) -> str:
    """The edge column of property `key` in a batch (any name is a safe identifier)."""
    return "p_" + key.encode("utf-8").hex()


def encoded(value: int | float | str | None) -> str | None:
    """The column text of a property value read on the driver; None for a missing one.

    >>> encoded(15), encoded(15.0), encoded("15"), encoded(0.5)
    ('n15', 'n15', 's15', 'n0.5')
    """
    if value is None:
        return None
    if type(value) is str:
        return STRING + value
    if type(value) is float and not value.is_integer():
        return NUMBER + repr(value)
    return NUMBER + str(int(value))


def encoded_sql(name: str, kind: str) -> str:
    """SQL encoding a typed Parquet column `name` of `kind` ("integer", "float" or
    "string") as `encoded` does on the driver, but for the text of a float that is not
    integral (or beyond the range of a long): Java's, which reads back as the same double
    too, so that equal values are still equal strings. A run reads one route only (a
    checkpoint holds its input's kind), so the two never meet. NULL stays NULL."""
    if kind == "string":
        return f"concat('{STRING}', {name})"
    if kind == "integer":
        return f"concat('{NUMBER}', CAST({name} AS STRING))"
    value = f"CAST({name} AS DOUBLE)"  # (a 32-bit float is the double it reads as)
    integral = f"{value} = floor({value}) AND abs({value}) < 1e18"
    return (
        f"concat('{NUMBER}', CASE WHEN {integral} THEN CAST(CAST({value} AS BIGINT) AS STRING) "
        f"ELSE CAST({value} AS STRING) END)"
    )


def _tag(sql: str) -> str:
    return f"substr({sql}, 1, 1)"


def _number(sql: str) -> str:
    return f"CAST(substr({sql}, 2) AS DOUBLE)"


def _op(op: str) -> str:
    return "<>" if op == "!=" else op


def test_sql(test: PropertyTest) -> str:
    """A WSCAN test (`has k`, `k op c`) as a predicate over the edge columns: false on a
    missing value and on values not comparable with `c`."""
    col = column(test.key)
    if test.op == "has":
        return f"{col} IS NOT NULL"
    value = test.value
    if test.op in ("=", "!="):
        tag = STRING if type(value) is str else NUMBER
        same = f"{col} {_op(test.op)} {literal(encoded(value))}"
        return same if test.op == "=" else f"{_tag(col)} = '{tag}' AND {same}"
    if type(value) is str:  # (ordered strings are an error in the program)
        return "false"
    return f"{_tag(col)} = '{NUMBER}' AND {_number(col)} {test.op} {_double(value)}"


def condition_sql(c: PropertyCondition, left: str, right: str) -> str:
    """A PATTERN condition `left op right + offset` over two encoded value columns: numbers
    with numbers, strings with strings by `=`/`!=` only, else false."""
    if not c.offset and not c.numbers and c.op in ("=", "!="):
        same = f"{left} {_op(c.op)} {right}"
        return same if c.op == "=" else f"{_tag(left)} = {_tag(right)} AND {same}"
    shift = f" + {_double(c.offset)}" if c.offset else ""
    return (
        f"{_tag(left)} = '{NUMBER}' AND {_tag(right)} = '{NUMBER}' AND "
        f"{_number(left)} {_op(c.op)} {_number(right)}{shift}"
    )


def _double(value: int | float) -> str:
    return f"CAST({literal(repr(float(value)))} AS DOUBLE)"


def reified_sql(carries: tuple[str, ...]) -> str:
    """The reified edge `e` of an edge row whose carried values are all present."""
    return f"to_json(array(src, trg, {', '.join(column(key) for key in carries)}))"


def part_sql(e: str, part: int) -> str:
    """ATTRIBUTE's part of the reified edge `e`: its trg (`part` -1) or carried value
    `part`."""
    return f"get_json_object({e}, '$[{part + 2 if part >= 0 else 1}]')"
