"""The calibration factors of sga/cost/calibration.py, from the per-operator measurements
(thesis 6.5.1: the cost model's constants are set empirically).

    python -m benchmarks.calibrate_costs ROWS.json [--min-cpu 0.002] [--holdout so]

ROWS.json is what `python -m benchmarks.optimizer_operators ... --json ROWS.json` writes: per
operator its measured CPU seconds and its formula cost before calibration (`formula`). The
procedure: keep the operators measured at `--min-cpu` seconds or more (below, timer noise);
per operator kind, the factor is the median of CPU seconds over formula cost, divided by
WSCAN's (so the unit stays one WSCAN output). Prints the factors, the correlations of formula
and of calibrated cost with CPU time over the kept operators, and with `--holdout WORD` the
same with factors fitted without the programs whose path holds WORD and evaluated on them
only (does the calibration carry over to a stream it was not fitted on?).
"""

from __future__ import annotations

import argparse
import json
import math
import statistics

from .optimizer_operators import pearson, spearman


def kind(operator: str) -> str:
    """WSCAN, PATTERN, PATH, ...: the operator's name in `explain` notation."""
    return operator.split("[", 1)[0]


def factors(rows: list[dict]) -> dict[str, float]:
    """Per operator kind: median CPU seconds per formula unit, relative to WSCAN's."""
    per: dict[str, list[float]] = {}
    for r in rows:
        per.setdefault(kind(r["operator"]), []).append(r["cpu"] / r["formula"])
    medians = {name: statistics.median(xs) for name, xs in per.items()}
    return {name: m / medians["WSCAN"] for name, m in sorted(medians.items())}


def scored(rows: list[dict], by_kind: dict[str, float]) -> str:
    """Spearman and log-Pearson of formula cost, then of calibrated cost, against CPU."""
    cpu = [r["cpu"] for r in rows]
    out = []
    for name, est in (
        ("formulas", [r["formula"] for r in rows]),
        ("calibrated", [r["formula"] * by_kind.get(kind(r["operator"]), 1.0) for r in rows]),
    ):
        logs = pearson([math.log(x) for x in est], [math.log(y) for y in cpu])
        out.append(
            f"{name}: Spearman {spearman(est, cpu):.2f}, Pearson of the logarithms {logs:.2f}"
        )
    return "; ".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", metavar="ROWS.json")
    parser.add_argument("--min-cpu", type=float, default=0.002)
    parser.add_argument("--holdout", metavar="WORD")
    args = parser.parse_args(argv)
    with open(args.rows, encoding="utf-8") as handle:
        rows = [
            r for r in json.load(handle)["rows"] if r["cpu"] >= args.min_cpu and r["formula"] > 0
        ]
    by_kind = factors(rows)
    print(f"{len(rows)} operators of at least {args.min_cpu} CPU s")
    print("| operator | measured | factor (WSCAN = 1) |")
    print("|---|---|---|")
    for name, factor in by_kind.items():
        count = sum(1 for r in rows if kind(r["operator"]) == name)
        print(f"| {name} | {count} | {factor:.2g} |")
    print(f"\nall: {scored(rows, by_kind)}")
    if args.holdout:
        fit = [r for r in rows if args.holdout not in r["program"]]
        test = [r for r in rows if args.holdout in r["program"]]
        print(
            f"fitted without '{args.holdout}' ({len(fit)} operators), on its {len(test)}: "
            f"{scored(test, factors(fit))}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
