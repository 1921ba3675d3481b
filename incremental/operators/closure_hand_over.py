"""The closure PATH's hand-over to S-PATH (operators/path_closure.py): an S-PATH operator for
the same node over the same input indexes, emitting through the Coalescer of what the closure
emitted, and the window it replays.

Contract: `spath_for` builds the operator (native deltas go on where `sink` is given);
`window_at(inputs, now)` is every input index's valid contents at `now`, one batch per port,
for `PathOp.replay`: its trees then hold each node's largest valid exp, and it emits only what
widens the coverage already emitted. Cost: the replay is about one slide of S-PATH's work.
"""

from __future__ import annotations

from .path import PathOp


class _Inputs:
    """A build context for the S-PATH hand-over: the shared indexes of PATH's inputs, and
    the sink and output key of the closure PATH handing over (native deltas go on), and
    whether its rows reach the engine's output only."""

    __slots__ = ("nodes", "indexes", "paths", "sink", "key", "output_only")

    def __init__(
        self, nodes: list, indexes: list, sink, key: tuple[str, bool], output_only: bool
    ) -> None:
        self.nodes = nodes
        self.indexes = indexes
        self.paths = False
        self.sink = sink
        self.key = key
        self.output_only = output_only

    def fan_rows(self, node) -> bool:
        return self.output_only

    def intersection_side(self, node) -> bool:
        return False  # (S-PATH is no PATTERN)

    def index_of(self, node):
        for n, index in zip(self.nodes, self.indexes):
            if n is node:
                return index
        raise KeyError(node)

    def delta_sink(self, node):
        return self.sink

    def output_key(self, node) -> tuple[str, bool]:
        return self.key


def spath_for(node, inputs: list, domain, out, sink, key: tuple, fans: bool) -> PathOp:
    """An empty S-PATH operator for the PATH `node` over its letters' indexes `inputs` (and
    the `domain`'s, or None), emitting through the Coalescer `out`; native deltas into `sink`
    (or None) under the output `key`; `fans`: its rows reach the engine's output only."""
    nodes = list(node.inputs)
    indexes = list(inputs)
    if domain is not None:
        nodes.append(node.domain)
        indexes.append(domain)
    return PathOp(node, _Inputs(nodes, indexes, sink, key, fans), out=out)


def window_at(node, inputs: list, now: int) -> list:
    """The valid contents at `now` of the letters' indexes `inputs`, a batch each (an entry
    after `now`: a span's later one), then none for the domain's port (the ε-pairs are in the
    Coalescer already)."""
    batches: list = [
        [(s, t, e.ts, e.exp, e.wit) for s, t, e in index.entries() if e.exp > now and e.ts <= now]
        for index in inputs
    ]
    if node.domain is not None:
        batches.append(None)
    return batches
