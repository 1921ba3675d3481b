"""Time order and bounded lateness (sgq/reorder.py, specs/semantics.md §1, §7)."""

from __future__ import annotations

import random

import pytest

from sgq.reorder import ordered
from sgq.stream_io import StreamError


def e(t, name="a"):
    return (name, "b", "x", t, "+")


def test_in_order_streams_pass_through():
    stream = [e(1), e(1), e(2), e(5)]
    assert list(ordered(iter(stream), "f", [0])) == stream


def test_out_of_order_is_an_error_with_line_and_hint():
    pos = [0]

    def gen():
        for i, edge in enumerate([e(1), e(3), e(2)], start=1):
            pos[0] = i
            yield edge

    with pytest.raises(StreamError) as info:
        list(ordered(gen(), "in.csv", pos))
    assert str(info.value).startswith("in.csv:3: time 2 is earlier than time 3 seen before")
    assert "--max-lateness" in str(info.value)


def test_lateness_bound_reorders_within_and_drops_beyond():
    late = []
    out = list(
        ordered(
            iter([e(1), e(5), e(3), e(9), e(2)]),
            "f",
            [0],
            4,
            lambda err, edge: late.append(edge[3]),
        )
    )
    assert [x[3] for x in out] == [1, 3, 5, 9]
    assert late == [2]


def test_ties_keep_arrival_order():
    stream = [e(2, "p"), e(1, "q"), e(2, "r"), e(1, "s")]
    out = list(ordered(iter(stream), "f", [0], 5))
    assert [x[0] for x in out] == ["q", "s", "p", "r"]


def test_random_shuffles_within_the_bound_come_out_sorted_and_complete():
    rng = random.Random(7)
    for _ in range(200):
        times = sorted(rng.randrange(50) for _ in range(30))
        stream = [(str(i), "b", "x", t, "+") for i, t in enumerate(times)]
        # displace each edge by less than the bound
        keyed = sorted(stream, key=lambda x: x[3] + rng.uniform(0, 3))
        out = list(ordered(iter(keyed), "f", [0], 3))
        assert sorted(out, key=lambda x: x[3]) == out
        assert sorted(out) == sorted(stream)
