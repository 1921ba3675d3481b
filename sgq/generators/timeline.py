"""Bursty, non-decreasing integer timestamps: N instants spread over D days.

Real streams are not uniform in time: activity follows the time of day and the week, and has
occasional spikes (a viral post, a hot question). Window contents, and so the cost of every
operator, swing with these bursts, which is what the thesis's tail-latency numbers measure
(Ch. 5.5). The day is cut into one-hour buckets; each bucket gets a weight

    weight = time-of-day wave x weekday factor x slow growth x noise x spike

and exactly `round(N * cumulative weight share)` instants (the counts add up to N exactly).
Inside a bucket the instants are uniform seconds, sorted, so ties appear wherever a bucket has
more instants than seconds or two draws meet. Memory: one float per hour of the span plus one
bucket of instants (split further when a bucket is huge), never N.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterator
from random import Random

DAY = 86400
HOUR = 3600
_CHUNK = 1 << 14  # largest number of instants sorted at once


def bucket_weights(days: int, rnd: Random) -> array:
    """One weight per hour over `days` days (see the module docstring)."""
    random = rnd.random
    hours = days * 24
    weights = array("d", bytes(8 * hours))
    spike_left, spike = 0, 1.0
    for h in range(hours):
        hour = h % 24
        # Low at 04:00, high in the afternoon and evening.
        wave = 0.15 + (0.5 - 0.5 * math.cos(2.0 * math.pi * (hour - 4) / 24.0)) ** 1.5
        weekday = 0.8 if (h // 24) % 7 in (5, 6) else 1.0
        growth = 1.0 + 0.5 * h / hours
        noise = 0.75 + 0.5 * random()
        if spike_left:
            spike_left -= 1
        elif random() < 0.004:
            spike_left, spike = 1 + int(random() * 4), 3.0 + 5.0 * random()
        weights[h] = wave * weekday * growth * noise * (spike if spike_left else 1.0)
    return weights


def timestamps(n: int, days: int, rnd: Random) -> Iterator[int]:
    """`n` non-decreasing integer instants in `[0, days * 86400)`, bursty (module docstring)."""
    if n <= 0:
        return
    weights = bucket_weights(days, rnd)
    total = math.fsum(weights)
    random = rnd.random
    acc = 0.0
    done = 0
    for h, w in enumerate(weights):
        acc += w
        upto = n if h == len(weights) - 1 else min(n, int(n * acc / total + 0.5))
        k = upto - done
        if k <= 0:
            continue
        done = upto
        yield from _uniform_sorted(h * HOUR, HOUR, k, random)


def _uniform_sorted(start: int, length: int, k: int, random) -> Iterator[int]:
    """`k` sorted uniform seconds of `[start, start + length)`, at most _CHUNK held at once."""
    if k <= _CHUNK or length == 1:
        if length == 1:
            for _ in range(k):
                yield start
            return
        yield from sorted([start + int(random() * length) for _ in range(k)])
        return
    parts = min(-(-k // _CHUNK), length)
    for i in range(parts):
        a = start + length * i // parts
        b = start + length * (i + 1) // parts
        yield from _uniform_sorted(a, b - a, k * (i + 1) // parts - k * i // parts, random)
