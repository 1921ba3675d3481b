"""The output characteristics of every SGA operator from its inputs' (thesis 6.3.1, Operator
Formulas 1-7, eqs. 6.1-6.17): arrival rate r, average interval length v, and the distinct
source and target vertices that System-R selectivities need (thesis 6.4.2).

A selectivity of an equality between two ends with `d1` and `d2` distinct vertices is
`1 / max(d1, d2)` (uniformity and inclusion, thesis 6.4.2); a variable shared by m ends joins
with `1 / (product of all but the smallest d)`. The PATTERN formulas (6.7, 6.8) are written
for two inputs; for n inputs an arrival at input i meets `Π_{j≠i} r_j · v_j` tuples of the
others, so `r_O = f · Σ_i r_i · Π_{j≠i} r_j v_j`, and `1/v_O = Σ 1/v_i` (6.8 and 6.15 are
its two-input and i-equal-input cases). A PATTERN or PATH output is a set of pairs per
instant, so its content `r_O · v_O` is capped by `distinct_src · distinct_trg`.
"""

from __future__ import annotations

import math

import attrs

from ..algebra import (
    Attribute,
    BoundPath,
    Filter,
    Op,
    Path,
    Pattern,
    Regex,
    Rename,
    Union,
    Vertices,
    WScan,
    regex_labels,
)
from .statistics import StreamStatistics

#: the longest path a closure's estimate sums over (thesis eq. 6.13: m, "given")
MAX_PATH_LENGTH = 32


@attrs.frozen
class StreamEstimate:
    """A streaming graph's characteristics: `rate` (tuples per time unit), `interval` (average
    validity length), `distinct_src` / `distinct_trg` (vertices at each end in a window)."""

    rate: float
    interval: float
    distinct_src: float
    distinct_trg: float

    @property
    def size(self) -> float:
        """Tuples valid at an instant, `r · v` (thesis 6.3.1)."""
        return self.rate * self.interval

    @property
    def vertices(self) -> float:
        """Vertices of the snapshot, under the inclusion assumption."""
        return max(self.distinct_src, self.distinct_trg)

    def reversed(self) -> StreamEstimate:
        return attrs.evolve(self, distinct_src=self.distinct_trg, distinct_trg=self.distinct_src)


def _capped(rate: float, interval: float, ds: float, dt: float) -> StreamEstimate:
    """A set of pairs: at most `ds · dt` valid at once; the ends at most the content."""
    interval = max(interval, 1e-9)
    rate = min(rate, ds * dt / interval)
    size = rate * interval
    return StreamEstimate(rate, interval, max(1.0, min(ds, size)), max(1.0, min(dt, size)))


def wscan(op: WScan, stats: StreamStatistics) -> StreamEstimate:
    """Formula 1: r_O = r_i (6.1), v_O = ω (6.2); with conditions (rule 12) Formula 2 over
    that, the FILTER before the window; over several labels (rule 13) Formula 3 over each
    label's, the union of their windows."""
    if op.labels:
        return union(
            [wscan(WScan(name, op.window, op.slide, op.conditions), stats) for name in op.labels]
        )
    read = op.source or op.label
    rate = stats.rate(read)
    for test in op.properties:  # §4c: each test keeps its share (statistics.py), independently
        rate *= stats.selectivity(read, test.key, test.op, test.value)
    size = rate * op.window
    label = stats.labels.get(read)
    if label is None:
        raw = StreamEstimate(rate, op.window, 1.0, 1.0)
    else:
        raw = StreamEstimate(
            rate, op.window, label.distinct("src", size), label.distinct("trg", size)
        )
    return filter_(op, raw) if op.conditions else raw


def filter_selectivity(op: Filter | WScan, inp: StreamEstimate) -> float:
    """f of a FILTER's conjunction: `= "c"` keeps 1/d, `src = trg` 1/max(ds, dt), `!=` 1 - that."""
    f = 1.0
    for cond in op.conditions:
        d = (
            (inp.distinct_src if cond.left == "src" else inp.distinct_trg)
            if cond.right_const
            else max(inp.distinct_src, inp.distinct_trg)
        )
        f *= 1.0 / d if cond.op == "=" else 1.0 - 1.0 / max(d, 2.0)
    return f


def filter_(op: Filter | WScan, inp: StreamEstimate) -> StreamEstimate:
    """Formula 2: r_O = f · r_i (6.3), v_O = v_i (6.4); an `= "c"` end has one vertex."""
    f = filter_selectivity(op, inp)
    ds, dt = inp.distinct_src, inp.distinct_trg
    for cond in op.conditions:
        if cond.op == "=" and cond.right_const:
            ds, dt = (1.0, dt) if cond.left == "src" else (ds, 1.0)
    return _capped(f * inp.rate, inp.interval, ds, dt)


def union(inputs: list[StreamEstimate]) -> StreamEstimate:
    """Formula 3: r_O = Σ r_i (6.5), v_O = Σ v_i r_i / r_O (6.6)."""
    rate = sum(e.rate for e in inputs)
    interval = sum(e.interval * e.rate for e in inputs) / rate if rate else inputs[0].interval
    return _capped(
        rate,
        interval,
        sum(e.distinct_src for e in inputs),
        sum(e.distinct_trg for e in inputs),
    )


