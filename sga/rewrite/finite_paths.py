"""A PATH whose language is finite is a union of joins (thesis 5.2: PATH generalises PATTERN).

`[knows/likes/hasCreator](x, y)` (RPQ workload Q11) has one word, so its arbitrary paths are
exactly the chains `knows(x, a), likes(a, b), hasCreator(b, y)`: a PATTERN with the same
validity (the intersection of the edges' intervals, specs/semantics.md §6), the same witness (the
edges in path order) and the same coalescing per (src, trg). A join probes hash indexes per new
edge; S-PATH would keep a spanning tree per root vertex for a language with no cycles to share.
A word of one letter is a RENAME, several words a UNION. Languages with ε stay PATH (their
ε-pairs need the active domain), as do infinite ones and ones with too many words.

`join_finite_paths` is the pass `finite_paths` of sga/rewrite/pipeline.py, the first after the
canonical translation (which plans every path atom as a PATH):

    PATH[a/b]                    ->   PATTERN[src1, trg2 -> [a/b]](trg1 = src2)
      WSCAN[a](ω=10, β=1)               WSCAN[a](ω=10, β=1)
      WSCAN[b](ω=10, β=1)               WSCAN[b](ω=10, β=1)

A simple PATH (specs/semantics.md §4a) becomes the same joins with every two hops of a chain
different (`_v0 != _v1`, ...), which is what a simple path of that word is; a one-letter word is
then a PATTERN keeping the edges that are no self-loop.

Skipped by name (`--no-rewrite finite_paths`), such atoms stay PATH (S-PATH or closures).
"""

from __future__ import annotations

from ..algebra import (
    Op,
    Path,
    Pattern,
    Plan,
    Regex,
    Rename,
    Union,
    VarCondition,
    map_plan,
    regex_labels,
    regex_nullable,
)

MAX_WORDS = 16
MAX_WORD_LENGTH = 8


def finite_words(regex: Regex) -> list[tuple[str, ...]] | None:
    """The words of L(regex) in first-seen order, or None when the language is infinite or
    larger than MAX_WORDS words / MAX_WORD_LENGTH letters."""
    kind = regex[0]
    if kind == "label":
        return [(regex[1],)]
    if kind in ("star", "plus"):
        return None
    if kind == "opt":
        inner = finite_words(regex[1])
        return None if inner is None else _dedup([()] + inner)
    parts = [finite_words(r) for r in regex[1:]]
    if any(p is None for p in parts):
        return None
    if kind == "alt":
        words = _dedup([w for p in parts for w in p])
    else:  # concat
        words = [()]
        for p in parts:
            words = _dedup([w + x for w in words for x in p])
            if len(words) > MAX_WORDS:
                return None
    if len(words) > MAX_WORDS or any(len(w) > MAX_WORD_LENGTH for w in words):
        return None
    return words


def _dedup(words: list[tuple[str, ...]]) -> list[tuple[str, ...]]:
    return list(dict.fromkeys(words))


def as_joins(
    words: list[tuple[str, ...]], streams: dict[str, Op], label: str, simple: bool = False
) -> Op:
    """The plan of a finite, ε-free language: per word a chain PATTERN (or a RENAME for one
    letter), a UNION of them when there are several; `streams` maps a letter to its input.
    `simple`: the chain's vertices pairwise different."""
    parts: list[Op] = []
    for word in words:
        if len(word) == 1 and not simple:
            node: Op = Rename(streams[word[0]], label)
        else:
            hops = [f"_v{i}" for i in range(len(word) + 1)]
            distinct = tuple(
                VarCondition(a, "!=", b) for i, a in enumerate(hops) for b in hops[i + 1 :]
            )
            node = Pattern(
                tuple(streams[letter] for letter in word),
                tuple(zip(hops, hops[1:])),
                (hops[0], hops[-1]),
                label,
                distinct if simple else (),
            )
        if node not in parts:
            parts.append(node)
    return parts[0] if len(parts) == 1 else Union(tuple(parts), label)


def join_finite_paths(plan: Plan) -> Plan:
    """`plan` with every PATH over a finite, ε-free language replaced by `as_joins` of its
    words (children first, shared nodes stay shared); `plan` itself when there is none."""

    def lower(op: Op) -> Op:
        if not isinstance(op, Path) or regex_nullable(op.regex):
            return op
        words = finite_words(op.regex)
        if words is None:
            return op
        streams = dict(zip(regex_labels(op.regex), op.inputs))
        return as_joins(words, streams, op.label, op.simple)

    return map_plan(plan, lower)
