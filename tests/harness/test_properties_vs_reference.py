"""The engine against the brute-force reference on programs with property predicates
(specs/semantics.md §1, §4c), driven by hypothesis so that a failure shrinks to a small
program and a short stream: both subsets of the generator (tests/harness/property_cases.py;
filters only, and general), append-only and with deletions, with the cost-based optimizer on
and off, at every change point, timely and after close, with interval rows and in delta mode.
"""

from __future__ import annotations

import pytest
from case_generators import DataChooser
from harness_support import judge_with_reference, report
from hypothesis import given, settings
from hypothesis import strategies as st
from property_cases import gen_prop_program, gen_prop_stream
from sgq.datalog.check import check_text

pytest.importorskip("sgq.api", reason="the engine (sgq.api) is not there yet")

#: the profile's examples, shared by the eight (subset, deletions, optimizer) properties
examples = settings(max_examples=max(1, settings.default.max_examples // 8))


def _kind(general: bool, deletions: bool):
    subset = "general" if general else "filters"
    return pytest.param(general, deletions, id=f"{subset}-{'deletions' if deletions else 'append'}")


KINDS = pytest.mark.parametrize(
    ("general", "deletions"), [_kind(g, d) for g in (False, True) for d in (False, True)]
)


def _judge(data, general: bool, deletions: bool, options=None) -> None:
    ch = DataChooser(data)
    text = gen_prop_program(ch, general)
    checked = check_text(text, "generated.dl")
    edges = gen_prop_stream(ch, checked.edb, deletions=deletions)
    mismatch = judge_with_reference(text, checked, edges, options)
    assert mismatch is None, report(text, edges, mismatch)


@KINDS
@examples
@given(st.data())
def test_engine_matches_reference_on_property_programs(general, deletions, data):
    _judge(data, general, deletions)


@KINDS
@examples
@given(st.data())
def test_engine_without_optimizer_matches_reference_on_property_programs(general, deletions, data):
    from sgq.api import PlanOptions

    _judge(data, general, deletions, PlanOptions(optimize=False))
