"""WSCAN over edges that carry properties (specs/semantics.md §1, §4c; thesis Def 30).

An edge's properties are part of its tuple: each *identity*, the edge's label and property
values, has its own validity `[t, ⌊t/β⌋·β + ω)` (re-inserted: widened), and a `-` edge ends
the valid identities of its `(src, trg)` and label whose properties equal every one it gives
(all of them when it gives none). The output key is `(src, trg)`, or with `carries` the
reified edge `(src, e)`, `e = (src, trg, values of the carried keys)`; a key's coverage is
the union of its identities' validities, so a deletion that ends one identity shortens the
key only to the latest end of those left (an end record, incremental/sgt.py), and ends it
only when none is left. Edges that fail the tests (`properties`, `conditions`) never reach
the window; a `-` edge is tested on its endpoints only, since the properties it gives may be
a part of its tuple's.

Used for every WSCAN of an engine given its input's properties (incremental/engine.py),
tests or not: the identities are what keeps deletions exact. (`sgq run` gives them only where
a rule reads one or a `-` edge can come: sgq/evaluation.py `properties_kept`.) Cost per edge:
O(#tests + #properties log #properties); per `-` edge O(#identities of its `(src, trg)`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...base.property_values import holds
from ..sgt import wscan_expiry
from ..state.expiry import ExpiryBuckets
from .base import BuildContext, CoalescedOperator
from .filter import compile_conditions, passes

if TYPE_CHECKING:
    from ...sga.algebra import Op


class PropertyScanOp(CoalescedOperator):
    __slots__ = (
        "ports",
        "window",
        "slide",
        "paths",
        "tests",
        "filters",
        "conditions",
        "carries",
        "edges",
        "ends",
        "deleted",
        "unmatched",
    )

    STATE_VERSION = 1

    def __init__(self, node: Op, ctx: BuildContext) -> None:
        super().__init__(node)
        self.ports = node.reads  # the label of each input port
        self.window = node.window
        self.slide = node.slide
        self.paths = ctx.paths
        self.tests = tuple((t.key, t.op, t.value) for t in node.properties)
        self.filters = compile_conditions(node.conditions)  # on the endpoints
        # (truthy when anything is tested: the runtime counts deletions on an untested scan)
        self.conditions = self.filters + self.tests
        self.carries = node.carries
        self.edges: dict = {}  # (src, trg) -> {(port, properties): until}
        self.ends = ExpiryBuckets()  # until -> (src, trg): identities to forget then
        self.deleted = [0] * len(self.ports)  # per port: '-' edges that matched
        self.unmatched = [0] * len(self.ports)  # per port: '-' edges that matched nothing

    def _passes(self, s, t, props: dict) -> bool:
        for key, op, value in self.tests:
            have = props.get(key)
            if have is None or op != "has" and not holds(op, have, value):
                return False
        if self.carries and any(key not in props for key in self.carries):
            return False
        return not self.filters or passes(self.filters, s, t)

    def _key(self, s, t, items: tuple) -> tuple:
        """The output key of an identity with properties `items` (sorted pairs)."""
        if not self.carries:
            return (s, t)
        props = dict(items)
        return (s, (s, t, tuple(props[key] for key in self.carries)))

    def _record(self, port: int, s, t, props: dict, exp: int) -> tuple:
        """Make the identity of a `+` edge valid until `exp`; its output key."""
        items = tuple(sorted(props.items()))
        pair = (s, t)
        ids = self.edges.get(pair)
        if ids is None:
            ids = self.edges[pair] = {}
        ids[(port, items)] = exp
        self.ends.add(exp, pair)
        return self._key(s, t, items)

    def _sgt(self, key: tuple, ts: int, exp: int, port: int) -> tuple:
        s, trg = key
        if not self.paths:
            return (s, trg, ts, exp, None)
        if self.carries:
            _s, t, _values = trg
        else:
            t = trg
        return (s, trg, ts, exp, ((s, t, self.ports[port]),))

    def process(self, batches: list, now: int) -> list:
        """`batches`: per port the raw `+` edges `(src, trg, t, '+', properties)` at `now`."""
        exp = wscan_expiry(now, self.window, self.slide)
        admit, result = self.out.admit, []
        for port, batch in enumerate(batches):
            for s, t, _time, _op, props in batch or ():
                if not self._passes(s, t, props):
                    continue
                key = self._record(port, s, t, props, exp)
                got = admit(key, now, exp, now)
                if got is not None:
                    g_ts, g_exp = got
                    result.append(self._sgt(key, g_ts, g_exp, port))
        return result

    def scan(self, edges: list, now: int) -> tuple[list, list]:
        """The raw edges at `now`, some `-` (one list, or one per port over several labels):
        `(new sgts, end records)`, each key's net change over the batch."""
        ports = edges if self.node.labels else [edges]
        exp = wscan_expiry(now, self.window, self.slide)
        touched: dict = {}  # output key -> (src, trg), port
        for port, batch in enumerate(ports):
            for s, t, _time, op, props in batch or ():
                if op == "+":
                    if self._passes(s, t, props):
                        touched[self._record(port, s, t, props, exp)] = ((s, t), port)
                elif self.filters and not passes(self.filters, s, t):
                    continue
                elif self._delete(port, s, t, props, now, touched):
                    self.deleted[port] += 1
                else:
                    self.unmatched[port] += 1
        return self._net(touched, now)

    def _delete(self, port: int, s, t, given: dict, now: int, touched: dict) -> bool:
        """End the valid identities of `(s, t)` on `port` whose properties equal `given`;
        whether there was one."""
        ids = self.edges.get((s, t))
        if not ids:
            return False
        gone = [
            (on, items)
            for (on, items), until in ids.items()
            if on == port and until > now and _gives(items, given)
        ]
        for on, items in gone:
            del ids[(on, items)]
            touched[self._key(s, t, items)] = ((s, t), port)
        return bool(gone)

    def _net(self, touched: dict, now: int) -> tuple[list, list]:
        """Each touched key's coverage made the latest end of its valid identities."""
        result, ended = [], []
        for key, (pair, port) in touched.items():
            ids = self.edges.get(pair, {})
            s, t = pair
            best = max(
                (u for (_on, items), u in ids.items() if u > now and self._key(s, t, items) == key),
                default=None,
            )
            cur = self.out.until(key)
            if best is not None and (cur is None or cur <= now or best > cur):
                got = self.out.admit(key, now, best, now)
                if got is not None:
                    g_ts, g_exp = got
                    result.append(self._sgt(key, g_ts, g_exp, port))
            elif cur is not None and cur > now and (best is None or best < cur):
                got = self.out.cut(key, now if best is None else best, now)
                if got is not None:
                    g_ts, g_end = got
                    ended.append((s, key_trg(key), g_ts, g_end, None))
        return result, ended

    def purge(self, now: int) -> None:
        super().purge(now)
        edges = self.edges
        for pair in self.ends.expired(now):
            ids = edges.get(pair)
            if ids is None:
                continue
            for ident in [i for i, until in ids.items() if until <= now]:
                del ids[ident]
            if not ids:
                del edges[pair]

    def deletion_counts(self, label: str) -> tuple[int, int]:
        """`(matched, unmatched)` `-` edges of `label` so far."""
        port = self.ports.index(label)
        return self.deleted[port], self.unmatched[port]

    def size(self) -> int:
        return len(self.out) + sum(len(ids) for ids in self.edges.values())

    def state(self) -> dict:
        return {
            **super().state(),
            "identities": self.edges,
            "ends": self.ends.state(),
            "deleted": self.deleted,
            "unmatched": self.unmatched,
        }

    def restore(self, state: dict) -> None:
        super().restore(state)
        self.edges = state["identities"]
        self.ends.restore(state["ends"])
        self.deleted = list(state["deleted"])
        self.unmatched = list(state["unmatched"])


def key_trg(key: tuple):
    """The trg of an output key `(src, trg)`."""
    _s, trg = key
    return trg


def _gives(items: tuple, given: dict) -> bool:
    """Whether an identity's properties `items` equal every property in `given`."""
    if not given:
        return True
    props = dict(items)
    return all(key in props and props[key] == value for key, value in given.items())
