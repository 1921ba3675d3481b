"""The push-based runtime: a Plan becomes a physical dataflow (thesis 5.4).

One table, `PHYSICAL`, maps each algebra node class to its physical operator (like Soufflé's
interpreter Generator). Every distinct plan node becomes one operator, so a shared node feeds
all its consumers once. A round pushes one batch of input edges (one timestamp `now`) through
the operators in topological order: each operator gets one list per input port and returns one
list, which the runtime appends to the interval-annotated `EdgeIndex` of that node (shared by
every PATTERN / PATH reading it) and hands to the consumers. Operators never schedule
themselves; the runtime owns time and purges expired state lazily, once per slide.

Batching gives the same output snapshots as one-tuple-at-a-time: every operator is monotone in
its inputs' intervals and coalesces its output, and a batch's deltas are in the shared indexes
before any consumer probes them (so each new combination is found at least once).

Explicit deletions travel as end records (incremental/sgt.py) on a second channel, allocated
only in a round that has some: a label whose batch holds `-` edges goes to its WSCAN's `scan`,
which returns sgts and end records; the runtime cuts the producer's index, then hands the end
records to the consumers' `retract`, called after their `process` of the same round. Since
each operator's `retract` re-derives from the indexes (the round's final state), a round with
deletions ends in the same state whichever order its edges were batched in.
"""

from __future__ import annotations

from ..base.options import PlanOptions
from ..sga.algebra import (
    Attribute,
    BoundPath,
    Filter,
    Op,
    Path,
    Pattern,
    Plan,
    Rename,
    Union,
    Vertices,
    WScan,
    children,
    op_kind,
    properties_read,
)
from .deltas import DeltaView
from .operators.attribute import AttributeOp
from .operators.bound_path import BoundPathOp
from .operators.closure_deltas import ClosureDeltas
from .operators.filter import FilterOp
from .operators.intersect import IntersectOp
from .operators.path import PathOp
from .operators.path_closure import PathClosureOp
from .operators.pattern import PatternOp, guard_of
from .operators.property_scan import PropertyScanOp
from .operators.rename import RenameOp
from .operators.sideways import SidewaysMask
from .operators.simple_path import SimplePathOp
from .operators.timed_pattern import TimedPatternOp
from .operators.union import UnionOp
from .operators.union_wscan import UnionWScanOp
from .operators.vertices import VerticesOp
from .operators.wscan import WScanOp
from .state.edge_index import EdgeIndex
from .stateful import StateError, restore_into, state_of


def choose_path_operator(node, ctx):
    """PATH's physical operator: per-level closures (operators/path_closure.py), or S-PATH
    (operators/path.py) for witness paths or when `ctx.options.path_operator` is `"spath"`;
    a simple PATH that may conflict runs the simple-path search (operators/simple_path.py)."""
    if node.simple and not node.conflict_free:
        return SimplePathOp(node, ctx)
    if ctx.paths or ctx.options.path_operator == "spath":
        return PathOp(node, ctx)
    return PathClosureOp(node, ctx)


def choose_pattern_operator(node, ctx):
    """PATTERN's physical operator: the intersection of its inputs' delta streams (operators/
    intersect.py) where the runtime found one (`intersections`), the timed join (operators/
    timed_pattern.py) when the node has time conditions (specs/semantics.md §4b), else the hash
    join (operators/pattern.py)."""
    sides = ctx.intersection(node)
    if sides is not None:
        return IntersectOp(node, ctx, *sides)
    if node.time_conditions:
        return TimedPatternOp(node, ctx)
    return PatternOp(node, ctx)


def choose_wscan_operator(node, ctx):
    """WSCAN's physical operator: over one label (operators/wscan.py), or over several, with
    each label's coverage kept apart (operators/union_wscan.py, thesis rule 13); over edges
    with properties (operators/property_scan.py) when the input carries them or the scan
    tests them (specs/semantics.md §4c)."""
    if ctx.properties or node.source:
        return PropertyScanOp(node, ctx)
    if node.labels:
        return UnionWScanOp(node, ctx)
    return WScanOp(node, ctx)


