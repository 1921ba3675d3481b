"""The bursty timeline and the Zipf samplers."""

from __future__ import annotations

from collections import Counter
from random import Random

import pytest

from sgq.generators.timeline import HOUR, timestamps
from sgq.generators.zipf import scramble, zipf_sampler


@pytest.mark.parametrize("n, days", [(0, 1), (1, 1), (5, 100), (1000, 3), (200000, 1)])
def test_exact_count_sorted_in_span(n, days):
    ts = list(timestamps(n, days, Random(1)))
    assert len(ts) == n
    assert ts == sorted(ts)
    assert all(0 <= t < days * 86400 for t in ts)


def test_dense_seconds_tie():
    # More instants than seconds: buckets are split and seconds repeat.
    ts = list(timestamps(300000, 1, Random(2)))
    assert len(set(ts)) < 86400


def test_time_of_day_wave_and_spikes():
    ts = timestamps(400000, 60, Random(3))
    by_hour_of_day = Counter((t // HOUR) % 24 for t in ts)
    assert by_hour_of_day.most_common()[0][1] > 2.5 * by_hour_of_day.most_common()[-1][1]
    per_hour = Counter(t // HOUR for t in timestamps(400000, 60, Random(3)))
    mean = 400000 / (60 * 24)
    assert max(per_hour.values()) > 3 * mean  # a spike


@pytest.mark.parametrize("s", [0.0, 0.8, 1.0, 1.5])
def test_zipf_range_and_skew(s):
    rnd = Random(4)
    draw = zipf_sampler(1000, s, rnd.random)
    counts = Counter(draw() for _ in range(50000))
    assert min(counts) >= 0 and max(counts) < 1000
    top10 = sum(counts[r] for r in range(10)) / 50000
    if s == 0.0:
        assert top10 < 0.03
    else:
        assert top10 > 0.08
    if s >= 1.0:
        assert counts[0] > counts[50] > 0 or counts[0] > 10 * max(counts[50], 1)


def test_zipf_single_value_and_scramble_is_a_bijection():
    draw = zipf_sampler(1, 1.0, Random(1).random)
    assert {draw() for _ in range(100)} == {0}
    for n in (1, 2, 7, 100, 2654435761, 1000):
        if n > 5000:
            continue
        f = scramble(n)
        assert sorted(f(r) for r in range(n)) == list(range(n))
