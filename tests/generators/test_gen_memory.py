"""Bounded memory: generating and writing a long stream holds no list of edges."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import tracemalloc

import pytest

from sgq.generators import generate, write_csv


@pytest.mark.slow  # ~9 s: 200k lines generated under tracemalloc
def test_tracemalloc_peak_stays_small():
    # 200k so lines held as tuples would take ~50 MB; the stream, with its deletion pool full,
    # must stay far below.
    tracemalloc.start()
    try:
        with open(os.devnull, "w") as sink:
            n = write_csv(generate("so", 200_000, 1, deletions=0.2), sink)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert n == 200_000
    assert peak < 16_000_000, peak


@pytest.mark.parametrize(
    "kind, n",
    [
        pytest.param("so", 1_000_000, marks=pytest.mark.slow),  # ~8 s: the README budget
        ("snb", 300_000),
        ("gmark", 300_000),
    ],
)
def test_long_streams_in_bounded_rss(kind, n):
    """Lines (10% deletions) streamed to /dev/null in a fresh process: its peak RSS grows by
    < 40 MB (1M so rows held in a list grow it by ~180 MB)."""
    script = textwrap.dedent(f"""
        import os, resource
        from sgq.generators import generate, write_csv
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        with open(os.devnull, "w") as sink:
            written = write_csv(generate({kind!r}, {n}, 3, deletions=0.1), sink)
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print(written, after - before)
    """)
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=180
    ).stdout.split()
    assert int(out[0]) == n
    assert int(out[1]) < 40_000, f"max RSS grew by {out[1]} kB"