PHYSICAL: dict[type, type] = {
    WScan: choose_wscan_operator,
    Attribute: AttributeOp,
    Filter: FilterOp,
    Rename: RenameOp,
    Union: UnionOp,
    Pattern: choose_pattern_operator,
    Vertices: VerticesOp,
    Path: choose_path_operator,
    BoundPath: BoundPathOp,
}


#: the operators that may read a PATTERN's rows in a span (`Dataflow._rows_only_operators_read`)
_ROW_READERS = (PatternOp, PathClosureOp, PathOp)


def _deliver(pending: list, consumers: list, nports: list, out: list) -> None:
    """Append `out` to the input port of every consumer (one list per port and round)."""
    for j, port in consumers:
        target = pending[j]
        if target is None:
            target = pending[j] = [None] * nports[j]
        if target[port] is None:
            target[port] = out
        else:
            target[port] = target[port] + out


def _native_outputs(plan: Plan, nodes: list) -> dict:
    """`{node: (output label, reversed)}` for the nodes whose results may go straight to the
    output as deltas: an output no operator reads, or the input of such an output's RENAME
    when only that RENAME reads it."""
    readers = _readers(nodes)
    outputs = set(plan.outputs)
    out = {}
    for root in plan.outputs:
        if root in readers:
            continue
        out[root] = (root.label, False)
        if (
            isinstance(root, Rename)
            and readers.get(root.input) == [root]
            and root.input not in outputs
        ):
            out[root.input] = (root.label, root.reverse)
    return out


def intersections(plan: Plan, nodes: list, direct: dict) -> dict:
    """`{pattern: (reversed, reversed)}` for each PATTERN that may run as the intersection of
    its inputs' delta streams (operators/intersect.py): a native output (`direct`) joining two
    inputs on both of its head's variables, with no condition, whose inputs are PATHs or
    PATTERNs (no time conditions, no simple path) that only it reads and no output is;
    `reversed` for an input whose variables are the output key's swapped."""
    readers = _readers(nodes)
    outputs = set(plan.outputs)
    found = {}
    for node, (_label, reverse) in direct.items():
        if type(node) is not Pattern or len(node.inputs) != 2 or node.conditions:
            continue
        if node.fixed() or any(node.times) or node.head[0] == node.head[1]:
            continue
        head = node.head
        if any(set(binding) != set(head) for binding in node.bindings):
            continue
        first, second = node.inputs
        if first == second or not all(_native_producer(inp) for inp in node.inputs):
            continue
        if any(readers.get(inp) != [node] or inp in outputs for inp in node.inputs):
            continue
        found[node] = tuple((binding != head) != reverse for binding in node.bindings)
    return found


def _readers(nodes: list) -> dict:
    """`{node: [the nodes that read it, ...]}`."""
    readers: dict = {}
    for node in nodes:
        for child in children(node):
            readers.setdefault(child, []).append(node)
    return readers


def _delta_dataflow(plan: Plan, options: PlanOptions) -> Dataflow:
    """The operators of an engine in delta mode under `options`, given no input (what
    `sgq explain` reports of the physical choices)."""
    return Dataflow(plan, sink=DeltaView(), options=options, properties=bool(properties_read(plan)))


def sideways_intersections(plan: Plan, options: PlanOptions) -> list[tuple[str, str]]:
    """`(output label, closure)` of the intersections whose closure side names only the
    pairs its partner holds (`Dataflow._sideways`, operators/sideways.py), in an engine in
    delta mode under `options` (`sgq explain` names them). Builds that engine's operators
    (no input): what applies depends on the physical operators chosen."""
    flow = _delta_dataflow(plan, options)
    found = []
    for op in flow.ops:
        mask = getattr(op, "mask", None)
        if type(op) is IntersectOp and mask is not None:
            closure = next(o for o in flow.ops if getattr(o, "mode", None) is mask.closure)
            found.append((op.label, closure.node.label))
    return sorted(found)


def functional_joins(plan: Plan, options: PlanOptions) -> list[str]:
    """The output labels of the PATTERNs that start as functional joins (their keys read off
    their two inputs' entries while one of them has one join vertex per vertex:
    operators/functional_join.py), in an engine in delta mode under `options` (`sgq explain`
    names them). Builds that engine's operators (no input)."""
    flow = _delta_dataflow(plan, options)
    return sorted(
        {op.node.label for op in flow.ops if type(op) is PatternOp and op.functional is not None}
    )


