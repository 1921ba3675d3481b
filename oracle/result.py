"""What the oracle returns for one case: the output facts at every change point, with the
snapshot and delta views of specs/semantics.md §4-5. Pure Python (no pyspark needed)."""

from __future__ import annotations

import bisect


class OracleResult:
    """`points`: the sorted change points of the stream; `facts`: output predicate -> set of
    `(tau, src, trg)` holding at change point `tau`. Between change points nothing changes."""

    __slots__ = ("points", "facts", "outputs")

    def __init__(self, points, facts, outputs):
        self.points: list[int] = sorted(points)
        self.outputs: tuple[str, ...] = tuple(outputs)
        self.facts: dict[str, set[tuple[int, str, str]]] = {p: set() for p in self.outputs}
        for pred, rows in facts.items():
            self.facts.setdefault(pred, set()).update(rows)

    def snapshots(self) -> dict[int, set[tuple[str, str, str]]]:
        """Change point -> the output snapshot `{(src, trg, label)}` there."""
        out: dict[int, set[tuple[str, str, str]]] = {tau: set() for tau in self.points}
        for pred, rows in self.facts.items():
            for tau, s, t in rows:
                out.setdefault(tau, set()).add((s, t, pred))
        return out

    def snapshot(self, tau: int) -> set[tuple[str, str, str]]:
        """The output snapshot at any time `tau` (that of the last change point ≤ tau)."""
        i = bisect.bisect_right(self.points, tau)
        if i == 0:
            return set()
        point = self.points[i - 1]
        return {(s, t, pred) for pred, rows in self.facts.items() for p, s, t in rows if p == point}

    def delta(self) -> list[tuple[int, str, str, str, str]]:
        """`(time, op, src, trg, label)`: '+' when a fact enters the output snapshot, '-' when
        it leaves; sorted by time, then op ('+' first), then fact."""
        out = []
        previous: set[tuple[str, str, str]] = set()
        snaps = self.snapshots()
        for tau in self.points:
            snap = snaps[tau]
            out.extend((tau, "+", *f) for f in snap - previous)
            out.extend((tau, "-", *f) for f in previous - snap)
            previous = snap
        return sorted(out)

    def __repr__(self) -> str:
        n = sum(len(v) for v in self.facts.values())
        return f"OracleResult(points={len(self.points)}, facts={n})"
