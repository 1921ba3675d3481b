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

#: the plan rewrites a user may skip, in the order they run (sga/rewrite/pipeline.py's
#: `REWRITES` holds the passes themselves, under these names)
REWRITE_NAMES: tuple[str, ...] = (
    "finite_paths",
    "relax_simple_paths",
    "shared_chains",
    "bind_path_sources",
)

#: the rewrites that run only when asked for (`PlanOptions.rewrites`, `--rewrite NAME`): their
#: plans give the same snapshots, but not yet the same interval rows in the same order within
#: an instant (docs/design/bound-paths.md)
OPT_IN_REWRITES: tuple[str, ...] = ("bind_path_sources",)

#: the values of `PlanOptions.path_operator`
PATH_OPERATORS: tuple[str, ...] = ("auto", "closure", "spath")

PathOperator = Literal["auto", "closure", "spath"]


def _check_path_operator(_options: Any, _field: Any, value: str) -> None:
    if value not in PATH_OPERATORS:
        raise UserError(
            f"unknown PATH operator {value!r}; the choices are {', '.join(PATH_OPERATORS)}"
        )


def _known_rewrites(kind: str, names: tuple[str, ...]):
    """A validator: every name given is one of `names` (`kind`: how the error names them)."""

    def check(_options: Any, _field: Any, value: frozenset[str]) -> None:
        unknown = sorted(value - set(names))
        if unknown:
            raise UserError(
                f"unknown {kind} {', '.join(map(repr, unknown))}; the {kind}s are "
                f"{', '.join(names)}"
            )

    return check


_check_rewrites = _known_rewrites("rewrite", REWRITE_NAMES)
_check_opt_in = _known_rewrites("opt-in rewrite", OPT_IN_REWRITES)


@attrs.frozen
class Tuning:
    """The thresholds of the choices the physical operators make on their own (expert
    knobs: the defaults are measured, docs/benchmarks.md; tests and experiments move them to
    force a choice).

    PATH on closures (incremental/operators/path_closure.py):
    - `max_levels`: live expiry levels beyond which S-PATH takes over (a slide much finer
      than the window);
    - `level_every`, `coarse_work`: a closure PATH whose rows only the engine's output
      reads, once a slide's inserts measurably spent `coarse_work` words, keeps a closure
      for one new top level in `level_every` (and the lowest): its rows' ends are then
      lower bounds, widened when they come up (state/level_closure.py; 1: a closure per
      level, exact ends, as below that work, where the levels cost little); the levels
      rebuilt when the lowest comes up keep one closure in `isqrt(level_every)`. Both
      defaults were measured at ten slides per window: a closure per ten levels costs less
      CPU than one per three on the dense so rows' interval output and the same on the snb
      rows, and `coarse_work` is low enough that snb `knows*` coarsens too (less CPU for a
      few more rows; the thesis workloads unchanged);
    - `min_rows`: rows of the largest level from which a sparse closure hands over;
    - `tree_cost`: what one S-PATH tree node costs in 64-bit bitset words (set on the snb
      workloads: RPQ Q2/Q3/Q6/Q7 and SGA Q4, where start pairs x `tree_cost` < rows x words
      + pairs, run much faster on S-PATH; knows*, RPQ Q8 and the so streams run faster on
      closures);
    - `clearly_sparse`: a closure this many times S-PATH's estimated work hands over at once,
      without waiting for the excess to pay for the replay (SGA Q4 on snb passes it in its
      second and third slides, where its closures run far behind S-PATH).
    - `chain_edges`: edges of the repeated letters (those under a star or plus) at which a
      closure decides, once, whether they are chains (one edge per source in the window) and
      if so hands over, whatever its density (S-PATH's trees are then the reach);
    - `overwork`: within a slide, the words of bitset work the closure's inserts measurably
      spent, over S-PATH's estimated tree work, at which S-PATH takes over at once (SGA Q4
      on snb is far above it from its first slide, the closure workloads that win far below;
      a tree node costs so many more bitset words than `tree_cost` says that the measured
      break-even lies well above that estimate).

    PATTERN (incremental/operators/pattern.py):
    - `guard_scan`: a span's new keys are found from the guard atom (one on both head
      variables) when its index holds at most this many entries per new tuple and fewer of
      them may enter than there are new tuples (0: always from the new tuples; infinite:
      from the guard whenever there is one);
    - `batched_joins`: join whole batches breadth-first (False: tuple by tuple, the thesis's
      Algorithm PATTERN as written);
    - `functional_joins`: a two-input PATTERN whose keys have one derivation each reads
      their coverage off its inputs (operators/functional_join.py; False: keyed, always);
    - `deferred_widenings`: a keyed PATTERN whose rows only the engine's output reads joins
      new tuples only, not renewed ones, and widens each key when its emitted end comes up
      (False: every renewal re-joins and widens at once; the coverage is the same);
    - `renewed_share`, `renewals_seen`: a keyed PATTERN giving native deltas joins renewed
      input tuples too, its keys' ends exact, until, past its first `renewals_seen` tuples,
      more than `renewed_share` of the tuples it has taken renew one valid before; from then
      on it joins new tuples only and re-derives each key's end when it comes up (share 0:
      from the start; infinite: never; the deltas are the same);
    - `intersections`: an output PATTERN joining two inputs on both of its variables runs on
      its inputs' delta streams (operators/intersect.py; False: the hash join);
    - `sideways`: where one input of such an intersection is a closure PATH and the other a
      PATTERN, the closure names only the pairs the PATTERN holds (operators/sideways.py;
      False: every pair it reaches).
    """

    max_levels: int = 96
    level_every: int = 10
    coarse_work: float = 1e5
    min_rows: int = 2000
    tree_cost: float = 16
    clearly_sparse: float = 1.5
    overwork: float = 100
    chain_edges: int = 256
    guard_scan: float = 16
    batched_joins: bool = True
    functional_joins: bool = True
    deferred_widenings: bool = True
    renewed_share: float = 0.1
    renewals_seen: int = 1000
    intersections: bool = True
    sideways: bool = True


