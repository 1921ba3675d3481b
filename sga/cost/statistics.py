"""Streaming graph characteristics of an input stream, measured on a sample (thesis 6.3.1 and
6.4.2): per label the arrival rate r and, for System-R selectivities under the uniformity and
inclusion assumptions, the distinct source and target vertices.

A window holds `r · ω` tuples of a label, usually more or fewer than the sample has, so the
distinct counts are kept at two sample sizes (the whole sample and its first half) and read
at any size `N` by Heaps' law through both points, `d(N) = d · (N / n)^β`: vertex counts of
social streams grow sub-linearly with the edges seen (few persons, many messages per person).

`collect` reads edges `(src, trg, label, ts, op)` once (`+` edges only); `sgq stats INPUT`
writes the result as JSON and `sgq run/explain --stats FILE` read it back.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from itertools import compress, islice, repeat
from operator import eq, itemgetter

import attrs

FORMAT = "sgq-statistics/1"


@attrs.frozen
class LabelStatistics:
    """One label in the sample: `count` tuples with `distinct_src` / `distinct_trg` vertices,
    and the same counts over the sample's first half (`half_*`)."""

    count: int
    distinct_src: int
    distinct_trg: int
    half_count: int
    half_distinct_src: int
    half_distinct_trg: int

    def distinct(self, end: str, size: float) -> float:
        """Distinct vertices at `end` ("src" or "trg") among `size` tuples (Heaps' law through
        the two measured points; at least 1, at most `size`)."""
        full = self.distinct_src if end == "src" else self.distinct_trg
        half = self.half_distinct_src if end == "src" else self.half_distinct_trg
        if self.count == 0 or full == 0:
            return 1.0
        beta = 1.0
        if 0 < self.half_count < self.count and 0 < half < full:
            beta = math.log(full / half) / math.log(self.count / self.half_count)
        elif half == full:
            beta = 0.0
        beta = min(1.0, max(0.0, beta))
        return max(1.0, min(size, full * (size / self.count) ** beta))


@attrs.frozen
class PropertyStatistics:
    """One property of one label's edges in the sample (specs/semantics.md §1): on how many
    edges it is present, how many of those values are numbers (their least and greatest) and
    strings, and how many distinct values there are."""

    present: int
    numbers: int = 0
    minimum: float | None = None
    maximum: float | None = None
    strings: int = 0
    distinct: int = 0

    def selectivity(self, count: int, op: str, value) -> float:
        """The share of `count` edges a WSCAN test `op value` keeps (System R's: uniform
        values between the least and the greatest, equality one distinct value's share)."""
        if count <= 0 or self.present <= 0:
            return DEFAULT_SELECTIVITY.get(op, 1.0)
        share = self.present / count
        if op == "has":
            return share
        distinct = max(1, self.distinct)
        if op in ("=", "!="):
            hit = 1.0 / distinct
            return share * max(0.01, hit if op == "=" else 1.0 - hit)  # (nothing costs zero)
        if isinstance(value, str) or not self.numbers or self.minimum is None:
            return share * 0.01  # (strings are not ordered: nothing passes)
        share *= self.numbers / self.present
        low, high = self.minimum, self.maximum
        if high <= low:
            below = 1.0 if value > low else 0.0 if value < low else 0.5
        else:
            below = min(1.0, max(0.0, (value - low) / (high - low)))
        return share * max(0.01, below if op in ("<", "<=") else 1.0 - below)


#: a WSCAN test's share of its label's edges when no statistics say better
DEFAULT_SELECTIVITY = {
    "has": 0.9,
    "=": 0.1,
    "!=": 0.9,
    "<": 1 / 3,
    "<=": 1 / 3,
    ">": 1 / 3,
    ">=": 1 / 3,
}