def exact_end_joins(plan: Plan, options: PlanOptions) -> list[str]:
    """The output labels of the keyed PATTERNs with native keys that join renewed tuples too,
    their ends exact, until renewals pass `Tuning.renewed_share` (operators/pattern.py
    `_watch_renewals`; after a functional join, once it ends), in an engine in delta mode
    under `options` (`sgq explain` names them). Builds that engine's operators (no input)."""
    if not options.tuning.renewed_share:
        return []
    flow = _delta_dataflow(plan, options)
    return sorted(
        {
            op.node.label
            for op in flow.ops
            if type(op) is PatternOp
            and (op.watching or op.functional is not None and op.native is not None)
        }
    )


def delta_intersections(plan: Plan) -> list[str]:
    """The output labels of the PATTERNs an engine in delta mode runs as intersections of
    their inputs' delta streams (`intersections`; `sgq explain` names them)."""
    nodes = list(plan.nodes())
    direct = _native_outputs(plan, nodes)
    return sorted({direct[node][0] for node in intersections(plan, nodes, direct)})


def pattern_guards(plan: Plan, intersecting: bool = True) -> list[tuple[str, str]]:
    """`(output label, atom)` of each PATTERN an engine in delta mode runs keyed as a native
    output, not as an intersection, with an atom on both of its head's variables, its
    *guard*: a span's entering keys may be found from that atom's entries
    (operators/pattern.py `_guarded_keys`; `sgq explain` names them). `intersecting`:
    whether PATTERNs run as intersections where they may (`Tuning.intersections`)."""
    nodes = list(plan.nodes())
    direct = _native_outputs(plan, nodes)
    intersected = intersections(plan, nodes, direct) if intersecting else {}
    found = []
    for node, (label, _reverse) in direct.items():
        if type(node) is not Pattern or node in intersected or any(node.times):
            continue
        guard = guard_of(node.bindings, node.head)
        if guard is not None:
            j, _forward = guard
            (a, b), atom = node.bindings[j], node.inputs[j]
            found.append((label, f"{atom.label}({a}, {b})"))
    return sorted(found)


def _native_producer(node: Op) -> bool:
    """Whether `node` gives native deltas when offered a sink: a PATH (not a simple one that
    may conflict), a PATTERN without time conditions."""
    if type(node) is Path:
        return not (node.simple and not node.conflict_free)
    return type(node) is Pattern and not node.time_conditions


def _renamed(node: Op) -> Op:
    """The node under an output RENAME (a PATH writes its results under the RENAME's key)."""
    return node.input if isinstance(node, Rename) else node


def _reads(node) -> str:
    """What an operator's name shows in brackets: its label, and a WSCAN's labels read."""
    if isinstance(node, WScan) and node.labels:
        return f"{', '.join(node.labels)} -> {node.label}"
    return node.label