def variable_distincts(
    bindings: tuple[tuple[str, str], ...], inputs: list[StreamEstimate]
) -> dict[str, list[float]]:
    """Each variable -> the distinct counts of the input ends that bind it."""
    out: dict[str, list[float]] = {}
    for (s, t), e in zip(bindings, inputs):
        out.setdefault(s, []).append(e.distinct_src)
        out.setdefault(t, []).append(e.distinct_trg)
    return out


def join_selectivity(distincts: list[float]) -> float:
    """f of one variable bound by several ends: 1 / (product of all but the smallest d)."""
    f = 1.0
    for d in sorted(distincts, reverse=True)[:-1]:
        f /= max(d, 1.0)
    return f


def pattern(op: Pattern, inputs: list[StreamEstimate]) -> StreamEstimate:
    """Formula 4 for n inputs (see the module docstring): eqs. 6.7 and 6.8."""
    by_var = variable_distincts(op.bindings, inputs)
    f = 1.0
    for distincts in by_var.values():
        f *= join_selectivity(distincts)
    for cond in op.conditions:
        d = min(by_var[cond.left])
        if cond.right_const:
            f *= 1.0 / d if cond.op == "=" else 1.0 - 1.0 / max(d, 2.0)
        else:
            d = max(d, min(by_var[cond.right]))
            f *= 1.0 / d if cond.op == "=" else 1.0 - 1.0 / max(d, 2.0)
    rate = 0.0
    for i, e in enumerate(inputs):
        meets = 1.0
        for j, other in enumerate(inputs):
            if j != i:
                meets *= other.size
        rate += e.rate * meets
    interval = 1.0 / sum(1.0 / max(e.interval, 1e-9) for e in inputs)
    return _capped(f * rate, interval, min(by_var[op.head[0]]), min(by_var[op.head[1]]))


def concatenation(a: StreamEstimate, b: StreamEstimate) -> StreamEstimate:
    """Formula 5: r_O = f·(v_b r_b)·r_a + f·(v_a r_a)·r_b (6.9), v_O = v_a v_b / (v_a + v_b)
    (6.10), f = 1 / max(dt_a, ds_b)."""
    f = 1.0 / max(a.distinct_trg, b.distinct_src, 1.0)
    rate = f * (b.size * a.rate + a.size * b.rate)
    interval = a.interval * b.interval / max(a.interval + b.interval, 1e-9)
    return _capped(rate, interval, a.distinct_src, b.distinct_trg)


def kleene(r: StreamEstimate) -> StreamEstimate:
    """Formula 7: R^i has rate i·r·(f r v)^(i-1) (6.14) and interval v/i (6.15); R+ sums
    i = 1..m (6.16, 6.17), m = MAX_PATH_LENGTH, stopping once the pairs cap is reached."""
    f = 1.0 / max(r.distinct_trg, r.distinct_src, 1.0)
    fanout = f * r.size
    cap = r.vertices * r.vertices
    rate = weighted = 0.0
    for i in range(1, MAX_PATH_LENGTH + 1):
        ri = i * r.rate * fanout ** (i - 1)
        vi = r.interval / i
        rate += ri
        weighted += ri * vi
        if rate * (weighted / rate) >= cap:
            break
    return _capped(rate, weighted / rate, r.vertices, r.vertices)


def regex(node: Regex, letters: dict[str, StreamEstimate]) -> StreamEstimate:
    """PATH's output characteristics bottom-up over the parse tree of `node` (Remark 5)."""
    kind = node[0]
    if kind == "label":
        return letters[node[1]]
    parts = [regex(child, letters) for child in node[1:]]
    if kind == "concat":
        out = parts[0]
        for part in parts[1:]:
            out = concatenation(out, part)
        return out
    if kind == "alt":
        return union(parts)
    return kleene(parts[0])  # plus, star (ε-pairs aside), opt ~ its body


def path(op: Path | BoundPath, inputs: list[StreamEstimate]) -> StreamEstimate:
    """Formulas 5-7 over `op`'s expression, its letters bound to its inputs."""
    return regex(op.regex, dict(zip(regex_labels(op.regex), inputs)))


def estimate(op: Op, inputs: list[StreamEstimate], stats: StreamStatistics) -> StreamEstimate:
    """`op`'s output characteristics from its inputs' (in `children` order)."""
    if isinstance(op, WScan):
        return wscan(op, stats)
    if isinstance(op, Filter):
        return filter_(op, inputs[0])
    if isinstance(op, Rename):
        return inputs[0].reversed() if op.reverse else inputs[0]
    if isinstance(op, Union):
        return union(inputs)
    if isinstance(op, Pattern):
        return pattern(op, inputs)
    if isinstance(op, Path):
        return path(op, inputs[: len(op.inputs)])
    if isinstance(op, BoundPath):  # at most its PATH's (bound to fewer roots)
        return path(op, inputs[:-1])
    if isinstance(op, Attribute):  # one tuple per reified edge: as many sources as tuples
        (inp,) = inputs
        size = max(1.0, inp.rate * inp.interval)
        values = inp.distinct_trg if op.part < 0 else max(1.0, math.sqrt(size))
        return StreamEstimate(inp.rate, inp.interval, size, values)
    if isinstance(op, Vertices):
        each = union(inputs)
        return StreamEstimate(2 * each.rate, each.interval, each.vertices, each.vertices)
    raise TypeError(f"no estimate for {type(op).__name__}")  # pragma: no cover
