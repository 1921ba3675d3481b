"""Estimated against measured cost per operator (thesis 6.5.2, "accuracy of the cost model"):
each physical operator's CPU time over a stream next to the cost model's estimate for it.

    python -m benchmarks.optimizer_operators PROGRAM.dl EDGES.csv [PROGRAM.dl EDGES.csv ...]
        [--edges 20000] [--window 10d] [--slide 1d] [--json ROWS.json]

Each program runs in its default plan over the first `--edges` edges of its stream (delta
mode), with every operator's `process`, `scan` and `retract` timed (process CPU time, the
wrapper's own overhead included alike); the estimate is that operator's cost per time unit
over the statistics of the same edges (sga/cost/), scaled by the stream's span: the
calibrated cost the optimizer uses (`estimate`) and the formula's before calibration
(`formula`, sga/cost/calibration.py). Prints one markdown row per operator and, over all of
them, the Spearman rank correlation and the Pearson correlation of the logarithms of each;
`--json` also writes the rows, which `benchmarks/optimizer_scatter.py` plots and
`benchmarks/calibrate_costs.py` calibrates from. Outside pytest (benchmarks apart from correctness
tests); docs/optimizer.md holds its results.
"""

from __future__ import annotations

import argparse
import json
import math
import time

from sgq.sga.cost.plan_cost import CostModel
from sgq.sga.cost.statistics import collect
from sgq.sga.explain import describe

from sgq.api import compile as compile_query
from sgq.api import read_program
from sgq.commands.common import duration_arg
from sgq.evaluation import batches
from sgq.stream_io import read_edges


class _Timed:
    """A physical operator whose `process`, `scan` and `retract` add their CPU time to
    `spent` (everything else passes through)."""

    def __init__(self, op) -> None:
        self._op = op
        self.spent = 0.0

    def __getattr__(self, name: str):
        inner = getattr(self._op, name)
        if name not in ("process", "scan", "retract"):
            return inner

        def call(*args, **kw):
            start = time.process_time()
            try:
                return inner(*args, **kw)
            finally:
                self.spent += time.process_time() - start

        return call


def measure(program: str, edges: list, window: int | None, slide: int | None) -> list[dict]:
    """One row per operator of `program`'s default plan over `edges`."""
    text = read_program(program)
    stats = collect(edges)
    query = compile_query(text, filename=program, window=window, slide=slide, statistics=stats)
    engine = query.engine(history=False, deltas=True)
    flow = engine.dataflow
    flow.ops = [_Timed(op) for op in flow.ops]
    for batch in batches(iter(edges), per_instant=False):
        engine.push_batch(batch)
        engine.drain_rows()
    engine.close()
    engine.drain_rows()
    model = CostModel(stats)
    formulas = CostModel(stats, calibration={})
    return [
        {
            "program": program,
            "operator": describe(op.node),
            "estimate": model.of(op.node).cost * stats.span,
            "formula": formulas.of(op.node).cost * stats.span,
            "cpu": op.spent,
        }
        for op in flow.ops
    ]


def _ranks(xs: list[float]) -> list[float]:
    order = sorted(range(len(xs)), key=xs.__getitem__)
    ranks = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2
        i = j + 1
    return ranks


def spearman(xs: list[float], ys: list[float]) -> float:
    """Spearman's rank correlation (ties at their mean rank)."""
    return pearson(_ranks(xs), _ranks(ys))


def pearson(xs: list[float], ys: list[float]) -> float:
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sx = math.sqrt(sum((x - mx) ** 2 for x in xs))
    sy = math.sqrt(sum((y - my) ** 2 for y in ys))
    return sxy / (sx * sy) if sx and sy else float("nan")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pairs", nargs="+", metavar="PROGRAM EDGES")
    parser.add_argument("--edges", type=int, default=20_000)
    parser.add_argument("--window", type=duration_arg, default=None)
    parser.add_argument("--slide", type=duration_arg, default=None)
    parser.add_argument("--json", metavar="ROWS.json", help="also write the rows here")
    args = parser.parse_args(argv)
    rows: list[dict] = []
    for program, path in zip(args.pairs[::2], args.pairs[1::2]):
        edges = []
        for edge in read_edges(path):
            if len(edges) >= args.edges:
                break
            edges.append(edge)
        rows += measure(program, edges, args.window, args.slide)
    print("| program | operator | formula cost | calibrated cost | CPU s |")
    print("|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['program']} | `{r['operator']}` | {r['formula']:.4g} | {r['estimate']:.4g} "
            f"| {r['cpu']:.3f} |"
        )
    print(f"\nformulas: {correlations(rows, 'formula')}")
    print(f"calibrated: {correlations(rows)}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump({"argv": argv_line(args), "rows": rows}, out, indent=1)
    return 0


def timed(rows: list[dict], key: str = "estimate") -> list[dict]:
    """The rows with a positive `key` cost and a measured time (a log scale needs both)."""
    return [r for r in rows if r["cpu"] > 0 and r[key] > 0]


def correlations(rows: list[dict], key: str = "estimate") -> str:
    """`N operators: Spearman s, Pearson of the logarithms p` of `key` cost against CPU."""
    kept = timed(rows, key)
    est = [r[key] for r in kept]
    cpu = [r["cpu"] for r in kept]
    return (
        f"{len(kept)} operators: Spearman {spearman(est, cpu):.2f}, Pearson of the "
        f"logarithms {pearson([math.log(x) for x in est], [math.log(y) for y in cpu]):.2f}"
    )


def argv_line(args: argparse.Namespace) -> str:
    """The measurement's settings, recorded with its rows."""
    return f"--edges {args.edges} --window {args.window} --slide {args.slide}"


if __name__ == "__main__":
    raise SystemExit(main())
