"""The cost-model validation plot (thesis 6.5.2, Fig. 6.7): estimated cost against measured
CPU time per operator, log-log, one colour per operator kind, the correlations in the title;
left the thesis's formulas, right after calibration (sga/cost/calibration.py).

    python -m benchmarks.optimizer_scatter ROWS.json PLOT.png

ROWS.json is what `python -m benchmarks.optimizer_operators ... --json ROWS.json` writes;
docs/optimizer.md shows the plot. Needs matplotlib (the `bench` extra).
"""

from __future__ import annotations

import argparse
import json

from .calibrate_costs import kind
from .optimizer_operators import correlations, timed


def plot(rows: list[dict], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.8), sharey=True)
    for ax, key, title in (
        (axes[0], "formula", "formulas (Table 6.1 weights 1)"),
        (axes[1], "estimate", "calibrated (sga/cost/calibration.py)"),
    ):
        kept = timed(rows, key)
        for name in sorted({kind(r["operator"]) for r in kept}):
            mine = [r for r in kept if kind(r["operator"]) == name]
            ax.scatter([r[key] for r in mine], [r["cpu"] for r in mine], label=name, s=18)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("estimated cost (per time unit x stream span)")
        ax.set_title(f"{title}\n{correlations(rows, key)}", fontsize=9)
        ax.grid(True, which="major", alpha=0.3)
    axes[0].set_ylabel("measured CPU s (process + scan + retract)")
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", metavar="ROWS.json")
    parser.add_argument("plot", metavar="PLOT.png")
    args = parser.parse_args(argv)
    with open(args.rows, encoding="utf-8") as handle:
        rows = json.load(handle)["rows"]
    plot(rows, args.plot)
    print(f"{args.plot}: formulas {correlations(rows, 'formula')}; calibrated {correlations(rows)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
