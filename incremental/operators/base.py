"""What every physical operator offers the runtime (incremental/runtime.py).

Operators never schedule themselves: the runtime calls `process(batches, now)` with one list
of sgts per input port (None when that port got nothing) and forwards the returned list to the
consumers; after it, when some port got end records (incremental/sgt.py), `retract(batches,
now)` gets them the same way and returns the operator's own end records. `retract` works from
the shared input indexes, which already hold the round's final state, so a round's sgts are
handled before its end records and what `retract` finds is exact. `purge(now)` drops expired
state; `settle(frontier)` hears that no input before `frontier` will come; `size()` reports state entries; `_check()` asserts the state's invariants (tests only).
"""

from __future__ import annotations

from ..state.coalescer import Coalescer


class PhysicalOperator:
    __slots__ = ("node",)

    def __init__(self, node) -> None:
        self.node = node

    def process(self, batches: list, now: int) -> list:  # pragma: no cover - interface
        raise NotImplementedError

    def retract(self, batches: list, now: int) -> list:  # pragma: no cover - interface
        raise NotImplementedError

    def settle(self, frontier) -> None:
        """No input before `frontier` will come (only operators that give native deltas,
        incremental/deltas.py, have anything to do then)."""

    def purge(self, now: int) -> None:
        pass

    def size(self) -> int:
        return 0

    def _check(self) -> None:
        pass


class CoalescedOperator(PhysicalOperator):
    """An operator whose output is coalesced per key by a Coalescer `out`
    (incremental/state/coalescer.py), which is all its own state: purged, counted and checked
    here (WSCAN, UNION, VERTICES)."""

    __slots__ = ("out",)

    def __init__(self, node) -> None:
        super().__init__(node)
        self.out = Coalescer()

    def purge(self, now: int) -> None:
        self.out.purge(now)

    def size(self) -> int:
        return len(self.out)

    def _check(self) -> None:
        self.out._check()
