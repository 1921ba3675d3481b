"""A closure PATH joined on its source with another input is asked only for the sources that
input has: sideways information passing (the magic-sets idea, Bancilhon et al. 1986; for
RPQs, the S-PATH trees of the roots that join, thesis Appendix A).

    PATTERN[src1, trg1 -> Answer](src1 = src2, trg1 = trg2)
      PATH[a+]
        WSCAN[a](ω=10, β=1)
      PATTERN[src1, trg2 -> [b/c]](trg1 = src2)
        WSCAN[b](ω=10, β=1)
        WSCAN[c](ω=10, β=1)
  ->
    PATTERN[src1, trg1 -> Answer](src1 = src2, trg1 = trg2)
      PATH[a+; pairs from [b/c]]
        WSCAN[a](ω=10, β=1)
        PATTERN[src1, trg2 -> [b/c]](trg1 = src2)
          ...
      #4 (shared) PATTERN[src1, trg2 -> [b/c]](trg1 = src2)

The seed `[b/c]` binds both of the PATH's variables here, so the PATH is bound to its pairs
(`pairs from`): only the PATH pairs that are seed tuples need to be there; a seed that binds
the source only (`b(x, m)`) binds the sources (`sources from`).

Sound: at every instant the PATTERN keeps a PATH pair `(x, y)` only together with a tuple of
the seed input whose source is `x`, so PATH's pairs whose `x` is no seed source join nothing;
a BoundPath (sga/algebra.py) holds every PATH pair of a seeded `x` (bound to pairs: every
PATH pair that is a seed tuple) and only PATH pairs, so the PATTERN's snapshot is the same
at every instant (specs/semantics.md §4), with the same intervals (§6: the intersection
with the seed tuple's cuts whatever the bound PATH adds).

`bind_path_sources` runs only when asked for (`--rewrite bind_path_sources`, base/options.py
`OPT_IN_REWRITES`): its plans are exact and its deltas the same, but its interval rows come
in another order within an instant (docs/design/bound-paths.md).

Where: a PATTERN without time variables (a bound PATH's tuples may start later than PATH's),
one of whose inputs is an arbitrary-path PATH that only this PATTERN reads and that is no
output, whose language is ε-free (a nullable PATH's `(v, v)` pairs range over the active
domain, which no seed bounds) and whose automaton never returns to its start state (so a root
is the start of its own tree only: incremental/operators/bound_path.py), and another input,
not itself a PATH, that binds the PATH's source variable as its own source. It pays where the
seed's sources are few beside the PATH's: the closure is searched from them only.

`bind_path_sources` is the last pass of sga/rewrite/pipeline.py; off or skipped by name, the
whole closure is kept. `unbind_paths` gives back the plan without it (the Spark engine runs that).
"""

from __future__ import annotations

import attrs

from ...base.dfa import compile_regex
from ..algebra import BoundPath, Op, Path, Pattern, Plan, children, map_plan, regex_nullable

NAME = "bind_path_sources"


def bindable(op: Op) -> bool:
    """Whether the PATH `op` may be bound to sources (see the module docstring)."""
    if not isinstance(op, Path) or op.simple or op.domain is not None:
        return False
    if regex_nullable(op.regex):
        return False
    dfa = compile_regex(op.regex)
    return all(q != dfa.start for moves in dfa.delta for q in moves.values())


def _seed_of(op: Pattern, at: int) -> int | None:
    """The input of `op` that binds the source variable of input `at` as its own source and
    is no PATH, one binding both of its variables first; or None."""
    source = op.bindings[at][0]
    found = [
        j
        for j, (s, _t) in enumerate(op.bindings)
        if j != at and s == source and not isinstance(op.inputs[j], (Path, BoundPath))
    ]
    found.sort(key=lambda j: op.bindings[j] != op.bindings[at])
    return found[0] if found else None


def bind_path_sources(plan: Plan) -> Plan:
    """`plan` with each bindable PATH read by one PATTERN that joins its source with another
    input's source replaced by a BoundPath seeded by that input; `plan` itself when none."""
    readers: dict[Op, set] = {}
    for node in plan.nodes():
        for child in children(node):
            readers.setdefault(child, set()).add(node)
    outputs = set(plan.outputs)

    def only_here(path: Op) -> bool:
        return path not in outputs and len(readers.get(path, ())) == 1

    def bind(op: Op) -> Op:
        if not isinstance(op, Pattern) or op.times or op.fixed():
            return op
        inputs = list(op.inputs)
        for i, inp in enumerate(inputs):
            if not bindable(inp) or not only_here(inp):
                continue
            j = _seed_of(op, i)
            if j is not None:
                pairs = op.bindings[j] == op.bindings[i]  # (a seed tuple per joined pair)
                inputs[i] = BoundPath(inp.inputs + (inputs[j],), inp.regex, inp.label, pairs)
        if all(new is old for new, old in zip(inputs, op.inputs)):
            return op
        return attrs.evolve(op, inputs=tuple(inputs))

    return map_plan(plan, bind)


def unbind_paths(plan: Plan) -> Plan:
    """`plan` with every BoundPath back to the PATH it binds (its snapshot holds the bound
    one's: the PATTERNs above give the same results); `plan` itself when it has none."""

    def unbind(op: Op) -> Op:
        if isinstance(op, BoundPath):
            return Path(op.letters, op.regex, op.label)
        return op

    return map_plan(plan, unbind)
