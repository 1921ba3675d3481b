"""The Spark oracle and the brute-force reference agree on programs with property predicates
(specs/semantics.md §1, §4c) at every change point: both subsets of the generator
(tests/harness/property_cases.py), append-only and with deletions, in a few Spark passes.

Neither side shares code with the other nor with the engine: the reference compares Python
values after a type check, the oracle canonical value structs in DataFrames
(oracle/properties.py). A pass of Spark costs more than the README's test run affords, so
this is a `slow` test (CI); SGQ_PROPERTY_PROGRAMS programs of each kind (12), three streams
each, SGQ_HARNESS_SEED the seed. The README's run keeps the oracle's property hand cases
(tests/oracle/test_oracle_hand_cases.py) and the reference's (test_reference_properties.py).
"""

from __future__ import annotations

import os

import pytest
from property_cases import batch_prop_cases
from sgq.oracle.evaluation import evaluate_many
from snapshot_reference import change_points, output_snapshots

pytestmark = [pytest.mark.spark, pytest.mark.slow]

SEED = int(os.environ.get("SGQ_HARNESS_SEED", 20261206))
#: (general, deletions): the four kinds of case every batch mixes
KINDS = ((False, False), (False, True), (True, False), (True, True))


def _cases(programs: int, streams: int, seed: int):
    cases = []
    for k, (general, deletions) in enumerate(KINDS):
        cases += batch_prop_cases(programs, streams, seed * 4 + k, general, deletions)
    return cases


def _agree(cases) -> int:
    """Assert the oracle equals the reference on every case; the number of change points."""
    results = evaluate_many([(checked, edges) for _text, checked, edges in cases])
    checks = 0
    for (text, checked, edges), res in zip(cases, results):
        assert res.points == change_points(checked, edges), text
        wanted = output_snapshots(checked, edges)
        for tau in res.points:
            checks += 1
            assert res.snapshot(tau) == wanted[tau], (
                f"oracle != reference at {tau}\n{text}stream: {edges!r}\n"
                f"oracle: {sorted(res.snapshot(tau))}\nreference: {sorted(wanted[tau])}"
            )
    return checks


def test_oracle_matches_reference_on_property_programs(spark):
    programs = int(os.environ.get("SGQ_PROPERTY_PROGRAMS", 12))
    cases = _cases(programs=programs, streams=3, seed=SEED + 1)
    assert _agree(cases) > len(cases)
