"""`sgq prepare` keeps edge properties (specs/semantics.md §1): a CSV header's columns after
sgq's own, a JSON record's other fields and a raw Parquet file's other columns come out as
Parquet columns typed by their values (int64, double, string; a missing value null), and
read_prepared gives back the edges `sgq run`'s reader gives of the raw files."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from sgq.base.errors import UserError

from sgq.parquet_input import read_prepared
from sgq.prepare import prepare
from sgq.stream_io import read_edges

CSV = (
    b"src,trg,label,ts,delay,gate\n"
    b"a,b,flight,3,15,A7\n"
    b"a,c,flight,1,,B2\n"
    b"b,c,flight,2,-4,\n"
    b"b,c,flight,2,x\n"  # 5: four fields too few for the header
)
JSONL = (
    b'{"src": "j", "trg": "k", "label": "flight", "ts": 2, "delay": 1.5, "gate": null}\n'
    b'{"src": "j", "trg": "k", "label": "flight", "ts": 4, "gate": "C1"}\n'
    b'{"src": "j", "trg": "k", "label": "flight", "ts": 5, "seat": 3}\n'  # 3: not in record 1
)


def _typed(edges) -> list:
    return [(*e[:5], sorted((k, type(v).__name__, v) for k, v in e[5].items())) for e in edges]


@pytest.fixture(scope="module")
def prepared(spark, tmp_path_factory):
    root = tmp_path_factory.mktemp("prepare-props")
    (root / "a.csv").write_bytes(CSV)
    (root / "b.jsonl").write_bytes(JSONL)
    pq.write_table(
        pa.table(
            {
                "src": ["p", "p", "p"],
                "trg": ["q", "q", "q"],
                "label": ["flight"] * 3,
                "ts": pa.array([0, 6, 7], pa.int64()),
                "delay": pa.array([2.5, None, float("nan")], pa.float64()),
            }
        ),
        root / "c.parquet",
    )
    order = [str(root / n) for n in ("a.csv", "b.jsonl", "c.parquet")]
    manifest = prepare(order, str(root / "out"), spark=spark)
    return root, order, manifest


def test_properties_come_out_typed_by_their_values(prepared):
    root, order, manifest = prepared
    schema = pq.read_schema(root / "out" / manifest["edges"][0])
    assert schema.field("delay").type == pa.float64()  # ints and floats: doubles
    assert schema.field("gate").type == pa.string()
    assert manifest["rejected"] == 3  # a.csv:5, b.jsonl:3 and the NaN of c.parquet
    rejects = [
        json.loads(line) for f in (root / "out" / "rejects").glob("*.json") for line in f.open()
    ]
    assert sorted((r["line"], r["reason"][:40]) for r in rejects) == [
        (3, "property 'delay' is a NaN or an infinity"),
        (3, "the record names 'seat', which the input"),
        (5, "expected 6 columns (src,trg,label,ts,del"),
    ]


def test_read_back_they_are_the_edges_the_run_reader_reads(prepared):
    root, order, _ = prepared
    raw = [e for path in order[:2] for e in read_edges(path, on_error=lambda e, line: None)]
    raw.insert(0, ("p", "q", "flight", 0, "+", {"delay": 2.5}))
    raw.append(("p", "q", "flight", 6, "+", {}))
    want = sorted(raw, key=lambda e: e[3])
    got = list(read_prepared(root / "out"))
    assert got == want  # (15 == 15.0: the values, compared as numbers)
    assert _typed(got)[0] == ("p", "q", "flight", 0, "+", [("delay", "float", 2.5)])


def test_a_property_of_numbers_and_strings_is_refused(spark, tmp_path):
    (tmp_path / "a.csv").write_bytes(b"src,trg,label,ts,w\na,b,x,1,15\na,b,x,2,abc\n")
    with pytest.raises(UserError, match="property 'w' holds numbers and strings"):
        prepare([str(tmp_path / "a.csv")], str(tmp_path / "out"), spark=spark)
