"""The property-program generators (tests/harness/property_cases.py) make what the harness
needs: valid programs of each subset, streams in time order whose properties are typed values,
and cases on which the reference finds results, so that the engine checks that use them
(marked xfail until the engine carries properties) cannot pass on empty outputs."""

from __future__ import annotations

import re

import pytest
from case_generators import DataChooser
from hypothesis import given
from hypothesis import strategies as st
from property_cases import batch_prop_cases, gen_prop_program, gen_prop_stream
from sgq.datalog.check import check_text
from snapshot_reference import output_snapshots


@pytest.mark.parametrize("general", [False, True], ids=["filters", "general"])
@given(data=st.data())
def test_generated_programs_are_valid_and_streams_ordered(general, data):
    ch = DataChooser(data)
    text = gen_prop_program(ch, general)
    checked = check_text(text, "generated.dl")  # raises on an invalid program
    edges = gen_prop_stream(ch, checked.edb)
    times = [e[3] for e in edges]
    assert times == sorted(times)
    for *_fields, props in edges:
        assert all(isinstance(v, (int, float, str)) for v in props.values())


def test_filters_subset_binds_each_property_variable_once_and_compares_it_with_constants():
    for text, _checked, _edges in batch_prop_cases(40, 1, 5, general=False, deletions=True):
        for rule in text.splitlines()[1:]:
            bound = re.findall(r":\s*(p\d+)\b", rule)
            assert len(bound) == len(set(bound)), rule
            assert not re.search(r"\bp\d+\b[^,]*[<>=]\s*\bp\d+\b", rule), rule
            assert "@" not in rule, rule


def test_general_subset_joins_and_compares_property_variables():
    texts = [t for t, _c, _e in batch_prop_cases(40, 1, 5, general=True, deletions=True)]
    rules = [rule for t in texts for rule in t.splitlines()[1:]]
    assert any(re.search(r"\bp\d+( [+-] \d)? [<>=!]+ p\d+", rule) for rule in rules)
    bound = [re.findall(r":\s*(p\d+)\b", rule) for rule in rules]
    assert any(len(names) > len(set(names)) for names in bound)  # a join on a property
    assert any("}@t" in rule for rule in rules)


def test_cases_have_results_and_deletions_by_properties():
    cases = batch_prop_cases(16, 2, 3, general=True, deletions=True)
    with_results = sum(any(output_snapshots(c, e).values()) for _t, c, e in cases)
    assert with_results >= len(cases) // 3
    deletions = [e[5] for _t, _c, edges in cases for e in edges if e[4] == "-"]
    assert any(d == {} for d in deletions) and any(d for d in deletions)
