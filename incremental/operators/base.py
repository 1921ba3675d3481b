"""What every physical operator offers the runtime (incremental/runtime.py).

Operators never schedule themselves: the runtime calls `process(batches, now)` with one list
of sgts per input port (None when that port got nothing) and forwards the returned list to the
consumers; `purge(now)` drops expired state; `size()` reports state entries; `_check()`
asserts the state's invariants (tests only).
"""

from __future__ import annotations


class PhysicalOperator:
    __slots__ = ("node",)

    def __init__(self, node) -> None:
        self.node = node

    def process(self, batches: list, now: int) -> list:  # pragma: no cover - interface
        raise NotImplementedError

    def purge(self, now: int) -> None:
        pass

    def size(self) -> int:
        return 0

    def _check(self) -> None:
        pass