class _Context:
    """What an operator may ask the runtime for while it is built: `paths` (witness paths
    wanted), `options` (the user's physical choices, base/options.py), the shared indexes."""

    __slots__ = (
        "paths",
        "options",
        "properties",
        "_indexes",
        "_ids",
        "_sink",
        "_sinks",
        "_direct",
        "_outputs",
        "_intersections",
        "_sides",
    )

    def __init__(
        self,
        paths: bool,
        ids: dict,
        sink=None,
        direct: dict | None = None,
        options: PlanOptions = PlanOptions(),
        outputs: frozenset = frozenset(),
        properties: bool = False,
        found: dict | None = None,
    ) -> None:
        """`found`: the PATTERNs that run as intersections (`intersections`)."""
        self.paths = paths
        self.properties = properties  # raw edges carry properties (specs/semantics.md §1)
        self._outputs = outputs
        self.options = options
        self._indexes: dict[int, EdgeIndex] = {}
        self._ids = ids
        self._sink = sink
        self._direct = direct or {}  # `_native_outputs`
        self._sinks = self._direct if sink is not None else {}
        self._intersections = found or {}
        # an intersection's input -> (its side: a DeltaView of its own, its key: the output's
        # label, reversed?)
        self._sides = {
            inp: (DeltaView(), (self._direct[node][0], reverse))
            for node, reverses in self._intersections.items()
            for inp, reverse in zip(node.inputs, reverses)
        }

    def intersection(self, node) -> tuple | None:
        """`(sides, reversed)` of an intersection PATTERN (`intersections`), else None."""
        reverses = self._intersections.get(node)
        if reverses is None:
            return None
        return tuple(self._sides[inp][0] for inp in node.inputs), reverses

    def intersection_side(self, node) -> bool:
        """Whether `node` is an input of an intersection (it writes to a side)."""
        return node in self._sides

    def fan_rows(self, node) -> bool:
        """Whether `node` may give its interval rows as fans (incremental/fan_rows.py): what
        it emits reaches the engine's output only (`_native_outputs`), where fans are
        read as rows by whoever reads them one by one."""
        return node in self._direct

    def engine_output(self, node) -> bool:
        """Whether `node` is an output of the engine that no operator reads: what it emits,
        and when, concerns the engine's output alone (rows may come between rounds:
        `Dataflow.overdue`)."""
        return node in self._outputs and node in self._direct

    def delta_sink(self, node):
        """The engine's DeltaView when `node` may give its results as native deltas (a delta-
        mode engine, `node` an output, or the input of an output RENAME, that no other
        operator reads), an intersection's side for its inputs, else None."""
        side = self._sides.get(node)
        if side is not None:
            return side[0]
        return self._sink if node in self._sinks else None

    def output_key(self, node) -> tuple[str, bool]:
        """`(label, reversed)`: how `node`'s results appear in the output (through a RENAME
        when `delta_sink` says so; an intersection's input writes its output's keys)."""
        side = self._sides.get(node)
        if side is not None:
            return side[1]
        return self._sinks.get(node, (node.label, False))

    def index_of(self, node) -> EdgeIndex:
        """The shared EdgeIndex of `node`'s output stream."""
        i = self._ids[node]
        index = self._indexes.get(i)
        if index is None:
            index = self._indexes[i] = EdgeIndex()
        return index


