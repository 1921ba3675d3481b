"""The optimizer's answer for `sgq explain`: the chosen plan with each operator's estimated
output (r, v) and cost per unit time (thesis 6.3), then the N cheapest alternatives; as text,
JSON, or one Graphviz digraph with a cluster per plan."""

from __future__ import annotations

import json

from ..cost.plan_cost import CostModel
from ..cost.statistics import StreamStatistics
from ..explain import DOT_HEADER, dot_nodes, explain_data, explain_text
from .memo import MAX_WIDTH
from .search import MARGIN, MAX_PRICED, Optimized, RankedPlan


def _note(model: CostModel):
    def annotate(op) -> str:
        c = model.of(op)
        return f"{{cost {c.cost:.3g}, r {c.estimate.rate:.3g}, v {c.estimate.interval:.3g}}}"

    return annotate


def _extra(model: CostModel):
    def extra(op) -> dict:
        c = model.of(op)
        e = c.estimate
        return {
            "estimate": {
                "cost": c.cost,
                "rate": e.rate,
                "interval": e.interval,
                "distinct_src": e.distinct_src,
                "distinct_trg": e.distinct_trg,
            }
        }

    return extra


def _verdict(result: Optimized) -> str:
    if result.spent:
        return (
            f"today's plan kept (estimated {result.today.cost:.4g}; the alternatives were "
            "too many to rank)"
        )
    if result.chosen is result.today:
        best = result.ranked[0].cost if result.ranked else result.today.cost
        return (
            f"today's plan kept (estimated {result.today.cost:.4g}; the cheapest alternative "
            f"{best:.4g} does not beat it by the margin {MARGIN:g}x)"
        )
    ratio = result.today.cost / max(result.chosen.cost, 1e-300)
    return (
        f"chosen plan estimated {result.chosen.cost:.4g} per time unit, today's plan "
        f"{result.today.cost:.4g} ({ratio:.3g}x)"
    )


def optimized_text(result: Optimized, stats: StreamStatistics, plans: int) -> str:
    """The verdict, the chosen plan annotated with costs, and `plans` ranked alternatives."""
    model = CostModel(stats)
    budget = "; budget exhausted" if result.exhausted else ""
    if result.spent:
        budget += f"; search stopped after {MAX_PRICED} sub-plans priced: today's plan kept"
    if result.skipped:
        budget += (
            f"; {result.skipped} operator{'s' if result.skipped != 1 else ''} wider than "
            f"{MAX_WIDTH} kept as rewritten, unexplored"
        )
    lines = [
        f"optimizer: {result.groups} groups, {result.expressions} expressions{budget}",
        _verdict(result),
        explain_text(result.chosen.plan, _note(model)).rstrip("\n"),
    ]
    for k, ranked in enumerate(result.ranked[:plans], start=1):
        mark = " (chosen)" if ranked.plan == result.chosen.plan else ""
        lines.append(f"-- plan {k}: estimated cost {ranked.cost:.4g}{mark}")
        lines.append(explain_text(ranked.plan, _note(model)).rstrip("\n"))
    return "\n".join(lines) + "\n"


def _plan_json(ranked: RankedPlan, model: CostModel) -> dict:
    return {"cost": ranked.cost, **explain_data(ranked.plan, _extra(model))}


def optimized_json(result: Optimized, stats: StreamStatistics, plans: int) -> str:
    """The chosen plan with per-operator estimates, today's cost, and `plans` alternatives."""
    model = CostModel(stats)
    data = {
        **_plan_json(result.chosen, model),
        "today_cost": result.today.cost,
        "optimized": result.chosen is not result.today,
        "alternatives": [_plan_json(r, model) for r in result.ranked[:plans]],
    }
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _cluster(name: str, title: str, ranked: RankedPlan, model: CostModel, bold: bool) -> list[str]:
    style = "    style=bold;" if bold else "    style=dashed;"
    label = json.dumps(f"{title}: estimated cost {ranked.cost:.4g}", ensure_ascii=False)
    return [
        f"  subgraph cluster_{name} {{",
        f"    label={label};",
        style,
        *dot_nodes(ranked.plan, f"{name}_", _note(model), indent="    "),
        "  }",
    ]


def optimized_dot(result: Optimized, stats: StreamStatistics, plans: int) -> str:
    """One digraph: the chosen plan (bold), today's when another was chosen, and `plans`
    ranked alternatives, each a cluster whose operators carry their estimated costs."""
    model = CostModel(stats)
    lines = ["digraph sga {", *DOT_HEADER]
    lines += _cluster("chosen", "chosen plan", result.chosen, model, True)
    if result.chosen is not result.today:
        lines += _cluster("today", "today's plan", result.today, model, False)
    for k, ranked in enumerate(result.ranked[:plans], start=1):
        mark = " (chosen)" if ranked.plan == result.chosen.plan else ""
        lines += _cluster(f"plan{k}", f"plan {k}{mark}", ranked, model, False)
    lines.append("}")
    return "\n".join(lines) + "\n"
