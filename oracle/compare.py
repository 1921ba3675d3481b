"""Engine versus expected snapshots at every change point, and delta debugging of a failing
stream. Shared by `sgq verify` and the property harness.

Timeliness protocol (specs/semantics.md §5): the stream is pushed one input time at a time; before
the inputs of time t are pushed, every change point τ < t is checked with `advance(τ)` then
`snapshot(τ)` — everything with time ≤ τ has been consumed, so the emitted results must already
give the exact output snapshot at τ. After `close()` every change point is checked once more
(a result must never be retracted or extended afterwards).

The engine is reached only through `sgq.api` (imported lazily); the expected side is any
function `tau -> set[(src, trg, label)]` (the Spark oracle or the brute-force reference).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import groupby

#: `(src, trg, label, t, op)`, or with a sixth field: the dict of its present properties
Edge = tuple
Fact = tuple[str, str, str]


class Mismatch:
    """The first disagreement: at `tau`, `missing` facts the engine lacks and `extra` facts it
    should not have; `phase` is "timely" (before later input) or "final" (after close);
    `error` is set when the engine raised instead."""

    __slots__ = ("tau", "missing", "extra", "phase", "error")

    def __init__(self, tau, missing=(), extra=(), phase="timely", error=None):
        self.tau, self.phase, self.error = tau, phase, error
        self.missing, self.extra = set(missing), set(extra)

    def describe(self) -> str:
        if self.error is not None:
            return f"the engine failed: {self.error}"
        lines = [f"at time {self.tau} ({'after close' if self.phase == 'final' else 'timely'}):"]
        for fact in sorted(self.missing):
            lines.append(f"  missing {fact[2]}({fact[0]}, {fact[1]})")
        for fact in sorted(self.extra):
            lines.append(f"  extra   {fact[2]}({fact[0]}, {fact[1]})")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"Mismatch({self.describe()!r})"


def check_engine(
    make_engine: Callable[[], object],
    edges: Sequence[Edge],
    points: Sequence[int],
    expected: Callable[[int], set],
) -> tuple[Mismatch | None, int]:
    """Run a fresh engine on `edges`; compare its snapshot with `expected(tau)` at every change
    point, timely and after close. Returns (first mismatch or None, number of checks)."""
    points = sorted(set(points))
    checks = 0
    try:
        eng = make_engine()
        j = 0

        def check_until(limit) -> Mismatch | None:
            nonlocal j, checks
            while j < len(points) and (limit is None or points[j] < limit):
                tau = points[j]
                eng.advance(tau)
                got, want = eng.snapshot(tau), expected(tau)
                checks += 1
                if got != want:
                    return Mismatch(tau, want - got, got - want, "timely")
                j += 1
            return None

        for t, group in groupby(edges, key=lambda e: int(e[3])):
            bad = check_until(t)
            if bad:
                return bad, checks
            for edge in group:
                # the properties only when there are some (specs/semantics.md §1)
                eng.push(*edge) if len(edge) > 5 and edge[5] else eng.push(*edge[:5])
            eng.flush()
        bad = check_until(None)
        if bad:
            return bad, checks
        eng.close()
        for tau in points:
            got, want = eng.snapshot(tau), expected(tau)
            checks += 1
            if got != want:
                return Mismatch(tau, want - got, got - want, "final"), checks
    except Exception as exc:  # an engine crash is a failure to report, with its type
        return Mismatch(None, error=f"{type(exc).__name__}: {exc}"), checks
    return None, checks


def ddmin(
    edges: Sequence[Edge], fails_many: Callable[[list[list[Edge]]], list[bool]]
) -> list[Edge]:
    """Delta debugging (Zeller's ddmin): a 1-minimal sub-stream of `edges` that still fails.

    `fails_many` judges a whole list of candidate streams at once (so each round costs one
    oracle pass). Sub-streams keep input order, hence stay in non-decreasing time.
    """
    current = list(edges)
    n = 2
    while len(current) >= 2:
        size = len(current)
        chunks = [current[i * size // n : (i + 1) * size // n] for i in range(n)]
        subsets = [c for c in chunks if c]
        complements = [
            [e for k, c in enumerate(chunks) if k != i for e in c] for i in range(len(chunks))
        ]
        candidates = subsets + (complements if n > 2 else [])
        verdicts = fails_many(candidates)
        hit = next((c for c, bad in zip(candidates, verdicts) if bad), None)
        if hit is not None:
            n = 2 if hit in subsets else max(n - 1, 2)
            current = hit
            continue
        if n >= len(current):
            break
        n = min(len(current), 2 * n)
    if len(current) == 1 and fails_many([[]])[0]:
        return []
    return current
