"""FanCoverage (the closure PATH's interval-row coverage by source) emits, keeps and forgets
exactly what a Coalescer fed the same keys does."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sgq.incremental.state.coalescer import Coalescer
from sgq.incremental.state.fan_coverage import FanCoverage

_vertex = st.sampled_from("abcd")
_step = st.one_of(
    # a fan: src, targets (repeats allowed: two final states of one vertex), exp ahead of now
    st.tuples(st.just("fan"), _vertex, st.lists(_vertex, max_size=4), st.integers(1, 6)),
    # one-target fans admitted together (`admit_pairs`): (src, trg) pairs, repeats allowed
    st.tuples(
        st.just("pairs"), st.lists(st.tuples(_vertex, _vertex), max_size=5), st.integers(1, 6)
    ),
    # an ε-pair's admit with an earlier ts
    st.tuples(st.just("one"), _vertex, st.integers(0, 3), st.integers(1, 6)),
    st.tuples(st.just("purge")),
    st.tuples(st.just("tick"), st.integers(1, 3)),
)


# the purge's two ways to find ended keys: every source read target by target from its
# expiry entries (0: none swept), every one swept whole (a huge ratio), and the default rule
_SWEEPS = [0, 10**9, FanCoverage.SWEEP]


@pytest.mark.parametrize("sweep", _SWEEPS)
@given(steps=st.lists(_step, max_size=40))
def test_fan_coverage_is_a_coalescer_by_source(sweep, steps):
    coverage = type("Swept", (FanCoverage,), {"__slots__": (), "SWEEP": sweep})
    fans, coalescer = coverage(), Coalescer()
    now = 0
    for step in steps:
        if step[0] == "fan":
            _, src, trgs, ahead = step
            got, starts, olds = fans.admit_fan(src, trgs, now, now + ahead)
            if type(starts) is int:
                assert olds is None  # every target new: none was live
                starts = [starts] * len(got)
                olds = [now] * len(got)
            want, ends_before = [], []
            for trg in trgs:
                before = coalescer.until((src, trg))
                span = coalescer.admit((src, trg), now, now + ahead, now)
                if span is not None:
                    want.append((src, trg, span[0], span[1]))
                    ends_before.append(before if before is not None and before > now else now)
            assert [(src, t, s, now + ahead) for t, s in zip(got, starts)] == want
            assert olds == ends_before
        elif step[0] == "pairs":
            _, pairs, ahead = step
            got = fans.admit_pairs([s for s, _t in pairs], [t for _s, t in pairs], now, now + ahead)
            want = []
            for key in pairs:
                span = coalescer.admit(key, now, now + ahead, now)
                if span is not None:
                    want.append((*key, span[0]))
            assert list(zip(*got)) == want
        elif step[0] == "one":
            _, v, back, ahead = step
            ts = max(0, now - back)
            key = (v, v)
            assert fans.admit(key, ts, now + ahead, now) == coalescer.admit(
                key, ts, now + ahead, now
            )
        elif step[0] == "purge":
            fans.purge(now)
            coalescer.purge(now)
            assert len(fans) == len(coalescer)
        else:
            now += step[1]
        fans._check()
        live = {k: c for k, c in coalescer.live.items() if c[1] > now}
        assert {k: c for k, c in fans.coalescer().live.items() if c[1] > now} == live
        for key in live:
            assert fans.until(key) == coalescer.until(key)
    # the checkpoint form round-trips
    again = FanCoverage.of(fans.coalescer())
    again._check()
    assert again.coalescer().live == fans.coalescer().live


_held_step = st.one_of(
    # held sources finding one target list at one level: all at once or one by one
    st.tuples(
        st.just("hold"),
        st.lists(_vertex, min_size=1, max_size=3, unique=True),
        st.lists(_vertex, min_size=1, max_size=3, unique=True),
        st.integers(1, 6),
    ),
    st.tuples(st.just("index"), _vertex),
    st.tuples(st.just("purge")),
    st.tuples(st.just("tick"), st.integers(1, 3)),
)


@given(steps=st.lists(_held_step, max_size=30))
def test_hold_all_is_hold_of_each_source(steps):
    """One log entry for several held sources keeps what a `hold` of each keeps: the
    hand-over's Coalescer, the checkpoint rows, the rows by source of an indexed one."""
    shared, each = FanCoverage(), FanCoverage()
    now = 0
    for step in steps:
        if step[0] == "hold":
            _, srcs, trgs, ahead = step
            shared.hold_all(list(srcs), trgs, now, now + ahead)
            for src in srcs:
                each.hold(src, trgs, now, now + ahead)
        elif step[0] == "index":
            if not shared.has_index(step[1]):
                for cover in (shared, each):
                    cover.index(step[1], [])
        elif step[0] == "purge":
            shared.purge(now)
            each.purge(now)
        else:
            now += step[1]
        shared._check()
        assert shared.coalescer(held=True).live == each.coalescer(held=True).live
        assert sorted(shared.held_state()) == sorted(each.held_state())
        for src in each.indexed():
            assert shared.held_run_of(src, now) == each.held_run_of(src, now)
