"""Shared pieces of the property harness: make batches of cases, judge the engine on a case
against an expected-snapshot function, and shrink a failing stream with ddmin."""

from __future__ import annotations

import os

from case_generators import RandomChooser, gen_program, gen_stream
from native_deltas import DeltaSnapshots
from sgq.datalog.check import check_text
from sgq.oracle.compare import check_engine, ddmin
from snapshot_reference import change_points, output_snapshot, output_snapshots

THOROUGH = os.environ.get("HYPOTHESIS_PROFILE") == "thorough"
#: default run: 25 programs x 8 streams = 200 cases; thorough: 2000 cases
PROGRAMS = int(os.environ.get("SGQ_HARNESS_PROGRAMS", 250 if THOROUGH else 25))
STREAMS_PER_PROGRAM = int(os.environ.get("SGQ_HARNESS_STREAMS", 8))
SEED = int(os.environ.get("SGQ_HARNESS_SEED", 20261122))


def batch_cases(programs: int, streams: int, seed: int, deletions: bool):
    """`[(text, checked, edges)]`: `programs` random programs with `streams` streams each."""
    cases = []
    for p in range(programs):
        ch = RandomChooser(seed * 1_000_003 + p)
        text = gen_program(ch)
        checked = check_text(text, f"case{p}.dl")
        for _ in range(streams):
            cases.append((text, checked, gen_stream(ch, checked.edb, deletions=deletions)))
    return cases


def reference_expected(checked, edges):
    """(change points, tau -> snapshot) from the brute-force reference (the snapshots at the
    change points computed once, in time order: time variables need the history)."""
    snapshots = output_snapshots(checked, edges)

    def expected(tau):
        got = snapshots.get(tau)
        return got if got is not None else output_snapshot(checked, edges, tau)

    return change_points(checked, edges), expected


def query_of(text: str, options=None, edges=None):
    """`text` planned as `sgq run` plans it: with `options` (default PlanOptions, the
    cost-based optimizer on) over the statistics of `edges` (the case's stream; the same
    first edges `sgq run` samples), so the harness checks the plan a user runs."""
    from sgq.sga.cost.statistics import collect

    import sgq.api
    from sgq.sampling import DEFAULT_SAMPLE

    statistics = None if edges is None else (lambda: collect(edges, DEFAULT_SAMPLE))
    return sgq.api.compile(text, options=options or sgq.api.PlanOptions(), statistics=statistics)


def input_properties(edges) -> tuple[str, ...] | None:
    """The property names of the case's stream, as a header would give them: the generator's
    keys when its edges carry properties (tests/harness/property_cases.py), else None."""
    if edges is None or not any(len(edge) > 5 for edge in edges):
        return None
    from property_cases import KEYS

    return KEYS


def engine_of(text: str, options=None, edges=None):
    """A maker of fresh engines for `text`, planned by `query_of`, told the stream's
    property names."""
    query = query_of(text, options, edges)
    properties = input_properties(edges)
    return lambda: query.engine(properties=properties)


def delta_engine_of(text: str, options=None, edges=None):
    """A delta-mode engine (native deltas) behind the snapshot interface of `check_engine`."""
    query = query_of(text, options, edges)
    properties = input_properties(edges)
    return lambda: DeltaSnapshots(query, properties)


def judge_with_reference(text, checked, edges, options=None):
    """The engine's first mismatch against the reference on this case, or None: with interval
    rows, then in delta mode; planned by `query_of` over the case's stream."""
    points, expected = reference_expected(checked, edges)
    return (
        check_engine(engine_of(text, options, edges), edges, points, expected)[0]
        or check_engine(delta_engine_of(text, options, edges), edges, points, expected)[0]
    )


def shrink_with_reference(text, checked, edges):
    """The smallest sub-stream on which the engine still disagrees with the reference."""
    make = engine_of(text, edges=edges)  # the plan of the failing case, kept while shrinking

    def fails_many(candidates):
        out = []
        for cand in candidates:
            points, expected = reference_expected(checked, cand)
            out.append(check_engine(make, cand, points, expected)[0] is not None)
        return out

    return ddmin(edges, fails_many)


def report(text, edges, mismatch, smallest=None) -> str:
    lines = [
        "program:",
        text.rstrip(),
        f"stream ({len(edges)} edges): {edges!r}",
        mismatch.describe(),
    ]
    if smallest is not None:
        lines.append(f"smallest failing stream ({len(smallest)} edges): {smallest!r}")
    return "\n".join(lines)
