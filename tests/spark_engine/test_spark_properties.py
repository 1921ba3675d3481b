"""Property predicates on the Spark engine (specs/semantics.md §4c): its coverage at every
batch boundary and its delta view equal the single-process engine's, on a hand-made stream
of flights whose delays are integers, floats (`15.0`, equal to `15`), strings (`"15"`, equal
to neither) or missing, with an edge whose values change between insertions and one
re-inserted with the values it had.

Two programs: WSCAN tests alone (a path label's, a constant's, `_`'s, a `!=` no number
passes), and reified edges (a shared property variable, two compared with an offset, a timed
atom carrying a property, `!=` between a string and a number not holding, vertex names JSON
must escape). The encoding itself is checked
without Spark."""

from __future__ import annotations

import pytest
from sgq.sga.algebra import Attribute, Pattern, WScan
from sgq.spark_engine.property_values import encoded, encoded_sql
from spark_engine_support import compare

import sgq

TESTS = """\
.window 4
.slide 2
.output OnTime
.output Carrier
.output Gate
.output NotAA

OnTime(a, b) :- [flight{delay < 15}+](a, b).
Carrier(a, b) :- flight(a, b){carrier: "AA", delay: 15}.
Gate(a, b) :- flight(a, b){gate: _}.
NotAA(a, b) :- flight(a, b){carrier: k}, k != "AA".
"""

REIFIED = """\
.window 4
.slide 2
.output Same
.output Rising
.output Timed
.output Other

Same(a, c) :- flight(a, b){delay: d}, flight(b, c){delay: d}.
Rising(a, c) :- flight(a, b){delay: d1}, flight(b, c){delay: d2}, d2 >= d1 + 5.
Timed(a, c) :- flight(a, b){carrier: k}@t1, flight(b, c)@t2, t1 < t2.
Other(a, c) :- flight(a, b){carrier: k1}, flight(b, c){carrier: k2}, k1 != k2.
"""

Q = 'q"1,\\'  # a vertex JSON and CSV must escape

FLIGHTS = [
    ("a", "b", "flight", 0, "+", {"delay": 5, "carrier": "AA", "gate": "G1"}),
    ("b", "c", "flight", 0, "+", {"delay": 15, "carrier": "AA"}),
    ("c", "d", "flight", 1, "+", {"delay": 15.0, "carrier": "AA", "gate": 3}),
    ("b", "c", "flight", 1, "+", {"delay": "15", "carrier": "UA"}),
    ("d", Q, "flight", 2, "+", {"delay": 30, "carrier": "UA"}),
    ("a", "b", "flight", 2, "+", {"delay": 20.5}),
    ("c", "d", "flight", 3, "+", {"delay": 10, "carrier": "AA"}),
    (Q, "a", "flight", 3, "+", {}),
    ("b", "c", "flight", 4, "+", {"delay": 21, "carrier": "AA"}),
    ("a", "b", "flight", 5, "+", {"delay": 5, "carrier": "AA", "gate": "G1"}),
    ("d", Q, "flight", 6, "+", {"delay": "late", "carrier": 7}),
    ("c", "d", "flight", 6, "+", {"carrier": "UA"}),  # UA != 7 does not hold
    (Q, "a", "flight", 7, "+", {"delay": 12.5, "gate": "G2"}),
    ("a", "b", "flight", 7, "+", {"delay": 15.0, "carrier": "AA"}),
]


def test_values_encode_by_section_4c_equality():
    assert encoded(15) == encoded(15.0) == encoded(15.000) != encoded("15")
    assert encoded(2**53 + 1) != encoded(float(2**53)) and encoded(1e20) == encoded(10**20)
    assert encoded(0.1) != encoded(0.1000001) and encoded(None) is None
    assert encoded(-0.0) == encoded(0)


@pytest.mark.slow  # one Spark job
def test_typed_parquet_columns_encode_as_the_driver_does(spark):
    """The Parquet route's encoding (SQL over typed columns) gives the driver's strings for
    integers, strings and integral floats, and for other floats a text of the same double."""
    ints = [15, -3, 0, 2**62, 7, 8]
    floats = [15.0, -0.0, 0.1, 2.5e-7, 1e17, -1234.5]
    frame = spark.createDataFrame(
        [(i, f, "15") for i, f in zip(ints, floats)], "i long, f double, s string"
    )
    kinds = {"i": "integer", "f": "float", "s": "string"}
    rows = frame.selectExpr(*(f"{encoded_sql(c, k)} AS {c}" for c, k in kinds.items())).collect()
    assert [r["i"] for r in rows] == [encoded(i) for i in ints]
    assert {r["s"] for r in rows} == {encoded("15")}
    for row, f in zip(rows, floats):
        if f.is_integer():
            assert row["f"] == encoded(f)
        else:
            assert row["f"][0] == "n" and float(row["f"][1:]) == f
    assert rows[0]["i"] == rows[0]["f"] == "n15" != rows[0]["s"]


@pytest.mark.slow  # Spark jobs for four batches
def test_wscan_tests(spark):
    query = sgq.compile(text=TESTS)
    scans = [n for n in query.plan.nodes() if isinstance(n, WScan)]
    assert all(n.source == "flight" and n.properties and not n.carries for n in scans)
    got = compare(query, spark, FLIGHTS)
    assert got["batches"] == 4 and got["deltas"] > 10, got


@pytest.mark.slow  # Spark jobs for four batches
def test_reified_edges(spark):
    query = sgq.compile(text=REIFIED)
    nodes = list(query.plan.nodes())
    assert any(isinstance(n, WScan) and n.carries for n in nodes)
    assert any(isinstance(n, Attribute) and n.part >= 0 for n in nodes)
    assert any(isinstance(n, Pattern) and n.property_conditions for n in nodes)
    got = compare(query, spark, FLIGHTS)
    assert got["batches"] == 4 and got["deltas"] > 10, got
