"""The plan rewrites in the order they run; each one can be skipped by name.

`translate` builds the canonical plan (thesis Algorithm SGQParser: every path atom a PATH,
every rule a PATTERN or RENAME) and hands it to `rewrite`, which runs the passes of
`REWRITES` in order, leaving out those named in `skip`:

1. `finite_paths` (finite_paths.py): a PATH over a finite, ε-free language becomes a union
   of chain PATTERNs (`[a/b/c]`);
2. `relax_simple_paths` (relax_simple_paths.py): a simple PATH whose automaton can never
   conflict runs as an arbitrary-path PATH (a FILTER drops its `(x, x)` cycles);
3. `shared_chains` (shared_chains.py): the chains and closing links of PATTERNs become
   nested PATTERNs (after 1, so the chains it made are shared too);
4. `bind_path_sources` (bind_path_sources.py): a closure PATH joined on its source with
   another input is asked only for that input's sources (after 3, whose nested PATTERNs are
   the seeds it binds to); opt-in (`PlanOptions(rewrites=...)`, `--rewrite NAME`).

Each pass is a function from a plan to a plan with the same snapshots at every instant (its
module says why), returning its input itself when it has nothing to change; so any subset
may be skipped, and the plan says which passes changed it (`Plan.rewrites`). Users choose
with `PlanOptions(skip_rewrites=...)` (base/options.py) or `--no-rewrite NAME`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

import attrs

from ...base.options import OPT_IN_REWRITES
from ..algebra import Plan
from .bind_path_sources import bind_path_sources
from .finite_paths import join_finite_paths
from .relax_simple_paths import relax_simple_paths
from .shared_chains import share_chains_plan

#: every rewrite pass by name, in the order they run
REWRITES: dict[str, Callable[[Plan], Plan]] = {
    "finite_paths": join_finite_paths,
    "relax_simple_paths": relax_simple_paths,
    "shared_chains": share_chains_plan,
    "bind_path_sources": bind_path_sources,
}


def rewrite(plan: Plan, skip: Collection[str] = (), enable: Collection[str] = ()) -> Plan:
    """`plan` after every pass of `REWRITES` not named in `skip`, in order, the opt-in ones
    (`OPT_IN_REWRITES`, base/options.py) only when named in `enable`; its `rewrites` names
    the passes that changed it. Raises ValueError for a name that is not a pass.

    >>> from sgq.sga.algebra import Path, WScan
    >>> ab = Path((WScan("a", 10, 1), WScan("b", 10, 1)), ("concat", ("label", "a"),
    ...           ("label", "b")), "[a/b]")
    >>> rewrite(Plan((ab,))).rewrites
    ('finite_paths',)
    >>> rewrite(Plan((ab,)), skip={"finite_paths"}).outputs == (ab,)
    True
    """
    unknown = sorted((set(skip) | set(enable)) - REWRITES.keys())
    if unknown:
        raise ValueError(
            f"unknown rewrite {', '.join(unknown)}; the rewrites are {', '.join(REWRITES)}"
        )
    changed = []
    skip = set(skip) | (set(OPT_IN_REWRITES) - set(enable))
    for name, apply in REWRITES.items():
        if name in skip:
            continue
        new = apply(plan)
        if new is not plan:
            changed.append(name)
            plan = new
    return attrs.evolve(plan, rewrites=tuple(changed))
