"""A gMark-style random schema-driven stream for stress tests: labels l0..l{K-1}.

gMark (used in thesis Ch. 4.5.1 and 6.5) generates a graph from a schema: vertex types with
sizes, and per edge label a source type, a target type and an out-/in-degree distribution;
the thesis then streams the edges with increasing timestamps. Here the schema itself is drawn
from the seed: a few vertex types with random shares of the vertices, and per label a source
and target type, a Zipf or uniform choice on each side, and a relative frequency. Vertex ids are
plain integers as text (`"0" .. "V-1"`), each type owning a range. Memory: the schema only.
"""

from __future__ import annotations

from bisect import bisect
from collections.abc import Iterator
from itertools import accumulate
from random import Random

import attrs

from .zipf import scramble, zipf_sampler


@attrs.frozen
class LabelSchema:
    """One label: source and target type, per-side distribution, relative frequency."""

    label: str
    source_type: int
    target_type: int
    source_skew: float  # 0 = uniform, else a Zipf exponent
    target_skew: float
    weight: float


@attrs.frozen
class Schema:
    """Vertex types as id ranges `[offset, offset + size)` and one LabelSchema per label."""

    type_offsets: tuple[int, ...]
    type_sizes: tuple[int, ...]
    labels: tuple[LabelSchema, ...]

    def describe(self) -> str:
        """A few readable lines, e.g. for `sgq gen gmark --schema`."""
        lines = [
            f"type T{i}: ids {o}..{o + s - 1} ({s} vertices)"
            for i, (o, s) in enumerate(zip(self.type_offsets, self.type_sizes))
        ]
        total = sum(ls.weight for ls in self.labels)
        for ls in self.labels:
            side = lambda s: "uniform" if s == 0 else f"zipf({s:.2f})"  # noqa: E731
            lines.append(
                f"label {ls.label}: T{ls.source_type} [{side(ls.source_skew)}] -> "
                f"T{ls.target_type} [{side(ls.target_skew)}], {ls.weight / total:.1%} of edges"
            )
        return "\n".join(lines)


def default_vertices(edges: int) -> int:
    return max(16, edges // 8)


def make_schema(rnd: Random, labels: int, vertices: int) -> Schema:
    """A random schema with `labels` labels over `vertices` vertices (see module docstring)."""
    random = rnd.random
    ntypes = max(1, min(vertices, 2 + labels // 2))
    shares = [0.5 + random() for _ in range(ntypes)]
    total = sum(shares)
    sizes = [max(1, int(vertices * s / total)) for s in shares]
    sizes[-1] = max(1, vertices - sum(sizes[:-1]))
    offsets = [0, *accumulate(sizes)][:-1]
    label_schemas = []
    for i in range(labels):
        skews = [0.0 if random() < 0.35 else round(0.6 + 0.8 * random(), 2) for _ in range(2)]
        label_schemas.append(
            LabelSchema(
                label=f"l{i}",
                source_type=int(random() * ntypes),
                target_type=int(random() * ntypes),
                source_skew=skews[0],
                target_skew=skews[1],
                weight=round(0.2 + random(), 3),
            )
        )
    return Schema(tuple(offsets), tuple(sizes), tuple(label_schemas))


def events(
    edges: int,
    rnd: Random,
    labels: int = 4,
    vertices: int | None = None,
) -> Iterator[tuple]:
    """Endless schema-driven edges, one `((src, trg, label),)` event at a time."""
    schema = make_schema(rnd, labels, vertices if vertices is not None else default_vertices(edges))
    random = rnd.random
    cum = list(accumulate(ls.weight for ls in schema.labels))
    total = cum[-1]
    sides = []
    for ls in schema.labels:
        pair = []
        for typ, skew in ((ls.source_type, ls.source_skew), (ls.target_type, ls.target_skew)):
            size, offset = schema.type_sizes[typ], schema.type_offsets[typ]
            draw, to_id = zipf_sampler(size, skew, random), scramble(size)
            pair.append((draw, to_id, offset))
        sides.append((ls.label, *pair))
    last = len(cum) - 1
    while True:
        label, (sdraw, sid, soff), (tdraw, tid, toff) = sides[
            min(bisect(cum, random() * total), last)
        ]
        yield ((str(soff + sid(sdraw())), str(toff + tid(tdraw())), label),)
