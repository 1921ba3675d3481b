"""A simple PATH whose automaton can never conflict runs as an arbitrary-path PATH (RPQ paper
§4.1 and §5.5: restricted expressions such as `a*`, `(a|b|c)*` are conflict-free on every
graph and cost what arbitrary paths cost).

For such an automaton every walk spelling a word of L(R) from `x` to `y != x` can be cut into
a simple path from `x` to `y` spelling a word of L(R), over a subset of the walk's edges, so
valid at least as long (base/suffix_languages.py). The simple results are therefore the
arbitrary ones with the same intervals, except `(x, x)`: under simple semantics only the empty
path gives it, which the ε-pairs of a nullable regex already do (a cycle back to `x` needs
edges at `x`, so `x` is in the active domain then), and which the arbitrary-path operators
of a simple PATH never give otherwise: they drop their walks back to the root themselves, as
they do for a nullable regex, so the PATH stays the plan's output and keeps native deltas:

    PATH[simple a+; RSPQ]       ->   PATH[simple a+; conflict-free: arbitrary-path cost]
      WSCAN[a](ω=10, β=1)              WSCAN[a](ω=10, β=1)

The PATH stays marked simple so that its witness paths (`--paths`) are cut to simple paths and
its operators leave out `(x, x)`.
`relax_simple_paths` is the pass of sga/rewrite/pipeline.py after `finite_paths`; skipped by
name, every simple PATH runs the simple-path search (incremental/operators/simple_path.py).
"""

from __future__ import annotations

import attrs

from ...base.dfa import compile_regex
from ...base.suffix_languages import conflict_free
from ..algebra import Op, Path, Plan, map_plan


def relax_simple_paths(plan: Plan) -> Plan:
    """`plan` with every simple PATH over a conflict-free automaton marked `conflict_free`;
    `plan` itself when none."""

    def relax(op: Op) -> Op:
        if not isinstance(op, Path) or not op.simple or op.conflict_free:
            return op
        if not conflict_free(compile_regex(op.regex)):
            return op
        return attrs.evolve(op, conflict_free=True)

    return map_plan(plan, relax)
