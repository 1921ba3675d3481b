"""`sgq verify` on every spec program: the engine equals the Spark oracle at every change point
(timely and after close) on a generated stream over the program's own input labels.

All programs go to the oracle in one Spark pass (`evaluate_many`), then each engine, planned
by default (the cost-based optimizer over the stream's statistics, as `sgq run` plans it), is
checked with the same `check_engine` the command uses. The second test does the same for the plans
the cost-based optimizer ranks cheapest (sga/optimize/), priced over each stream's statistics. Streams are small and dense (few vertices, a
couple of windows long, ties and slide buckets included) so that closures and joins fire.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from sgq.oracle import evaluate_many
from sgq.oracle.compare import check_engine
from sgq.sga.cost.statistics import collect
from sgq.sga.optimize.search import optimize

from sgq.api import PlanOptions, Query
from sgq.api import compile as compile_query

SPECS = Path(__file__).resolve().parents[2] / "specs" / "queries"
PROGRAMS = sorted(SPECS.rglob("*.dl"))


def _stream(checked, seed: int, n: int = 70) -> list[tuple]:
    """`n` edges over the program's input labels on 7 vertices, spanning about two windows
    of the shortest window, times in non-decreasing order with ties."""
    rng = random.Random(seed)
    labels = sorted(checked.edb)
    window = min(checked.window_of(label) for label in labels)
    step = max(1, 2 * window // n)
    t = 0
    edges = []
    for _ in range(n):
        t += rng.choice((0, step // 2, step, 2 * step))
        edges.append((f"v{rng.randrange(7)}", f"v{rng.randrange(7)}", rng.choice(labels), t, "+"))
    return edges


@pytest.fixture(scope="session")
def spec_cases(spark):
    """Every spec program compiled, its stream, and the oracle's answers: one Spark pass for
    both tests (the Spark tests share one test worker, tests/conftest.py; session-scoped,
    so once whatever order that worker runs the tests in)."""
    queries, cases = [], []
    for i, path in enumerate(PROGRAMS):
        text = path.read_text(encoding="utf-8")
        stream = _stream(compile_query(text, filename=str(path)).checked, seed=i)
        # the default plan over the stream's statistics, as `sgq run` plans it
        query = compile_query(text, filename=str(path), statistics=collect(stream))
        queries.append(query)
        cases.append((query.checked, stream))
    return queries, cases, evaluate_many(cases)


@pytest.mark.spark
@pytest.mark.slow
def test_verify_agrees_on_every_spec_program(spec_cases):
    assert len(PROGRAMS) >= 30
    queries, cases, expected = spec_cases
    failures = []
    total = 0
    for path, query, (_checked, edges), oracle in zip(PROGRAMS, queries, cases, expected):
        mismatch, checks = check_engine(query.engine, edges, oracle.points, oracle.snapshot)
        total += checks
        if mismatch is not None:
            failures.append(f"{path.relative_to(SPECS)}:\n{mismatch.describe()}")
    assert not failures, "\n\n".join(failures)
    assert total > 1000


ALTERNATIVES = 3


@pytest.mark.spark
@pytest.mark.slow
def test_every_ranked_plan_agrees_on_every_spec_program(spec_cases):
    queries, cases, expected = spec_cases
    failures = []
    rewritten = 0
    for path, query, (checked, edges), oracle in zip(PROGRAMS, queries, cases, expected):
        today = compile_query(query.source, options=PlanOptions(optimize=False)).plan
        result = optimize(today, collect(edges), alternatives=ALTERNATIVES)
        for ranked in result.ranked:
            rewritten += ranked.plan != today
            engine = Query(checked, ranked.plan, query.source, query.options).engine
            mismatch, _ = check_engine(engine, edges, oracle.points, oracle.snapshot)
            if mismatch is not None:
                failures.append(f"{path.relative_to(SPECS)}:\n{mismatch.describe()}")
    assert not failures, "\n\n".join(failures)
    assert rewritten > len(PROGRAMS) // 2  # other plans were checked (42 when written)