def _tuning(value: Any) -> Tuning:
    return value if isinstance(value, Tuning) else Tuning(**value)


#: steps of the simple-path search per PATH and round (a few seconds of Python at most)
DEFAULT_SIMPLE_BUDGET = 2_000_000


def _check_budget(_options: Any, _field: Any, value: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise UserError(f"the simple-path budget must be a positive integer, not {value!r}")


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

    `rewrites` (default none): the opt-in passes to run (`OPT_IN_REWRITES`:
    `bind_path_sources`), which run only when named here (`--rewrite NAME`) and not skipped.

    `tuning` (default `Tuning()`): the operators' own thresholds (API only, no flag).

    `optimize` (default True): let the cost-based optimizer (sga/optimize/, thesis ch. 6)
    choose among the plans the equivalence rules of sga/rewrite/equivalences.py give, priced
    over statistics of the input stream (`sgq.compile(..., statistics=...)`; without them it
    keeps today's plan); off, the plan is today's: the canonical plan after the rewrite passes
    (`--optimize`/`--no-optimize`).

    `simple_budget` (default 2,000,000): the steps the simple-path search of one `simple`
    PATH may take in one round (incremental/state/simple_search.py) before the run stops with
    an error naming the atom and the vertex where conflicts exploded (`--simple-budget`).

    An unknown value is a UserError naming the valid ones.
    """

    path_operator: PathOperator = attrs.field(default="auto", validator=_check_path_operator)
    skip_rewrites: frozenset[str] = attrs.field(
        default=frozenset(), converter=frozenset, validator=_check_rewrites
    )
    tuning: Tuning = attrs.field(default=Tuning(), converter=_tuning)
    rewrites: frozenset[str] = attrs.field(
        default=frozenset(), converter=frozenset, validator=_check_opt_in
    )
    simple_budget: int = attrs.field(default=DEFAULT_SIMPLE_BUDGET, validator=_check_budget)
    optimize: bool = True

    def as_dict(self) -> dict[str, Any]:
        """JSON-able form (checkpoint settings, benchmark children); `PlanOptions(**d)` reads
        it back. The tuning is left out while it is the default (older settings read alike)."""
        out: dict[str, Any] = {
            "path_operator": self.path_operator,
            "skip_rewrites": sorted(self.skip_rewrites),
        }
        if self.tuning != Tuning():
            out["tuning"] = attrs.asdict(self.tuning)
        if self.rewrites:  # (left out when none: older settings read alike)
            out["rewrites"] = sorted(self.rewrites)
        if self.simple_budget != DEFAULT_SIMPLE_BUDGET:
            out["simple_budget"] = self.simple_budget
        out["optimize"] = self.optimize  # always, default or not: how the run was planned
        return out
