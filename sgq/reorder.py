"""Time order of an input stream: reject out-of-order edges, or repair bounded lateness.

specs/semantics.md §1/§7: edges arrive in non-decreasing time. Without a lateness bound an edge
earlier than one already seen is an error. With `max_lateness = D`, edges are held in a
buffer ordered by (time, arrival) and released once no edge allowed later could precede
them: after seeing time `m`, an edge with time `< m - D` is too late (reported, dropped), so
every buffered edge with time `< m - D` is safe to release. Ties keep arrival order. The
buffer holds at most the edges of the last D time units; results stay exact because the
engine only sees time advance when the buffer releases.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Iterable, Iterator

from .incremental.time_order import out_of_order
from .stream_io import Edge, StreamError


def ordered(
    edges: Iterable[Edge],
    filename: str,
    position: list[int],
    max_lateness: int | None = None,
    on_late: Callable[[StreamError, Edge], None] | None = None,
) -> Iterator[Edge]:
    """`edges` in non-decreasing time, or StreamError at the first violation.

    `position[0]` is the current input line (kept by the reader), for messages.
    With `max_lateness`, late edges within the bound are reordered; later ones go to
    `on_late` (or raise, when it is None).
    """
    if max_lateness is None:
        last = -math.inf
        for edge in edges:
            t = edge[3]
            why = out_of_order(t, last)
            if why is not None:
                raise StreamError(
                    filename,
                    position[0],
                    f"{why} (use --max-lateness D to reorder edges up to D late)",
                )
            last = t
            yield edge
        return
    heap: list[tuple[int, int, Edge]] = []
    seq = 0
    high = None
    for edge in edges:
        t = edge[3]
        if high is None or t > high:
            high = t
        elif t < high - max_lateness:
            err = StreamError(
                filename,
                position[0],
                f"time {t} is more than {max_lateness} before time {high} seen before "
                f"(late by {high - t}); dropped",
            )
            if on_late is None:
                raise err
            on_late(err, edge)
            continue
        heapq.heappush(heap, (t, seq, edge))
        seq += 1
        bound = high - max_lateness
        while heap and heap[0][0] < bound:
            yield heapq.heappop(heap)[2]
    while heap:
        yield heapq.heappop(heap)[2]