@attrs.frozen
class StreamStatistics:
    """A sample of `edges` edges over `span` time units (last ts - first ts + 1); with
    `properties`, per label and property name its figures."""

    edges: int
    span: int
    labels: dict[str, LabelStatistics] = attrs.field(factory=dict)
    properties: dict[str, dict[str, PropertyStatistics]] = attrs.field(factory=dict)

    def selectivity(self, label: str, key: str, op: str, value) -> float:
        """The share of `label`'s edges that pass the test `key op value` (§4c)."""
        figures = self.properties.get(label, {}).get(key)
        stats = self.labels.get(label)
        if figures is None or stats is None:
            return DEFAULT_SELECTIVITY.get(op, 1.0)
        return figures.selectivity(stats.count, op, value)

    def rate(self, label: str) -> float:
        """Tuples of `label` per time unit (the thesis's r); a label the sample lacks gets one
        tuple per sample span, so that nothing costs zero."""
        stats = self.labels.get(label)
        count = stats.count if stats is not None and stats.count else 1
        return count / max(1, self.span)

    def as_dict(self) -> dict:
        return {
            "format": FORMAT,
            "edges": self.edges,
            "span": self.span,
            "labels": {name: attrs.asdict(s) for name, s in sorted(self.labels.items())},
            **(
                {
                    "properties": {
                        label: {key: attrs.asdict(p) for key, p in sorted(keys.items())}
                        for label, keys in sorted(self.properties.items())
                    }
                }
                if self.properties
                else {}
            ),
        }

    def dumps(self) -> str:
        return json.dumps(self.as_dict(), indent=2) + "\n"


def loads(text: str, source: str = "statistics") -> StreamStatistics:
    """Statistics written by `StreamStatistics.dumps`; ValueError naming `source` otherwise."""
    try:
        data = json.loads(text)
        if data.get("format") != FORMAT:
            raise ValueError(f"not an {FORMAT} file")
        labels = {name: LabelStatistics(**fields) for name, fields in data["labels"].items()}
        properties = {
            label: {key: PropertyStatistics(**fields) for key, fields in keys.items()}
            for label, keys in data.get("properties", {}).items()
        }
        return StreamStatistics(int(data["edges"]), int(data["span"]), labels, properties)
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        raise ValueError(f"{source}: not a statistics file written by sgq stats ({exc})") from None


_OP = itemgetter(4)  # an edge's op


def collect(edges: Iterable[tuple], limit: int | None = None) -> StreamStatistics:
    """The statistics of the first `limit` insertions of `edges` (all when None; `-` edges
    are skipped). The edges are taken a slice at a time and the figures a column at a time:
    loops in C, but for the property values of edges that have some."""
    rows: list = []
    more = iter(edges)
    while limit is None or len(rows) < limit:
        piece = list(more if limit is None else islice(more, limit - len(rows)))
        if not piece:
            break
        if min(map(len, piece)) < 5 or "-" in map(_OP, piece):
            piece = [edge for edge in piece if len(edge) < 5 or edge[4] != "-"]
        rows += piece
    values: dict[str, dict[str, list]] = {}  # label -> property -> its values
    for edge in rows if rows and max(map(len, rows)) > 5 else ():
        if len(edge) > 5 and edge[5]:
            keys = values.setdefault(edge[2], {})
            for key, value in edge[5].items():
                keys.setdefault(key, []).append(value)
    src, trg, label, ts = list(zip(*rows))[:4] if rows else ((), (), (), ())
    times = list(map(int, ts))
    return StreamStatistics(
        len(rows),
        max(times) - min(times) + 1 if rows else 1,  # a file may hold edges a little late
        _label_statistics(src, trg, label, len(rows) // 2),
        {
            label: {key: _property_statistics(vs) for key, vs in keys.items()}
            for label, keys in values.items()
        },
    )


def _property_statistics(values: list) -> PropertyStatistics:
    """The figures of one property's values in the sample."""
    numbers = [v for v in values if not isinstance(v, str)]
    return PropertyStatistics(
        len(values),
        len(numbers),
        min(numbers) if numbers else None,
        max(numbers) if numbers else None,
        len(values) - len(numbers),
        len(set(values)),
    )


def _label_statistics(
    src: Sequence, trg: Sequence, label: Sequence, half: int
) -> dict[str, LabelStatistics]:
    """Per label (in order of first appearance): count and distinct src/trg over the sample's
    columns and over their first `half` rows. A pass in C per label and column (a sample
    has few labels)."""
    out = {}
    for name in dict.fromkeys(label):
        mine = list(map(eq, label, repeat(name)))
        out[name] = LabelStatistics(
            mine.count(True),
            len(set(compress(src, mine))),
            len(set(compress(trg, mine))),
            mine[:half].count(True),
            len(set(compress(src[:half], mine))),
            len(set(compress(trg[:half], mine))),
        )
    return out
