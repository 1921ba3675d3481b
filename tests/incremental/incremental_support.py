"""Helpers for the engine tests: compile text, run streams, compare with the brute-force
reference (tests/snapshot_reference.py) at every change point."""

from __future__ import annotations

import snapshot_reference as ref

import sgq
from sgq.incremental.deltas import delta_rows


def compile_text(text: str, window=None, slide=None):
    return sgq.compile(text, window=window, slide=slide)


def norm(edges):
    """Edges as (src, trg, label, t, op) with string ids."""
    out = []
    for e in edges:
        op = e[4] if len(e) > 4 else "+"
        out.append((str(e[0]), str(e[1]), str(e[2]), int(e[3]), op))
    return out


def run_all(query, edges, *, batch=False, paths=False, check=False):
    """Push every edge (one by one, or as one push_batch), close; return the engine."""
    eng = query.engine(paths=paths)
    if batch:
        eng.push_batch(edges)
    else:
        for e in edges:
            eng.push(*e)
            if check:
                eng.dataflow._check()
    eng.close()
    return eng


def assert_matches_reference(query, edges, *, check_state=False):
    """Timeliness and correctness: at every change point τ, once every input with time <= τ
    is consumed (advance(τ + 1)), the engine's snapshot at τ equals the reference; after the
    whole stream (nothing emitted late) every snapshot still does, and the delta views agree."""
    edges = norm(edges)
    checked = query.checked
    points = ref.change_points(checked, edges)
    expected = {tau: ref.output_snapshot(checked, edges, tau) for tau in points}
    eng = query.engine()
    i = 0
    for tau in points:
        while i < len(edges) and edges[i][3] <= tau:
            eng.push(*edges[i])
            i += 1
        eng.advance(tau + 1)
        if check_state:
            eng.dataflow._check()
        got = eng.snapshot(tau)
        assert got == expected[tau], (tau, sorted(got ^ expected[tau]))
    eng.close()
    for tau in points:
        assert eng.snapshot(tau) == expected[tau], ("late or retracted", tau)
    results = eng.drain()
    assert delta_rows(results) == ref.delta_view(checked, edges)
    return eng, results
