"""`generate(kind, edges, seed, ...)`: a model's events, timestamped, with deletions mixed in.

A model (`so`, `snb`, `gmark`) yields events: tuples of `(src, trg, label)` that happen at
one instant (a post with its creator and tags). This module gives each line of the stream a
slot of the bursty timeline (`timeline.py`); the edges of one event share the time of their
first slot, so times never decrease and ties are common. With `deletions = r`, a fraction r of
the lines are `-` lines deleting a recent, still present key drawn from a bounded pool
(`deletions.py`). Everything is driven by `random.Random` instances seeded from (kind, seed),
so a seed gives the same stream on every run and platform; memory is bounded (no list of edges).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from random import Random

from ..base.errors import UserError
from . import gmark, snb, so
from .deletions import DeletionPool
from .timeline import timestamps

Edge = tuple[str, str, str, int, str]

# kind -> (events function, labels (None: they depend on options), default days,
#          {option: smallest value})
MODELS: dict[str, tuple[Callable[..., Iterator[tuple]], tuple[str, ...] | None, int, dict]] = {
    "snb": (snb.events, snb.LABELS, 100, {"persons": 1}),
    "so": (so.events, so.LABELS, 100, {"users": 2}),  # one user could not interact with another
    "gmark": (gmark.events, None, 100, {"labels": 1, "vertices": 1}),
}
KINDS = tuple(MODELS)
MAX_DELETIONS = 0.5


def labels_of(kind: str, **opts) -> tuple[str, ...]:
    """The labels a kind can produce (gmark: `l0..l{labels-1}`)."""
    _, labels, _, _ = _model(kind)
    if labels is None:
        labels = tuple(f"l{i}" for i in range(opts.get("labels") or 4))
    return labels


def generate(
    kind: str,
    edges: int,
    seed: int | str,
    days: int | None = None,
    deletions: float = 0.0,
    **opts,
) -> Iterator[Edge]:
    """`edges` lines `(src, trg, label, ts, op)` of a `kind` stream over `days` days.

    `edges` counts every line, `-` lines included; `ts` is in seconds from 0, non-decreasing.
    Options: snb `persons=`, so `users=`, gmark `labels=` (default 4) and `vertices=`.
    Raises UserError on bad arguments (before generating anything).

    >>> rows = list(generate("so", 5, seed=1))
    >>> len(rows), {r[2] for r in rows} <= {"a2q", "c2q", "c2a"}, rows == list(generate("so", 5, 1))
    (5, True, True)
    """
    events, _, default_days, known = _model(kind)
    days = default_days if days is None else days
    if not isinstance(edges, int) or edges < 0:
        raise UserError(f"--edges must be a non-negative integer, not {edges!r}")
    if not isinstance(days, int) or days < 1:
        raise UserError(f"--days must be a positive integer, not {days!r}")
    if not 0.0 <= deletions <= MAX_DELETIONS:
        raise UserError(f"--deletions must be between 0 and {MAX_DELETIONS}, not {deletions!r}")
    for name, value in opts.items():
        if name not in known:
            allowed = ", ".join(known)
            raise UserError(f"'{kind}' has no option '{name}' (it has: {allowed})")
        least = known[name]
        if value is not None and (not isinstance(value, int) or value < least):
            kind_of = "a positive integer" if least == 1 else f"an integer >= {least}"
            raise UserError(f"--{name} must be {kind_of}, not {value!r}")
    opts = {k: v for k, v in opts.items() if v is not None}
    model = events(edges, _rng(kind, seed, "model"), **opts)
    times = timestamps(edges, days, _rng(kind, seed, "time"))
    if deletions:
        return _with_deletions(model, times, edges, deletions, _rng(kind, seed, "del"))
    return _inserts(model, times, edges)


def gmark_schema(
    edges: int,
    seed: int | str,
    labels: int = 4,
    vertices: int | None = None,
) -> gmark.Schema:
    """The schema `generate("gmark", edges, seed, labels=, vertices=)` draws."""
    n = vertices if vertices is not None else gmark.default_vertices(edges)
    return gmark.make_schema(_rng("gmark", seed, "model"), labels, n)


def _rng(kind: str, seed: int | str, part: str) -> Random:
    """One independent, reproducible random stream per (kind, seed, part)."""
    return Random(f"sgq-gen/{kind}/{seed}/{part}")


def _model(kind: str):
    try:
        return MODELS[kind]
    except KeyError:
        raise UserError(f"unknown stream kind '{kind}' (use {', '.join(KINDS)})") from None


def _inserts(model: Iterator[tuple], times: Iterator[int], edges: int) -> Iterator[Edge]:
    left = edges
    if not left:
        return
    next_t = times.__next__
    for event in model:
        t0 = next_t()
        k = len(event)
        if k > 1:
            if k > left:
                event, k = event[:left], left
            for _ in range(k - 1):
                next_t()  # the event's later edges use up their slots at its first time
        for src, trg, label in event:
            yield (src, trg, label, t0, "+")
        left -= k
        if not left:
            return


def _with_deletions(
    model: Iterator[tuple],
    times: Iterator[int],
    edges: int,
    ratio: float,
    rnd: Random,
) -> Iterator[Edge]:
    left = edges
    if not left:
        return
    next_t = times.__next__
    random = rnd.random
    pool = DeletionPool(random)
    add, take = pool.add, pool.take
    sizes, count = 1, 1  # running mean event size (prior: 1)
    for event in model:
        # Deletions before this event: geometric with q/(1-q) = r*m/(1-r) per event of mean
        # size m, so that a fraction r of all lines are deletions.
        m = sizes / count
        q = ratio * m / (1.0 - ratio + ratio * m)
        t0 = None
        while random() < q:
            t = next_t()
            key = take(t)
            if key is None:  # nothing deletable yet: the slot goes to the event
                t0 = t
                break
            yield (key[0], key[1], key[2], t, "-")
            left -= 1
            if not left:
                return
        if t0 is None:
            t0 = next_t()
        first = True
        for key in event:
            if first:
                first = False
            else:
                next_t()
            add(key, t0)
            yield (key[0], key[1], key[2], t0, "+")
            left -= 1
            if not left:
                return
        sizes += len(event)
        count += 1
