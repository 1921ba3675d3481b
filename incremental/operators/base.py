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

from collections.abc import Iterator
from itertools import chain
from typing import TYPE_CHECKING, Protocol

from ..state.coalescer import Coalescer
from ..stateful import StateError, restore_into, state_of
from .native_keys import NativeKeys

if TYPE_CHECKING:
    from ...base.options import PlanOptions
    from ...sga.algebra import Op
    from ..deltas import DeltaView
    from ..state.edge_index import EdgeIndex


class BuildContext(Protocol):
    """What an operator may ask the runtime for while it is built (incremental/runtime.py):
    whether witness paths are wanted, the user's physical choices, the shared index of a
    node's output, whether and how the node gives native deltas, and whether its interval rows
    may go out as fans."""

    paths: bool
    options: PlanOptions
    properties: bool  # raw edges carry their properties (operators/property_scan.py)

    def index_of(self, node: Op) -> EdgeIndex: ...

    def delta_sink(self, node: Op) -> DeltaView | None: ...

    def output_key(self, node: Op) -> tuple[str, bool]: ...

    def fan_rows(self, node: Op) -> bool: ...

    def intersection_side(self, node: Op) -> bool: ...


def sgts(batches: list):
    """Every sgt of every port of `batches`, in port order (a port may have None)."""
    return chain.from_iterable(batch for batch in batches if batch)


class PhysicalOperator:
    __slots__ = ("node",)

    #: the version of what `state()` returns (the checkpoint contract, incremental/stateful.py)
    STATE_VERSION = 1

    def __init__(self, node: Op) -> None:
        self.node = node

    def process(self, batches: list, now: int) -> list:  # pragma: no cover - interface
        raise NotImplementedError

    def retract(self, batches: list, now: int) -> list:  # pragma: no cover - interface
        raise NotImplementedError

    def spans(self) -> bool:
        """Whether `process_span` may take a *span*: the sgts of several instants of one
        expiry-free stretch at once, each at its own `ts` (incremental/runtime.py,
        `Dataflow.run_span`). Operators that do not read the instant (FILTER, RENAME) or that
        take each tuple's own (WSCAN, S-PATH with native deltas) say yes."""
        return False

    def spans_later(self) -> bool:
        """Whether `spans` may turn true later in the run (a PATTERN's functional join that
        ends): the runtime then asks `spans` at each span."""
        return False

    def process_span(self, batches: list) -> list:
        """`process` over a span (see `spans`); the instant of each sgt is its `ts`."""
        return self.process(batches, None)

    def settle(self, frontier: float) -> None:
        """No input before `frontier` will come (only operators that give native deltas,
        incremental/deltas.py, have anything to do then)."""

    def settles(self) -> bool:
        """Whether `settle` has anything to do (the runtime calls it only then)."""
        return type(self).settle is not PhysicalOperator.settle

    def defers_rows(self) -> bool:
        """Whether this output's rows may end before its results do, each widened by a row
        from `overdue` when its end comes up (operators/pattern.py)."""
        return False

    def overdue(self, upto: float, final: bool) -> list:
        """The rows that widen emitted ends at or before `upto` (see `defers_rows`); `final`:
        no round at `upto` will come."""
        return []

    def purge(self, now: int) -> None:
        pass

    def size(self) -> int:
        return 0

    def state(self) -> dict:
        """What this operator must keep across a checkpoint (none by default: FILTER and
        RENAME hold nothing between rounds)."""
        return {}

    def restore(self, state: dict) -> None:
        """Load `state()`'s output into this operator, built for the same plan node."""

    def _check(self) -> None:
        pass


class CoalescedOperator(PhysicalOperator):
    """An operator whose output is coalesced per key by a Coalescer `out`
    (incremental/state/coalescer.py), which is all its own state: purged, counted and checked
    here (WSCAN, UNION, VERTICES; PATTERN adds its join plans). An output that no operator
    reads may give native deltas instead of rows (`native`, operators/native_keys.py)."""

    __slots__ = ("out", "native")

    STATE_VERSION = 2  # the output's coverage, and whether its keys go out as native deltas

    def __init__(self, node: Op) -> None:
        super().__init__(node)
        self.out = Coalescer()
        self.native: NativeKeys | None = None

    def _native_output(self, node: Op, ctx: BuildContext) -> None:
        """Give native deltas when the runtime offers a sink for `node` (witness paths need
        rows)."""
        sink = None if ctx.paths else ctx.delta_sink(node)
        if sink is not None:
            label, reverse = ctx.output_key(node)
            self.native = NativeKeys(self.out, sink, label, reverse)

    def purge(self, now: int) -> None:
        if self.native is not None:
            self.native.settle(now)  # a key ending at `now` may still go on in this round
        else:
            self.out.purge(now)

    def settle(self, frontier: float) -> None:
        if self.native is not None:
            self.native.settle(frontier)

    def exact_ends(self, now: int) -> None:
        """Before a round at `now` with deletions (operators/native_keys.py `exact_ends`)."""
        if self.native is not None:
            self.native.exact_ends(now)

    def settles(self) -> bool:
        return self.native is not None

    def size(self) -> int:
        return len(self.out)

    def state(self) -> dict:
        return {"output": state_of(self.out), "native": self.native is not None}

    def restore(self, state: dict) -> None:
        restore_into(self.out, state["output"])
        if state["native"] and self.native is None:
            raise StateError("native deltas saved for an operator that gives rows in this engine")
        if not state["native"]:
            self.native = None

    def _check(self) -> None:
        self.out._check()


class IndexedInputsOperator(CoalescedOperator):
    """A coalesced operator whose `retract` re-reads what its inputs still hold in their
    shared indexes (`inputs`), and which passes witnesses on when `paths` (UNION, VERTICES)."""

    __slots__ = ("inputs", "paths")

    def __init__(self, node: Op, ctx: BuildContext) -> None:
        super().__init__(node)
        self.inputs = [ctx.index_of(inp) for inp in node.inputs]
        self.paths = ctx.paths


def by_instant(batches: list) -> Iterator[tuple[int, list]]:
    """The sgts of a span's ports (each port's in time order, an sgt's ts its instant: runtime
    `run_span`), per instant in time order: `(instant, batches)`, one batch per port (None
    where the port has none at that instant)."""
    nports = len(batches)
    ports = [port for port, batch in enumerate(batches) if batch]
    if len(ports) == 1:
        (port,) = ports
        tagged = ((port, sgt) for sgt in batches[port])
    else:
        tagged = sorted(((port, sgt) for port in ports for sgt in batches[port]), key=_instant_of)
    current, group = None, None
    for port, sgt in tagged:
        _u, _v, ts, _exp, _wit = sgt
        if ts != current:
            if group is not None:
                yield current, group
            current, group = ts, [None] * nports
        batch = group[port]
        if batch is None:
            group[port] = [sgt]
        else:
            batch.append(sgt)
    if group is not None:
        yield current, group


def _instant_of(tagged: tuple) -> int:
    """The instant of a `(port, sgt)` pair: the sgt's ts."""
    _port, (_u, _v, ts, _exp, _wit) = tagged
    return ts
