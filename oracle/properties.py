"""Property values in batch (specs/semantics.md §1, §4c): how the oracle holds an edge's
properties in DataFrames and selects, joins and compares on them.

A value of mixed type lives in one struct column `(kind, i, f, s)`, never null inside:
`kind` is "i" for an integral number (an integer, or a float with an integral value: `2.0`
is the integer 2), "f" for any other float, "s" for a string; the field of its kind holds it
and the others a fixed filler. The form is canonical, so struct equality is the typed
equality of §1 (`15` equals `15.0`, `15` never equals `"15"`): joins, `distinct` and the
grouping of tuples compare whole structs. An edge's properties are an array of
`(k, kind, i, f, s)` sorted by key, which makes equal property sets equal arrays (tuples
coalesce) and a deletion's match an array inclusion.

Comparisons follow §4c on the struct fields: two integral numbers by their longs (exact),
other numbers as doubles, strings by `=` and `!=` only, anything else (a missing side too)
false.
"""

from __future__ import annotations

import operator

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql import types as T
from sgq.datalog.ast import property_value

VALUE_FIELDS = [
    T.StructField("kind", T.StringType(), False),
    T.StructField("i", T.LongType(), False),
    T.StructField("f", T.DoubleType(), False),
    T.StructField("s", T.StringType(), False),
]
PROPS_TYPE = T.ArrayType(
    T.StructType([T.StructField("k", T.StringType(), False), *VALUE_FIELDS]), False
)
_INT64 = 2**63


def encode(value) -> tuple[str, int, float, str]:
    """A Python property value (int, float or str) as its canonical `(kind, i, f, s)`."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise TypeError(f"a property value is an int, a float or a str, not {value!r}")
    if isinstance(value, str):
        return ("s", 0, 0.0, value)
    if isinstance(value, float) and not value.is_integer():
        return ("f", 0, value, "")
    if -_INT64 <= value < _INT64:
        return ("i", int(value), 0.0, "")
    return ("f", 0, float(value), "")


def encode_props(props: dict | None) -> list[tuple]:
    """An edge's present properties (`None` values are missing) as the sorted array rows."""
    if not props:
        return []
    return sorted((str(k), *encode(v)) for k, v in props.items() if v is not None)


def literal(value) -> Column:
    """A constant's typed value as a value struct."""
    kind, i, f, s = encode(value)
    return F.struct(
        F.lit(kind).alias("kind"),
        F.lit(i).cast("long").alias("i"),
        F.lit(f).cast("double").alias("f"),
        F.lit(s).alias("s"),
    )


def value_of(props: Column, key: str) -> Column:
    """The value struct of property `key` in an array of properties, or null when missing."""
    found = F.get(F.filter(props, lambda e: e["k"] == F.lit(key)), 0)
    return F.when(
        found.isNotNull(),
        F.struct(found["kind"].alias("kind"), found["i"], found["f"], found["s"]),
    )


def _number(v: Column) -> Column:
    return F.when(v["kind"] == "i", v["i"].cast("double")).otherwise(v["f"])


def shifted(v: Column, offset, op: str) -> Column:
    """A comparison side as written: `v` with a plain number (`offset.value`) added (`+`) or
    taken (`-`); null (no value) for a string or a missing side."""
    if offset is None:
        return v
    n = offset.value if op == "+" else -offset.value
    as_float = F.struct(
        F.lit("f").alias("kind"),
        F.lit(0).cast("long").alias("i"),
        (_number(v) + F.lit(float(n))).alias("f"),
        F.lit("").alias("s"),
    )
    if isinstance(n, int):
        as_int = F.struct(F.lit("i").alias("kind"), (v["i"] + F.lit(n)).alias("i"), v["f"], v["s"])
        return F.when(v["kind"] == "i", as_int).when(v["kind"] == "f", as_float)
    return F.when(v["kind"].isin("i", "f"), as_float)


#: the comparison operators of the language, on Spark columns (and on any other operands)
COMPARISONS = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "=": operator.eq,
    "!=": operator.ne,
}


def holds(left: Column, op: str, right: Column) -> Column:
    """`left op right` on two value structs (either may be null): never null."""
    compare = COMPARISONS[op]
    ints = (left["kind"] == "i") & (right["kind"] == "i")
    numbers = left["kind"].isin("i", "f") & right["kind"].isin("i", "f")
    out = F.when(ints, compare(left["i"], right["i"])).when(
        numbers, compare(_number(left), _number(right))
    )
    if op in ("=", "!="):
        strings = (left["kind"] == "s") & (right["kind"] == "s")
        out = out.when(strings, compare(left["s"], right["s"]))
    return F.coalesce(out.otherwise(F.lit(False)), F.lit(False))


def passes(props: Column, tests) -> Column:
    """Whether an edge passes every test `key op constant` of a path label (specs/semantics.md
    §4c); a missing property fails."""
    out = F.lit(True)
    for test in tests:
        out = out & holds(value_of(props, test.key), test.op, literal(property_value(test.value)))
    return out


def included(given: Column, held: Column) -> Column:
    """Whether every property of `given` (a deletion's) is among `held` (a tuple's), equal."""
    return F.size(F.array_except(given, held)) == 0
