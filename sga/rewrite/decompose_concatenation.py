"""Rule 14 of the thesis (6.2.3), decomposition of concatenation:
P_{r1·r2}(S) = PATTERN^{src1,trg2}_{trg1=src2}(P_{r1}(S), P_{r2}(S)).

Two shapes:
- **at the root**: a PATH whose expression is a concatenation `r1/.../rn` of ε-free parts
  becomes one chain PATTERN over the parts (each part a PATH of its own, or its input stream
  when it is one letter: rule 16). PATTERN's associativity (associate_pattern.py) then gives
  every grouping of the chain:

      PATH[a/b+]               ->   PATTERN[src1, trg2 -> [a/b+]](trg1 = src2)
        WSCAN[a] WSCAN[b]             RENAME[src, trg -> a]  PATH[b+ as [b+]]
                                        WSCAN[a]               WSCAN[b]

- **inside**: a contiguous factor `ri/.../rj` (two parts or more) of a concatenation below the
  root is read as one fresh letter from its own PATH, the hybrid plans Q4p-Q7p of thesis 6.5.3:
  `(a/b/c)+` over `a, b, c` becomes `(d/c)+` over `d = P_{a/b}, c`.

The root shape is Lemma 3 of the thesis (a path of r1·r2 is an r1-path followed by an
r2-path; its validity is the intersection of both, PATTERN's); the inside shape is the same
lemma under substitution (regex_factors.py). Side conditions: arbitrary-path semantics and
ε-free parts (a simple path's halves may share vertices; an ε part needs the active domain).
"""

from __future__ import annotations

import attrs

from ..algebra import Op, Path, Pattern, regex_nullable
from .regex_factors import fresh_letter, path_over, positions, replace_at, streams_of, substitute

NAME = "decompose_concatenation"
THESIS_RULE = 14


def _as_chain(op: Path) -> Pattern:
    streams = streams_of(op)
    parts = op.regex[1:]
    inputs = []
    for part in parts:
        name = part[1] if part[0] == "label" else fresh_letter(part, set(streams))
        inputs.append(path_over(part, streams, name))
    hops = [f"_v{i}" for i in range(len(parts) + 1)]
    return Pattern(tuple(inputs), tuple(zip(hops, hops[1:])), (hops[0], hops[-1]), op.label)


def decompose_concatenation(op: Op) -> tuple[Op, ...]:
    """The plans of `op` by rule 14: the root concatenation as a chain PATTERN, and each
    factor of an inner concatenation as its own PATH; `()` when none applies."""
    if not isinstance(op, Path) or op.simple:
        return ()
    out: list[Op] = []
    if op.regex[0] == "concat" and not any(regex_nullable(p) for p in op.regex[1:]):
        out.append(_as_chain(op))
    for at, sub in positions(op.regex):
        if not at or sub[0] != "concat":
            continue
        parts = len(sub) - 1
        for i in range(1, parts + 1):
            for j in range(i + 2, parts + 2):
                factor = ("concat", *sub[i:j]) if j - i < parts else sub
                if regex_nullable(factor):
                    continue
                if j - i < parts:
                    # the factor becomes one part of this concatenation, then the letter
                    grouped = sub[:i] + (factor,) + sub[j:]
                    regrouped = attrs.evolve(op, regex=replace_at(op.regex, at, grouped))
                    out.append(substitute(regrouped, at + (i,)))
                else:
                    out.append(substitute(op, at))
    return tuple(dict.fromkeys(out))