class Dataflow:
    """The physical operators of one plan and the wiring between them."""

    STATE_VERSION = 1

    def __init__(
        self,
        plan: Plan,
        paths: bool = False,
        sink=None,
        options: PlanOptions = PlanOptions(),
        properties: bool = False,
    ) -> None:
        """`sink`: a DeltaView that output operators able to give native deltas write to;
        `options`: the physical choices the operators read from their build context;
        `properties`: raw edges are `(src, trg, t, op, properties)`, and every WSCAN keeps
        each edge's identity (operators/property_scan.py)."""
        nodes = list(plan.nodes())
        ids = {node: i for i, node in enumerate(nodes)}
        outputs = frozenset(plan.outputs)
        direct = _native_outputs(plan, nodes)
        found = (
            intersections(plan, nodes, direct)
            if sink is not None and not paths and options.tuning.intersections
            else {}
        )
        ctx = _Context(paths, ids, sink, direct, options, outputs, properties, found)
        self.nodes = nodes
        self.ops = []
        for node in nodes:
            cls = PHYSICAL.get(type(node))
            if cls is None:
                raise TypeError(f"no physical operator for {type(node).__name__}")
            self.ops.append(cls(node, ctx))
        for node in found:  # (`_native_producer` says which inputs give native deltas)
            for inp in node.inputs:
                op = self.ops[ids[inp]]
                if getattr(op, "native", None) is None and getattr(op, "sink", None) is None:
                    raise AssertionError(f"{op_kind(inp)} gives no native deltas to intersect")
        self.indexes: list[EdgeIndex | None] = [ctx._indexes.get(i) for i in range(len(nodes))]
        #: the order operators run in within a round: the plan's, but a closure side that
        #: reports sideways after its partner, which says what it wants (`_sideways`)
        self.order = list(range(len(nodes)))
        self._masks = [self._sideways(node, ids) for node in found if options.tuning.sideways]
        self._masks = [mask for mask in self._masks if mask is not None]
        self._settling = [op for op in self.ops if op.settles()]
        # outputs whose rows carry ends that are lower bounds, widened when they come up
        self.deferring = [i for i, op in enumerate(self.ops) if op.defers_rows()]
        # what changes how it keeps its output before the first round with deletions (its
        # `exact_ends`): native producers that do not admit widenings, or may stop admitting
        # them (a PATTERN watching its renewals), functional joins
        self._rederiving = [
            op
            for op in self.ops
            if getattr(op, "native", None)
            and (op.native.rederive or getattr(op, "watching", False))
            or getattr(op, "functional", None)
        ]
        self._wire(nodes, ids)
        self._find_outputs(plan, ids)
        for i, op in enumerate(self.ops):
            if type(op) is WScanOp and self._reads_by_paths_only(i):
                op.read_coverage_from(self.indexes[i])  # (its coverage is its index's)
        self.slide = min((n.slide for n in nodes if isinstance(n, WScan)), default=1)
        self.names = [f"#{i} {op_kind(n)}[{_reads(n)}]" for i, n in enumerate(nodes)]

    def _sideways(self, node, ids: dict) -> SidewaysMask | None:
        """The intersection `node`'s closure side reports only the pairs its partner holds
        (operators/sideways.py) where one input is a closure PATH giving native deltas and the
        other a PATTERN giving native keys, neither swapped; the closure then runs after the
        PATTERN in each round (`order`). None where it does not apply."""
        first, second = (self.ops[ids[inp]] for inp in node.inputs)
        for closure, partner in ((first, second), (second, first)):
            mode = getattr(closure, "mode", None)
            if (
                type(closure) is PathClosureOp
                and type(mode) is ClosureDeltas
                and closure.spath is None
                and not mode.reverse
                and type(partner) is PatternOp
                and partner.native is not None
                and not partner.native.reverse
            ):
                mask = SidewaysMask()
                mask.closure = mode
                mask.partner = partner.out
                mode.mask = mask
                partner.native.tap = mask
                self.ops[ids[node]].mask = mask
                at = ids[closure.node]
                self.order.remove(at)
                self.order.insert(self.order.index(ids[node]), at)
                return mask
        return None

    def _wire(self, nodes: list, ids: dict) -> None:
        """The edges of the dataflow: each node's consumers `(j, port)`, and the WSCANs each
        input label goes to (`wscans` over one label, `routes` to a port of one over several)."""
        self.nports = [len(children(node)) for node in nodes]
        self.consumers: list[list[tuple[int, int]]] = [[] for _ in nodes]
        for j, node in enumerate(nodes):
            for port, child in enumerate(children(node)):
                self.consumers[ids[child]].append((j, port))
        self.wscans: dict[str, list[int]] = {}  # label -> its one-label WSCANs
        self.routes: dict[str, list[tuple[int, int]]] = {}  # label -> (WSCAN over several, port)
        for i, node in enumerate(nodes):
            if isinstance(node, WScan):
                if node.labels:
                    for port, name in enumerate(node.labels):
                        self.routes.setdefault(name, []).append((i, port))
                else:
                    self.wscans.setdefault(node.reads[0], []).append(i)
        self.reads = frozenset(self.wscans) | frozenset(self.routes)  # the labels read
        self._sources = {i for scans in self.wscans.values() for i in scans}
        self._sources |= {i for routes in self.routes.values() for i, _ in routes}

    def _find_outputs(self, plan: Plan, ids: dict) -> None:
        """The output nodes (each once, in the plan's order), their labels, and whether the
        dataflow takes spans of instants (`spanning`)."""
        self.outputs: list[int] = []
        for root in plan.outputs:
            if ids[root] not in self.outputs:
                self.outputs.append(ids[root])
        self._output_set = set(self.outputs)
        self.output_labels = {i: self.nodes[i].label for i in self.outputs}
        # spans (run_span) only where every output may take them (`_spans_as_output`): its
        # results go to the sink, or its rows to the engine's output, instant after
        # instant (its `spans()` says when), and every operator takes spans from the start
        # or may later (`spans_later`: a PATTERN's functional join that ends): one that
        # does not (a PATH whose rows a PATTERN reads, a PATTERN whose rows an output has)
        # never will, and its instants go one round each without a check per instant
        outputs = [ids[_renamed(self.nodes[i])] for i in self.outputs]
        self.spanning = (
            all(self._spans_as_output(j) for j in outputs)
            and all(op.spans() or op.spans_later() for op in self.ops)
            and all(self._rows_only_operators_read(i) for i in range(len(self.ops)))
        )
        if self.spanning:
            for j in outputs:
                if type(self.ops[j]) is WScanOp:
                    self.ops[j].span_starts_coalesced = True
        #: the operators that take spans only later: until they do, no span is ready
        self._waiting = [op for op in self.ops if op.spans_later()] if self.spanning else []
        # a PATTERN's span never starts at an instant at which tuples expire (`span_ready`)
        self._pattern_spans = any(type(op) is PatternOp for op in self.ops)

    def _spans_as_output(self, j: int) -> bool:
        """Whether node `j`, an output (or under an output RENAME), may take spans: a PATH, a
        PATTERN or an intersection, or a WSCAN that is the only output and that only its
        RENAME reads, whose rows in a span then keep their keys' coalesced starts and their
        time order as one round per instant gives them (`WScanOp.process_span`)."""
        op = self.ops[j]
        if type(op) is WScanOp:
            return len(self.outputs) == 1 and all(
                k in self._output_set and type(self.ops[k]) is RenameOp
                for k, _port in self.consumers[j]
            )
        return isinstance(op, (PathOp, PathClosureOp, PatternOp, IntersectOp))

    def _rows_only_operators_read(self, i: int) -> bool:
        """Whether node `i`, if a PATTERN giving rows, gives them to operators only, PATTERNs
        and PATHs (`_ROW_READERS`), no output: in a span it gives a widening from the span's
        first instant (`PatternOp.process_span`). A reader's index takes it as the widening
        of one round per instant (the entry keeps its start), and a PATH relaxes the
        longer-lived edge from that instant on, where no level ends before the span does:
        the same deltas and coverage. An output would show the widening at another instant
        than one round per instant does."""
        op = self.ops[i]
        if type(op) is not PatternOp or op.native is not None:
            return True
        return i not in self._output_set and all(
            type(self.ops[j]) in _ROW_READERS for j, _port in self.consumers[i]
        )

    def _reads_by_paths_only(self, i: int) -> bool:
        """Whether node `i`'s output is read by PATHs only, through its shared index, and is
        no output of the engine (state/index_coverage.py: then a WSCAN's coverage is the
        index's)."""
        consumers = self.consumers[i]
        return (
            self.indexes[i] is not None
            and i not in self._output_set
            and bool(consumers)
            and all(type(self.ops[j]) in (PathOp, PathClosureOp) for j, _port in consumers)
        )

    def run(
        self, edges_by_label: dict[str, list], now: int, deleting: set | frozenset = frozenset()
    ) -> tuple[dict[int, list], dict[int, list]]:
        """Push one round (raw edges `(src, trg, t, op)` grouped by label, all at `now`;
        `deleting` names the labels whose edges include `-`). Returns the new sgts and the end
        records of each output node that produced some, in emission order (sgts first)."""
        n = len(self.ops)
        if deleting and self._rederiving:
            for op in self._rederiving:
                op.exact_ends(now)
            self._rederiving = []
        if deleting and self._masks:
            for mask in self._masks:
                mask.off(now)  # (rows take over: every pair is named from now on)
            self._masks = []
        pending: list = [None] * n
        cutting: list | None = None  # end records per node and port, once there are any
        for label, edges in edges_by_label.items():
            if label in deleting:
                if cutting is None:
                    cutting = [None] * n
                for i in self.wscans.get(label, ()):
                    cutting[i] = edges
            else:
                for i in self.wscans.get(label, ()):
                    pending[i] = [edges]
        if self.routes:
            cutting = self._route(edges_by_label, deleting, pending, cutting)
        outputs = self._output_set
        produced: dict[int, list] = {}
        ended: dict[int, list] = {}
        ops, indexes, consumers, nports = self.ops, self.indexes, self.consumers, self.nports
        for i in self.order:
            batches = pending[i]
            cuts = None if cutting is None else cutting[i]
            if cuts is None:
                if batches is None:
                    continue
                pending[i] = None
                out = ops[i].process(batches, now)
                cut = None
            else:
                pending[i] = cutting[i] = None
                if i in self._sources:
                    out, cut = ops[i].scan(cuts, now)
                else:
                    out = ops[i].process(batches, now) if batches is not None else None
                    cut = ops[i].retract(cuts, now)
            index = indexes[i]
            if out:
                if index is not None:
                    index.insert_rows(out, now)
                _deliver(pending, consumers[i], nports, out)
                if i in outputs:
                    produced[i] = out
            if cut:
                if index is not None:
                    end = index.cut
                    for s, t, _ts, exp, wit in cut:
                        end(s, t, exp, wit, now)
                _deliver(cutting, consumers[i], nports, cut)
                if i in outputs:
                    ended[i] = cut
        return produced, ended

    def overdue(self, upto: float, final: bool) -> dict[int, list]:
        """The rows of outputs that defer widenings (`Operator.defers_rows`) whose emitted ends
        are at or before `upto` and which go on: `{node: rows}`; `final`: no round at `upto`
        will come. The engine asks when time reaches `t` (`t - 1`, final: before the purge
        at `t` drops entries that may carry a key on, and before the round's inputs are in,
        so every derivation on record started by the key's end; `t` too when told to advance
        there: the snapshot at `t` may be read before input at `t` comes), and at the end of
        input (for ever). A round at a key's end needs no call after it: a tuple whose run
        ended at `now` comes again as a new one (every Coalescer starts a key anew at `now`
        when its coverage ends there), so the round's join finds what carries the key on."""
        got: dict[int, list] = {}
        for i in self.deferring:
            rows = self.ops[i].overdue(upto, final)
            if rows:
                if i not in self._output_set:  # an output RENAME's input (`_native_outputs`)
                    ((j, _port),) = self.consumers[i]
                    i, rows = j, self.ops[j].process([rows], upto)
                got[i] = rows
        return got

    def span_ready(self, first: int) -> bool:
        """Whether every operator takes spans now (`Operator.spans`; a PATH stops when a
        deletion turns its results into rows, so this is asked per span), and a span may
        start at `first`. Where a PATTERN gives native deltas it may not start at an instant
        at which WSCAN tuples expire: a key ending then that a later instant of the span
        derives again must leave and enter again, and the round at that instant alone says so
        (its Coalescer takes a key whose end is the round's instant as going on)."""
        if self._waiting:
            if not self._waiting[0].spans():
                return False
            del self._waiting[0]
            return self.span_ready(first)
        if not (self.spanning and all(op.spans() for op in self.ops)):
            return False
        return not (self._pattern_spans and self._expires_at(first))

    def _expires_at(self, t: int) -> bool:
        """Whether some WSCAN tuple may expire at `t` (`t = ⌊t'/β⌋·β + ω` for some t')."""
        for i in self._sources:
            node = self.nodes[i]
            if (t - node.window) % node.slide == 0:
                return True
        return False

    def span_end(self, first: int) -> int:
        """The first instant after `first` that a span starting at `first` must not reach:
        the next slide bucket (the purge), or the next instant at which some WSCAN tuple
        expires (`⌊t/β⌋·β + ω` for any t), whichever is first. Between them no validity test
        `exp <= now` changes its answer, so the instants of a span may run as one round."""
        end = (first // self.slide + 1) * self.slide
        for i in self._sources:
            node = self.nodes[i]
            window, slide = node.window, node.slide
            expiry = ((first - window) // slide + 1) * slide + window  # the next one > first
            if expiry < end:
                end = expiry
        return end

    def run_span(self, edges_by_label: dict[str, list]) -> dict[int, list]:
        """Push a span: raw `+` edges `(src, trg, t, '+')` grouped by label, each label's in
        time order, their instants all in `[first, span_end(first))`, every operator ready
        (`span_ready`). One round for all of them: each operator's `process_span`, each shared
        index entry inserted at its own instant (Differential Dataflow's batching across
        timestamps). Returns the rows of each output node that gave some, in time order
        (with native deltas there are none: the results went to the sink)."""
        n = len(self.ops)
        pending: list = [None] * n
        for label, edges in edges_by_label.items():
            for i in self.wscans.get(label, ()):
                pending[i] = [edges]
        ops, indexes, consumers, nports = self.ops, self.indexes, self.consumers, self.nports
        outputs = self._output_set
        produced: dict[int, list] = {}
        for i in self.order:
            batches = pending[i]
            if batches is None:
                continue
            pending[i] = None
            out = ops[i].process_span(batches)
            if out:
                index = indexes[i]
                if index is not None:
                    index.insert_rows(out)  # each at its own instant
                _deliver(pending, consumers[i], nports, out)
                if i in outputs:
                    produced[i] = out
        return produced

    def _route(self, edges_by_label: dict, deleting, pending: list, cutting: list | None):
        """Give each WSCAN over several labels one list per label (its ports, None where the
        round has no edge); to `scan` when some of them hold `-` edges. Returns `cutting`."""
        gathered: dict[int, list] = {}
        scanning: set[int] = set()
        for label, edges in edges_by_label.items():
            for i, port in self.routes.get(label, ()):
                ports = gathered.get(i)
                if ports is None:
                    ports = gathered[i] = [None] * len(self.nodes[i].labels)
                ports[port] = edges
                if label in deleting:
                    scanning.add(i)
        for i, ports in gathered.items():
            if i in scanning:
                if cutting is None:
                    cutting = [None] * len(self.ops)
                cutting[i] = ports
            else:
                pending[i] = ports
        return cutting

    def settle(self, frontier) -> None:
        """No input before `frontier` will come: operators that give native deltas make the
        leaving of their results before it final (operators/path_closure.py)."""
        for op in self._settling:
            op.settle(frontier)

    def purge(self, now: int) -> None:
        """Drop every piece of state that expired at or before `now` (in the shared indexes,
        before `now`: state/edge_index.py keeps runs of validity that may go on)."""
        for op in self.ops:
            op.purge(now)
        for index in self.indexes:
            if index is not None:
                index.purge(now - 1)  # an entry ending at `now` may go on (its run's start)

    def state_sizes(self) -> dict[str, int]:
        """State entries per operator (its own state plus its output index, if any)."""
        sizes = {}
        for i, op in enumerate(self.ops):
            size = op.size()
            if self.indexes[i] is not None:
                size += len(self.indexes[i])
            sizes[self.names[i]] = size
        return sizes

    def deletions(self) -> tuple[int, int]:
        """`(matched, unmatched)` `-` edges so far, over the labels the plan reads."""
        matched = unmatched = 0
        for label in self.reads:
            ids = self.wscans.get(label, []) + [i for i, _ in self.routes.get(label, ())]
            # one scan per label, an unfiltered one if any (rule 12's drops no edge)
            op = min((self.ops[i] for i in ids), key=lambda o: bool(o.conditions))
            m, u = op.deletion_counts(label)
            matched += m
            unmatched += u
        return matched, unmatched

    def state(self) -> dict:
        """The checkpoint contract (incremental/stateful.py): each operator's state and
        each shared index's, by plan position (the wiring comes from the plan)."""
        return {
            "operators": [state_of(op) for op in self.ops],
            "indexes": [None if index is None else state_of(index) for index in self.indexes],
        }

    def restore(self, state: dict) -> None:
        ops, indexes = state["operators"], state["indexes"]
        if len(ops) != len(self.ops) or len(indexes) != len(self.indexes):
            raise StateError(f"{len(ops)} operators saved, {len(self.ops)} in this plan")
        for op, saved in zip(self.ops, ops):
            restore_into(op, saved)
        for index, saved in zip(self.indexes, indexes):
            if (index is None) != (saved is None):
                raise StateError("an index saved where this plan has none, or the reverse")
            if index is not None:
                restore_into(index, saved)

    def _check(self) -> None:
        for op in self.ops:
            op._check()
        for index in self.indexes:
            if index is not None:
                index._check()
