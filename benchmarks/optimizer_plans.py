"""Estimated cost against measured CPU time for every plan the optimizer ranks (thesis 6.5.3,
"ordering complex query plans"): does the cheapest estimated plan run fastest?

    python -m benchmarks.optimizer_plans PROGRAM.dl EDGES.csv [--plans 8] [--repeats 3]
        [--sample 20000]

Statistics come from the first `--sample` edges (as `sgq run --optimize` takes them); each of
the `--plans` cheapest plans and today's plan then runs over the whole input in delta mode,
the plans alternated within each repeat, and the table gives the estimate next to the median
process CPU seconds (and the cost before calibration, sga/cost/calibration.py), the
optimizer's choice and the fastest plan marked, then the Spearman rank correlation of each
estimate with the measurement over the plans. Outside pytest (STYLE.md:
benchmarks apart from correctness tests); docs/optimizer.md holds its results.
"""

from __future__ import annotations

import argparse
import math
import statistics
import time

from sgq.datalog.check import check_text
from sgq.sga.algebra import WScan
from sgq.sga.cost.plan_cost import CostModel
from sgq.sga.cost.statistics import collect
from sgq.sga.explain import describe
from sgq.sga.optimize.search import optimize
from sgq.sga.translate import translate

from sgq.api import Query, read_program
from sgq.stream_io import read_edges

from .optimizer_operators import pearson, spearman


def _cpu_seconds(query: Query, edges: list) -> tuple[float, int]:
    start = time.process_time()
    count = sum(1 for _ in query.run(edges, "deltas"))
    return time.process_time() - start, count


def _closure_line(plan) -> str:
    return " ; ".join(describe(op) for op in plan.nodes() if not _plain_scan(op))


def _plain_scan(op) -> bool:
    """A WSCAN of one label (every plan has them; one over several labels, rule 13, shows)."""
    return isinstance(op, WScan) and not op.labels


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("program")
    parser.add_argument("edges")
    parser.add_argument("--plans", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--sample", type=int, default=20_000)
    args = parser.parse_args(argv)
    text = read_program(args.program)
    checked = check_text(text, args.program)
    edges = list(read_edges(args.edges))
    stats = collect(edges, args.sample)
    result = optimize(translate(checked), stats, alternatives=args.plans)
    plans = [result.today] + [r for r in result.ranked if r.plan != result.today.plan]
    times: list[list[float]] = [[] for _ in plans]
    counts = set()
    for _ in range(args.repeats):
        for k, ranked in enumerate(plans):
            seconds, count = _cpu_seconds(Query(checked, ranked.plan, text), edges)
            times[k].append(seconds)
            counts.add(count)
    print(f"{args.program} on {args.edges}: {len(edges):,} edges; deltas per plan {sorted(counts)}")
    formulas = CostModel(stats, calibration={})
    formula = [formulas.total(ranked.plan.outputs) for ranked in plans]
    medians = [statistics.median(t) for t in times]
    print("| plan | formula cost | estimated cost | CPU s (median) | runs | |")
    print("|---|---|---|---|---|---|")
    for k, ranked in enumerate(plans):
        marks = ["chosen"] if ranked.plan == result.chosen.plan else []
        if medians[k] == min(medians):
            marks.append("fastest")
        name = "today" if k == 0 else f"#{k}"
        runs = ", ".join(f"{t:.2f}" for t in times[k])
        print(
            f"| {name} | {formula[k]:.4g} | {ranked.cost:.4g} | {medians[k]:.2f} | {runs} "
            f"| {' '.join(marks)} |"
        )
    # costs equal to 4 digits rank as ties (the same plan shape, summed in another order)
    for label, costs in (("formulas", formula), ("calibrated", [r.cost for r in plans])):
        costs = [float(f"{c:.4g}") for c in costs]
        logs = pearson([math.log(c) for c in costs], [math.log(m) for m in medians])
        print(
            f"\n{label}, {len(plans)} plans: Spearman {spearman(costs, medians):.2f}, "
            f"Pearson of the logarithms {logs:.2f}"
        )
    print()
    for k, ranked in enumerate(plans):
        print(f"{'today' if k == 0 else f'#{k}'}: {_closure_line(ranked.plan)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
