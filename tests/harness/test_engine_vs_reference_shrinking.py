"""The same property driven by hypothesis against the brute-force reference (pure Python, no
Spark), so a failure shrinks to a small program and a short stream."""

from __future__ import annotations

import pytest
from case_generators import DataChooser, gen_program, gen_stream
from harness_support import judge_with_reference, report
from hypothesis import given, settings
from hypothesis import strategies as st
from sgq.datalog.check import check_text

pytest.importorskip("sgq.api", reason="the engine (sgq.api) is not there yet")

# Each property runs the profile's examples in SHARDS parts (independent random draws), so
# that test workers (pytest-xdist) share the thorough profile's thousands of examples instead
# of one worker running them all.
SHARDS = 4
sharded = pytest.mark.parametrize("shard", range(SHARDS))
per_shard = settings(max_examples=max(1, settings.default.max_examples // SHARDS))


@sharded
@per_shard
@given(st.data())
def test_engine_matches_reference_append_only(shard, data):
    ch = DataChooser(data)
    text = gen_program(ch)
    checked = check_text(text, "generated.dl")
    edges = gen_stream(ch, checked.edb, deletions=False)
    mismatch = judge_with_reference(text, checked, edges)
    assert mismatch is None, report(text, edges, mismatch)


@sharded
@per_shard
@given(st.data())
def test_engine_matches_reference_with_deletions(shard, data):
    ch = DataChooser(data)
    text = gen_program(ch)
    checked = check_text(text, "generated.dl")
    edges = gen_stream(ch, checked.edb, deletions=True)
    mismatch = judge_with_reference(text, checked, edges)
    assert mismatch is None, report(text, edges, mismatch)
