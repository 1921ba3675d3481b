"""Per label and property, what `sgq stats` reports of an input's edge properties
(specs/semantics.md §1): how many `+` edges have it, the types of its values, the least and
the greatest number, and how many distinct strings. Exact, in one pass over the edges; memory:
the distinct strings. The cost model reads them to estimate a property test's selectivity
(specs/semantics.md §4c).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

_TYPE_NAMES = {int: "int", float: "float", str: "string"}


class _Figures:
    """One property of one label: `count` edges with it, their value types, the numbers'
    range and the distinct strings."""

    __slots__ = ("count", "types", "low", "high", "strings")

    def __init__(self) -> None:
        self.count = 0
        self.types: set[str] = set()
        self.low = self.high = None
        self.strings: set[str] = set()

    def add(self, value) -> None:
        self.count += 1
        kind = type(value)
        self.types.add(_TYPE_NAMES[kind])
        if kind is str:
            self.strings.add(value)
        elif self.low is None:
            self.low = self.high = value
        elif value < self.low:
            self.low = value
        elif value > self.high:
            self.high = value

    def as_dict(self) -> dict:
        out: dict = {"count": self.count, "types": sorted(self.types)}
        if self.low is not None:
            out["min"], out["max"] = self.low, self.high
        if self.strings:
            out["distinct_strings"] = len(self.strings)
        return out


class PropertyStatistics:
    """The figures of the `+` edges fed to `watch`, the first `limit` of them (all when
    None): the edges `sga.cost.statistics.collect` measures, when both read one stream."""

    def __init__(self, limit: int | None = None) -> None:
        self.limit = limit
        self.seen = 0
        self.labels: dict[str, dict[str, _Figures]] = {}

    def watch(self, edges: Iterable[tuple]) -> Iterator[tuple]:
        """`edges` as they are, each measured on its way. O(properties) per edge."""
        labels = self.labels
        for edge in edges:
            if len(edge) > 5 and edge[4] != "-" and (self.limit is None or self.seen < self.limit):
                figures = labels.setdefault(edge[2], {})
                for name, value in edge[5].items():
                    entry = figures.get(name)
                    if entry is None:
                        entry = figures[name] = _Figures()
                    entry.add(value)
            if len(edge) < 5 or edge[4] != "-":
                self.seen += 1
            yield edge

    def as_dict(self) -> dict:
        """`{label: {property: {count, types, min, max, distinct_strings}}}`, names sorted."""
        return {
            label: {name: figures[name].as_dict() for name in sorted(figures)}
            for label, figures in sorted(self.labels.items())
        }
