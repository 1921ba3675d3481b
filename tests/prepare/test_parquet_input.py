"""read_prepared streams a prepared directory back in order, a batch at a time (no Spark)."""

from __future__ import annotations

import json
import os

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from sgq.base.errors import UserError

from sgq.parquet_input import MANIFEST, is_prepared, manifest, read_prepared


def _write(tmp_path, parts, listed=None, row_group_size=3):
    os.makedirs(tmp_path / "edges", exist_ok=True)
    names = []
    for i, rows in enumerate(parts):
        name = f"edges/part-{i:05d}.parquet"
        cols = list(zip(*rows)) if rows else [[], [], [], [], []]
        table = pa.table(
            {
                "src": pa.array(cols[0], pa.string()),
                "trg": pa.array(cols[1], pa.string()),
                "label": pa.array(cols[2], pa.string()),
                "ts": pa.array(cols[3], pa.int64()),
                "op": pa.array(cols[4], pa.string()),
            }
        )
        pq.write_table(table, tmp_path / name, row_group_size=row_group_size)
        names.append(name)
    (tmp_path / MANIFEST).write_text(json.dumps({"edges": listed or names}))
    return tmp_path


def test_reads_parts_in_manifest_order_across_batches(tmp_path):
    a = [("a", "b", "x", t, "+") for t in (1, 1, 2, 3, 3)]
    b = [("c", "d", "y", t, "-") for t in (3, 4, 9)]
    d = _write(tmp_path, [a, [], b])
    assert is_prepared(d)
    assert list(read_prepared(d, batch_rows=2)) == a + b
    assert isinstance(next(read_prepared(d))[3], int)


def test_out_of_order_parts_are_an_error(tmp_path):
    a = [("a", "b", "x", 5, "+")]
    b = [("a", "b", "x", 4, "+")]
    d = _write(tmp_path, [a, b])
    with pytest.raises(UserError, match="out of order"):
        list(read_prepared(d))


def test_out_of_order_inside_a_batch_is_an_error(tmp_path):
    d = _write(tmp_path, [[("a", "b", "x", t, "+") for t in (1, 3, 2)]])
    with pytest.raises(UserError, match="out of order"):
        list(read_prepared(d))


def test_not_prepared(tmp_path):
    assert not is_prepared(tmp_path)
    assert not is_prepared(tmp_path / "nothing")
    with pytest.raises(UserError, match="not a directory prepared"):
        list(read_prepared(tmp_path))
    os.makedirs(tmp_path / "edges")
    with pytest.raises(UserError, match="did not finish"):
        manifest(tmp_path)


def test_missing_part_is_an_error(tmp_path):
    d = _write(tmp_path, [[("a", "b", "x", 1, "+")]], listed=["edges/gone.parquet"])
    with pytest.raises(UserError, match="missing"):
        list(read_prepared(d))


def test_memory_stays_within_a_batch(tmp_path):
    """A stream of 200k edges is read without materialising it: the generator holds at most
    one batch, so peak traced memory stays far below the size of the whole list."""
    import tracemalloc

    rows = [(f"v{i % 97}", f"v{i % 89}", "x", i // 3, "+") for i in range(200_000)]
    d = _write(tmp_path, [rows[:100_000], rows[100_000:]], row_group_size=10_000)
    tracemalloc.start()
    count = 0
    for _edge in read_prepared(d, batch_rows=1000):
        count += 1
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert count == 200_000
    assert peak < 8_000_000, peak


@pytest.mark.parametrize(
    "column, values, message",
    [
        ("ts", pa.array([1.5], pa.float64()), "column ts is double, not an integer"),
        ("ts", pa.array([1], pa.uint64()), "column ts is uint64, not an integer"),
        ("ts", pa.array([None], pa.int64()), "column\\(s\\) ts hold nulls"),
        ("src", pa.array([1], pa.int64()), "column src is int64, not text"),
        ("trg", pa.array([None], pa.string()), "column\\(s\\) trg hold nulls"),
    ],
)
def test_a_part_whose_columns_are_not_edges_is_an_error(tmp_path, column, values, message):
    """Not what sgq prepare writes: refused, never read as `None` vertices or float times."""
    d = _write(tmp_path, [[("a", "b", "x", 1, "+")]])
    table = pq.read_table(d / "edges/part-00000.parquet")
    table = table.set_column(table.schema.get_field_index(column), column, values)
    pq.write_table(table, d / "edges/part-00000.parquet")
    with pytest.raises(UserError, match=message):
        list(read_prepared(d))
