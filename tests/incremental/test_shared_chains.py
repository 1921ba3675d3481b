"""Nested PATTERNs from the shared-chains rewrite (sga/rewrite/shared_chains.py) give the same
snapshots as the flat join and as the brute-force reference, with explicit deletions, in
one-by-one and batched runs."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from incremental_support import assert_matches_reference, compile_text, edge_streams, norm
from sgq.incremental.deltas import delta_rows
from sgq.sga.algebra import Pattern

from sgq import PlanOptions

PROGRAMS = [
    "Answer(x, y) :- [a/b/c](x, y).",
    "Answer(x, y) :- a(x, p), b(q, p), c(q, y).",
    "Answer(x, y) :- a(x, p), b(p, q), c(q, r), a(r, y).",
    "Answer(x, y) :- a+(x, y), b(x, m), c(m, y).",
    "Answer(x, y) :- a(x, y), b(y, m), c(m, x), x != y.",
    "Answer(x, y) :- [(a/b/c)|(a/c)](x, y).",
]


def _compile(text, mode, window, slide):
    skip = {"shared_chains"} if mode == "flat" else set()
    return compile_text(
        ".window 1\n" + text, window=window, slide=slide, options=PlanOptions(skip_rewrites=skip)
    )


def _nested(query) -> bool:
    return any(
        isinstance(n, Pattern) and any(isinstance(i, Pattern) for i in n.inputs)
        for n in query.plan.nodes()
    )


@pytest.mark.parametrize("text", PROGRAMS)
@settings(max_examples=60, deadline=None)
@given(edges=edge_streams(("a", "b", "c"), max_size=18, vertices=3))
def test_nested_equals_flat_and_reference(text, edges):
    nested = _compile(text, "nested", 4, 2)
    flat = _compile(text, "flat", 4, 2)
    assert _nested(nested) and not _nested(flat)
    assert_matches_reference(nested, edges)
    edges = norm(edges)
    got = []
    for query in (nested, flat):
        eng = query.engine()
        eng.push_batch(edges)
        eng.close()
        got.append(delta_rows(eng.drain()))
    assert got[0] == got[1]
