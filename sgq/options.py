"""The choices a user may make about how a query is planned, without changing its results.

    >>> import sgq
    >>> q = sgq.compile(".window 10\\nAnswer(x, y) :- [a/b](x, y).",
    ...                 options=PlanOptions(path_operator="spath", skip_rewrites={"finite_paths"}))
    >>> q.plan.rewrites, [type(op).__name__ for op in q.engine().dataflow.ops]
    ((), ['WScanOp', 'WScanOp', 'PathOp', 'RenameOp'])

Every choice gives the same results (the tests run them against one reference); they exist
for A/B measurements, tests, and the odd stream where the default choice is the slower one.
The command line sets them with `--path-operator` and `--no-rewrite NAME` (sgq run, explain,
verify, bench), and a checkpoint records them (sgq/checkpoint.py).
"""

from __future__ import annotations

from typing import Any, Literal

import attrs

from .errors import UserError
from .sga.rewrite.pipeline import REWRITES

#: the values of `PlanOptions.path_operator`
PATH_OPERATORS: tuple[str, ...] = ("auto", "closure", "spath")

PathOperator = Literal["auto", "closure", "spath"]


def _check_path_operator(_options: Any, _field: Any, value: str) -> None:
    if value not in PATH_OPERATORS:
        raise UserError(
            f"unknown PATH operator {value!r}; the choices are {', '.join(PATH_OPERATORS)}"
        )


def _check_rewrites(_options: Any, _field: Any, value: frozenset[str]) -> None:
    unknown = sorted(value - REWRITES.keys())
    if unknown:
        raise UserError(
            f"unknown rewrite {', '.join(map(repr, unknown))}; the rewrites are "
            f"{', '.join(REWRITES)}"
        )


@attrs.frozen
class PlanOptions:
    """How `sgq.compile` plans a query: the logical rewrites and the physical PATH operator.

    `path_operator` (default `"auto"`): the physical operator of every PATH of the plan.
    - `"auto"`: per-level closures (incremental/operators/path_closure.py) that hand over to
      S-PATH (incremental/operators/path.py) when they must (witness paths, the first explicit
      deletion, too many live expiry levels) or when the closure turns out sparse (the density
      rule, checked once per slide);
    - `"closure"`: the same closures, which never hand over for density (they still do for
      witness paths, deletions and too many levels);
    - `"spath"`: S-PATH from the start.

    `skip_rewrites` (default none): names of rewrite passes of sga/rewrite/pipeline.py not to
    run (`finite_paths`, `shared_chains`); any iterable of names, kept as a frozenset.

    An unknown value is a UserError naming the valid ones.
    """

    path_operator: PathOperator = attrs.field(default="auto", validator=_check_path_operator)
    skip_rewrites: frozenset[str] = attrs.field(
        default=frozenset(), converter=frozenset, validator=_check_rewrites
    )

    def as_dict(self) -> dict[str, Any]:
        """JSON-able form (checkpoint settings, benchmark children); `PlanOptions(**d)` reads
        it back."""
        return {"path_operator": self.path_operator, "skip_rewrites": sorted(self.skip_rewrites)}
