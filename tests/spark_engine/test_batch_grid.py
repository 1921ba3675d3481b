"""The Spark engine's batches (spark_engine/batch_grid.py): nothing expires strictly inside
a batch, and every new WSCAN tuple of a label in one batch has the same exp."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from sgq.incremental.sgt import wscan_expiry
from sgq.spark_engine.batch_grid import BatchGrid

import sgq


def test_a_window_that_is_a_multiple_of_the_slide_gives_one_batch_per_bucket():
    grid = BatchGrid.of(sgq.compile(text=".window 30d\n.slide 1d\nAnswer(x, y) :- a+(x, y).").plan)
    assert grid.offsets == (0,)
    batch = grid.batch(grid.batch_of(86400 * 3 + 5))
    assert (batch.start, batch.end) == (86400 * 3, 86400 * 4)


def test_per_label_windows_cut_buckets_at_their_expiry_offsets():
    text = ".window 10\n.window 7 for b\n.slide 4\nAnswer(x, y) :- a(x, z), b(z, y)."
    grid = BatchGrid.of(sgq.compile(text=text).plan)
    assert grid.offsets == (0, 2, 3)
    assert [(grid.batch(i).start, grid.batch(i).end) for i in range(4)] == [
        (0, 2),
        (2, 3),
        (3, 4),
        (4, 6),
    ]


@given(
    slide=st.integers(1, 9),
    extra=st.lists(st.integers(0, 30), min_size=1, max_size=3),
    t=st.integers(-50, 200),
    u=st.integers(-50, 200),
)
def test_no_expiry_falls_strictly_inside_a_batch(slide, extra, t, u):
    windows = {f"l{i}": slide + e for i, e in enumerate(extra)}
    grid = BatchGrid(slide, tuple(sorted({0} | {w % slide for w in windows.values()})), windows)
    batch = grid.batch(grid.batch_of(t))
    assert batch.start <= t < batch.end
    for label, window in windows.items():
        exp = wscan_expiry(u, window, slide)
        assert not batch.start < exp < batch.end
        assert grid.expiry(label, batch) == wscan_expiry(t, window, slide)
