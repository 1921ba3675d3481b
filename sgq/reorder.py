"""Time order of an input stream: reject out-of-order edges, or repair bounded lateness.

specs/semantics.md §1/§7: edges arrive in non-decreasing time. Without a lateness bound an edge
earlier than one already seen is an error. With `max_lateness = D`, edges are held in a
buffer ordered by (time, arrival) and released once no edge allowed later could precede
them: after seeing time `m`, an edge with time `< m - D` is too late (reported, dropped), so
every buffered edge with time `< m - D` is safe to release. Ties keep arrival order. The
buffer holds at most the edges of the last D time units; results stay exact because the
engine only sees time advance when the buffer releases.

`ordered` does this for a finished iterable; `Reorder` is the same buffer fed one edge at a
time, for `sgq run --follow`, which also needs to release everything when the stream goes
quiet (`release_all`, its `--idle-flush`) and to save and restore what it holds (checkpoints).

Every reader of a program's input passes here, at a known line, so here too an edge is refused
whose window would end past the int64 maximum (`TimeLimit`, specs/semantics.md §7): its results
could never end. Times only grow, so every edge after it would be refused too: it stops the
input, whatever `--on-error` says.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Iterable, Iterator

from .incremental.sgt import wscan_expiry
from .incremental.time_order import out_of_order
from .sga.algebra import WScan
from .stream_io import INT64_MAX, Edge, StreamError, UnreadableInput

LATENESS_HINT = "use --max-lateness D to reorder edges up to D late"


class TimeLimit:
    """The latest input time a program takes: the last `t` whose window ends within int64
    (`⌊t/β⌋·β + ω <= INT64_MAX`, the program's largest window ω; specs/semantics.md §2, §7).
    `latest`: INT64_MAX for a program without windows (and for `NO_LIMIT`)."""

    __slots__ = ("latest", "window", "slide")

    def __init__(self, window: int = 0, slide: int = 1) -> None:
        self.window, self.slide = window, slide
        top = INT64_MAX - window  # the last bucket start whose window ends within int64
        self.latest = min(INT64_MAX, (top // slide) * slide + slide - 1)

    @classmethod
    def of(cls, plan) -> TimeLimit:
        """The limit of an SGA plan: its WSCANs' largest window (they share one slide)."""
        scans = [(op.window, op.slide) for op in plan.nodes() if type(op) is WScan]
        return cls(*max(scans)) if scans else NO_LIMIT

    @property
    def windowed_slide(self) -> int | None:
        """The slide β of a program with windows (engine batches keep to one slide's times,
        sgq/evaluation.py); None without windows."""
        return self.slide if self.window else None

    def error(self, t: int, filename: str, line: int) -> StreamError:
        """The error of an edge at `t` (after `latest`) on `line` of `filename`."""
        return UnreadableInput(filename, line, self.why(t))

    def why(self, t: int) -> str:
        """What is wrong with an edge at `t`, after `latest`."""
        end = wscan_expiry(t, self.window, self.slide)
        return (
            f"time {t} is after {self.latest}, the last time this program takes: its window "
            f"of {self.window} would end at {end}, past the int64 maximum (its results could "
            "never end)"
        )


NO_LIMIT = TimeLimit()


def ordered(
    edges: Iterable[Edge],
    filename: str,
    position: list[int],
    max_lateness: int | None = None,
    on_late: Callable[[StreamError, Edge], None] | None = None,
    limit: TimeLimit = NO_LIMIT,
) -> Iterator[Edge]:
    """`edges` in non-decreasing time, or StreamError at the first violation.

    `position[0]` is the current input line (kept by the reader), for messages.
    With `max_lateness`, late edges within the bound are reordered; later ones go to
    `on_late` (or raise, when it is None). An edge after `limit.latest` is an error.
    """
    if max_lateness is None:  # the fast path of a finished file: two comparisons per edge
        last = -math.inf
        latest = limit.latest
        for edge in edges:
            t = edge[3]
            if t < last or t > latest:
                if t > latest:
                    raise limit.error(t, filename, position[0])
                why = out_of_order(t, last)
                raise StreamError(filename, position[0], f"{why} ({LATENESS_HINT})")
            last = t
            yield edge
        return
    buffer = Reorder(filename, position, max_lateness, on_late, limit)
    for edge in edges:
        yield from buffer.add(edge)
    yield from buffer.release_all()


def ordered_blocks(
    blocks: Iterable, filename: str, position: list[int], limit: TimeLimit = NO_LIMIT
) -> Iterator[list]:
    """`ordered` without a lateness bound over EdgeBlocks (sgq/edge_blocks.py): each block's
    edges, checked a block at a time (one sort of its times, already in order, in C; its last
    time against `limit`); at the first edge earlier than the one before it or after
    `limit.latest`, the edges before it, then StreamError at its line. `position[0]`: the
    line of the last edge given (or of the bad one)."""
    last = -math.inf
    latest = limit.latest
    for block in blocks:
        times = block.times
        if not times:
            continue
        if times[0] >= last and times[-1] <= latest and times == sorted(times):
            last = times[-1]
            position[0] = block.lines[-1]
            yield block.edges
            continue
        for i, t in enumerate(times):
            if t < last or t > latest:
                position[0] = block.lines[i]
                if i:
                    yield block.edges_before(i)
                if t > latest:
                    raise limit.error(t, filename, position[0])
                why = out_of_order(t, last)
                raise StreamError(filename, position[0], f"{why} ({LATENESS_HINT})")
            last = t


class Reorder:
    """The lateness buffer of `ordered`, fed one edge at a time: `add` returns the edges it
    makes safe to release. Without `max_lateness` it holds nothing and only checks order.

    `floor`: edges before it are late whatever the bound (`release_all` raises it past the
    last time seen: everything up to that time has been handed on)."""

    __slots__ = (
        "filename",
        "position",
        "max_lateness",
        "on_late",
        "limit",
        "heap",
        "seq",
        "high",
        "floor",
    )

    def __init__(
        self,
        filename: str,
        position: list[int],
        max_lateness: int | None = None,
        on_late: Callable[[StreamError, Edge], None] | None = None,
        limit: TimeLimit = NO_LIMIT,
    ) -> None:
        self.filename, self.position = filename, position
        self.max_lateness, self.on_late = max_lateness, on_late
        self.limit = limit
        self.heap: list[tuple[int, int, Edge]] = []
        self.seq = 0
        self.high: int | None = None  # the latest time seen
        self.floor: float = -math.inf

    def add(self, edge: Edge) -> list[Edge]:
        """Take one edge; the edges now safe to hand on, in time order (ties: arrival)."""
        t = edge[3]
        if t > self.limit.latest:
            raise self.limit.error(t, self.filename, self.position[0])
        if t < self.floor:
            return self._late(
                edge, f"time {t} is at or before time {self.floor - 1}, already flushed as complete"
            )
        high, lateness = self.high, self.max_lateness
        if lateness is None:
            if high is not None and t < high:
                why = out_of_order(t, high)
                raise StreamError(self.filename, self.position[0], f"{why} ({LATENESS_HINT})")
            self.high = t
            return [edge]
        if high is None or t > high:
            self.high = high = t
        elif t < high - lateness:
            return self._late(
                edge,
                f"time {t} is more than {lateness} before time {high} seen before "
                f"(late by {high - t})",
            )
        heap = self.heap
        heapq.heappush(heap, (t, self.seq, edge))
        self.seq += 1
        bound = high - lateness
        out = []
        while heap and heap[0][0] < bound:
            out.append(heapq.heappop(heap)[2])
        return out

    def _late(self, edge: Edge, why: str) -> list[Edge]:
        err = StreamError(self.filename, self.position[0], f"{why}; dropped")
        if self.on_late is None:
            raise err
        self.on_late(err, edge)
        return []

    def release_all(self) -> list[Edge]:
        """Every held edge, in order; from now on an edge at or before the latest time seen
        is late (the stream was declared complete up to it)."""
        out = [heapq.heappop(self.heap)[2] for _ in range(len(self.heap))]
        if self.high is not None:
            self.floor = self.high + 1
        return out

    @property
    def safe(self) -> float:
        """No edge handed on later can have a time below this."""
        if self.high is None:
            return self.floor
        bound = self.high if self.max_lateness is None else self.high - self.max_lateness
        return max(bound, self.floor)

    def state(self) -> dict:
        """What a checkpoint keeps: the held edges, in their order, and the times seen."""
        return {
            "held": [list(edge) for _, _, edge in sorted(self.heap)],
            "high": self.high,
            "floor": None if self.floor == -math.inf else self.floor,
        }

    def restore(self, state: dict) -> None:
        """Take back what `state` saved (into a fresh buffer)."""
        self.heap = [(e[3], i, tuple(e)) for i, e in enumerate(state["held"])]
        self.seq = len(self.heap)
        self.high = state["high"]
        self.floor = -math.inf if state["floor"] is None else state["floor"]
