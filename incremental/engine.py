"""The engine: edges in, interval results out (specs/semantics.md §1, §5).

Edges are buffered per timestamp and pushed through the dataflow (incremental/runtime.py) as
one batch when a later time shows up, or on `flush` / `advance` / `close` / `push_batch`; the
results of a batch are exact for every instant before the next input time (timeliness).
`push_batch` may run the instants between two expiries as one round (a span, runtime
`run_span`) where the plan's outputs are PATHs giving native deltas: the same deltas, less
work.
Out-of-order input is an error naming both times. Results of the output predicates are kept for
`drain()`, sent to subscribers, and (with `history`) merged per key so `snapshot(τ)` can
answer for any τ.

End records (explicit deletions, specs/semantics.md §2 and §5). A `-` edge at `d` may cut results
already emitted. The engine then emits, at `d`, an end record: an ordinary `Result` (one CSV or
JSONL row `src,trg,label,ts,exp`) for the same key, with `ts` the start of the key's current
interval and the new, smaller `exp` (`d` when nothing derives the key any more, later when
another derivation still does, for as long as it does). Read per key, in emission order, every
row is then one of:

- a *start*: no interval of the key is open at `ts`, so `[ts, exp)` opens one;
- a *widening*: it starts inside (or where) the open interval ends and ends later: the
  interval now ends at `exp`;
- an *end record*: it starts inside the open interval and ends earlier: the interval now ends
  at `exp` (`exp` is never before the row's emission time; an interval cut where it began is
  gone).

A round shows at most one row per key (one that widened a key and cut it again shows only the
final row). With witness paths on, a deletion may also renew a key's witness: a row repeating
the key's interval with the path of a derivation that is still valid. `history`/`snapshot(τ)` and the delta view (incremental/deltas.py)
read rows exactly so; a `-` that matches no valid edge is counted (`stats()["unmatched_deletions"]`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple

from ..base.errors import UserError
from ..base.options import PlanOptions
from ..sga.algebra import Plan, properties_read
from .deltas import DeltaView, csv_plain
from .runtime import Dataflow
from .sgt import FOREVER
from .stateful import StateError, restore_into, state_of
from .time_order import out_of_order


class Result(NamedTuple):
    """One output sgt: `(src, trg, label)` valid on `[ts, exp)`; `path` the witness edges
    `(src, trg, label)` when paths are on."""

    src: str
    trg: str
    label: str
    ts: int
    exp: int
    path: tuple | None = None


class Engine:
    """Incremental evaluation of one plan. `time` is the frontier: every input with a time
    `< time` has been consumed (math.inf after `close`)."""

    STATE_VERSION = 1

    def __init__(
        self,
        plan: Plan,
        *,
        paths: bool = False,
        history: bool = True,
        deltas: bool = False,
        options: PlanOptions = PlanOptions(),
        properties: Sequence[str] | None = None,
    ) -> None:
        """`deltas`: the results are wanted as delta events only (`delta_view()`), so output
        operators that know when their results enter and leave give those events directly
        instead of interval rows (native deltas, incremental/deltas.py); `drain()` then holds
        only the rows of the others, and there is no `history`. `options`: the physical
        choices (`path_operator`), handed to the operators as they are built. `properties`:
        the names of the input's properties (specs/semantics.md §1), when it has some; a
        UserError names any the plan reads and the input lacks. Edges then carry a dict of
        their properties (`push(..., props=)`, or the sixth field of `push_batch`'s)."""
        if deltas and (history or paths):
            raise UserError(
                "an engine with deltas=True gives delta events (delta_view()), "
                "without history or witness paths: use history=False, paths=False"
            )
        needed = properties_read(plan)
        if properties is not None:
            check_properties(needed, properties)
        #: raw edges carry their properties (each WSCAN keeps identities: property_scan.py)
        self.properties = bool(needed or properties)
        self._view = DeltaView() if deltas else None
        self.dataflow = Dataflow(
            plan, paths=paths, sink=self._view, options=options, properties=self.properties
        )
        self.paths = paths
        self.history: dict[tuple, list] | None = {} if history else None
        self.time: float = -math.inf
        self._seen: float = -math.inf
        self._buffer: dict[str, list] = {}
        self._buffer_time: int | None = None
        self._buffered = 0
        self._minus: set[str] = set()  # labels with a '-' edge in the buffer
        # rows not drained, as the output operators gave them: `(label, [(src, trg, ts, exp,
        # path), ...])` segments (no six-field tuple per row unless a caller asks for one)
        self._drained: list[tuple[str, list]] = []
        self._subscribers: list[Callable[[Result], None]] = []
        self._bucket: int | None = None
        self._closed = False
        self.edges_in = 0
        self.results_out = 0
        self.ignored = 0
        self.peak_state = 0
        #: every vertex pushed so far is a string CSV writes as it is (deltas.py `csv_plain`);
        #: results name no other vertex (constants in rules only filter), so a writer need
        #: not check their text (sgq/stream_io.py `write_segments`)
        self.plain_vertices = True

    # ---- input
    def push(self, src, trg, label, t, op: str = "+", props: dict | None = None) -> None:
        """One edge; ids and labels are converted with str(); `props` its properties (read
        when the engine was given `properties`). Buffered until its time is complete (a later
        time, flush, advance, close)."""
        t = self._time(src, trg, label, t, op)
        if self._buffer_time is not None and t > self._buffer_time:
            self._run_buffer()
            self._reach(t)
        self._seen = t
        label = str(label)
        if label not in self.dataflow.reads:  # no rule reads it: only time moves on
            self.edges_in += 1
            self.ignored += 1
            if self._buffer_time is None:
                self._reach(t)
            return
        self._buffer_time = t
        if op != "+":
            self._minus.add(label)
        batch = self._buffer.get(label)
        if batch is None:
            batch = self._buffer[label] = []
        if self.properties:
            batch.append((str(src), str(trg), t, op, props or {}))
        else:
            batch.append((str(src), str(trg), t, op))
        self._buffered += 1

    def count_ignored(self, count: int) -> None:
        """`count` edges of labels no rule reads, left out before they reached the engine
        (a reader that knows `dataflow.reads`): counted as if pushed. Their times need not
        come: an ignored edge moves only time, which the next edge or `close` moves too."""
        self.edges_in += count
        self.ignored += count

    def _time(self, src, trg, label, t, op: str) -> int:
        """The time of an edge pushed now, as an int; a UserError for a closed engine, a
        time that is no integer or goes back, or an unknown op."""
        if self._closed:
            raise UserError("the engine is closed: no more input after close()")
        try:
            t = int(t)
        except (TypeError, ValueError):
            raise UserError(
                f"edge {src} -> {trg} ({label}): time {t!r} is not an integer"
            ) from None
        if op != "+" and op != "-":
            raise UserError(
                f"edge {src} -> {trg} ({label}) at time {t}: unknown op {op!r} (use '+' or '-')"
            )
        if t < self._seen:  # the test inline (once per edge); the message from time_order
            raise UserError(f"edge {src} -> {trg} ({label}): {out_of_order(t, self._seen)}")
        return t

    def push_batch(self, edges: Iterable) -> None:
        """Many edges `(src, trg, label, t[, op])`; each timestamp flows through every operator
        as one batch (or, where the plan takes them, each span of instants: `_push_spans`),
        and everything pushed is processed before this returns."""
        if self.dataflow.spanning:
            self._push_spans(edges)
            return
        push, reads, skipped = self.push, self.dataflow.reads, False
        for edge in edges:
            op = edge[4] if len(edge) > 4 else "+"
            if edge[2] not in reads and isinstance(edge[2], str):
                # no rule reads it: time moves on, the frontier with it at the next round
                self._seen = self._time(edge[0], edge[1], edge[2], edge[3], op)
                self.edges_in += 1
                self.ignored += 1
                skipped = True
                continue
            push(edge[0], edge[1], edge[2], edge[3], op, edge[5] if len(edge) > 5 else None)
        self.flush()
        if skipped:
            self._reach(self._seen)

    def _push_spans(self, edges: Iterable) -> None:
        """`push_batch` by spans: the `+` edges of consecutive instants with no expiry
        between them (runtime `span_end`) run as one round (`run_span`) while the dataflow
        takes spans (`span_ready`: its outputs are PATHs or PATTERNs giving native deltas). A `-` edge,
        and every instant while the dataflow takes no spans (after a deletion turned PATH's
        results into rows), go through `push`, one round per instant as ever. The deltas are the
        same; a span only saves the per-round work of its instants."""
        flow, push, reads = self.dataflow, self.push, self.dataflow.reads
        span: dict[str, list] = {}
        count = first = end = 0
        for edge in edges:
            if len(edge) == 5:
                src, trg, label, t, op = edge
            else:
                src, trg, label, t = edge[0], edge[1], edge[2], edge[3]
                op = edge[4] if len(edge) > 4 else "+"
            if op != "+":
                if count:
                    self._run_span(span, first, count)
                    span, count = {}, 0
                push(src, trg, label, t, op)
                continue
            if type(t) is not int or t < self._seen or self._closed:
                t = self._time(src, trg, label, t, op)  # (raises unless a time to convert)
            if type(label) is not str:
                label = str(label)
            if label not in reads:  # no rule reads it: only time moves on, and the frontier
                # with it before the next round or at the end (one settle, not one per instant)
                self._seen = t
                self.edges_in += 1
                self.ignored += 1
                continue
            if count:
                if t >= end:
                    self._run_span(span, first, count)
                    span, count = {}, 0
            elif self._buffer_time is not None:
                if t == self._buffer_time:  # an instant begun by `push` goes on there
                    push(src, trg, label, t)
                    continue
                self.flush()
            if not count:
                if not flow.span_ready(t):
                    push(src, trg, label, t)
                    continue
                first, end = t, flow.span_end(t)
            self._seen = t
            batch = span.get(label)
            if batch is None:
                batch = span[label] = []
            if type(src) is not str or type(trg) is not str:
                src, trg = str(src), str(trg)
            batch.append((src, trg, t, "+"))
            count += 1
        if count:
            self._run_span(span, first, count)
        else:
            self.flush()
            self._reach(self._seen)

    def _run_span(self, span: dict[str, list], first: int, count: int) -> None:
        """One span of `count` edges from instant `first` on (see `_push_spans`); time then
        reaches the last instant pushed."""
        self.edges_in += count
        self._reach(first)  # as in `_run_buffer`
        self._enter_bucket(first)
        self._note_vertices(span)
        produced = self.dataflow.run_span(span)
        if produced:
            self._emit(produced, {})
        self._reach(self._seen)

    def flush(self) -> None:
        """Process anything buffered (more edges with the same time may still follow)."""
        if self._buffer_time is not None:
            t = self._buffer_time
            self._run_buffer()
            self._reach(t)

    def advance(self, t) -> None:
        """Time is now `t`: no input with a time `< t` will come."""
        t = int(t)
        why = out_of_order(t, self._seen)
        if why is not None:
            raise UserError(f"cannot advance: {why}")
        self.flush()
        self._seen = t
        self._reach(t)
        self._widen(t, False)  # (the snapshot at `t` is asked before any input at `t`)

    def close(self) -> None:
        """End of input: time runs on, every result's expiry is final."""
        if self._closed:
            return
        self.flush()
        self._closed = True
        self.time = math.inf
        self._widen(FOREVER, True)  # time runs on: every deferred widening is due
        self.dataflow.purge(FOREVER)

    # ---- output
    def drain(self) -> list[Result]:
        """Results emitted since the last drain, in emission order."""
        out, self._drained = self._drained, []
        return [
            Result(s, t, label, ts, exp, wit) for label, rows in out for s, t, ts, exp, wit in rows
        ]

    def drain_rows(self) -> list[tuple]:
        """`drain` as plain tuples `(src, trg, label, ts, exp, path)`, for writers and the
        delta view (no Result per row: a million rows cost a second less)."""
        return _flat(self.drain_segments())

    def drain_segments(self) -> list[tuple[str, list]]:
        """`drain` as the output operators gave the rows: `[(label, [(src, trg, ts, exp,
        path), ...]), ...]` in emission order, for writers that put the label in themselves
        (`ResultWriter.write_segments`) and counters: no tuple per row at all."""
        out, self._drained = self._drained, []
        return out

    def subscribe(self, callback: Callable[[Result], None]) -> None:
        """Call `callback(result)` for every result emitted from now on."""
        self._subscribers.append(callback)

    # ---- checkpoints
    def state(self) -> dict:
        """The checkpoint contract (incremental/stateful.py): time, the input buffer, the
        results not yet drained, the history, the counters, the delta view and the dataflow.
        Subscribers are callbacks of the caller, not state: a restored engine has none."""
        return {
            "time": self.time,
            "seen": self._seen,
            "buffer": self._buffer,
            "buffer_time": self._buffer_time,
            "buffered": self._buffered,
            "deleting_labels": self._minus,
            "undrained": _flat(self._drained),
            "history": self.history,
            "bucket": self._bucket,
            "closed": self._closed,
            "counters": {
                "edges_in": self.edges_in,
                "results_out": self.results_out,
                "ignored": self.ignored,
                "peak_state": self.peak_state,
                "plain_vertices": self.plain_vertices,
            },
            "delta_view": None if self._view is None else state_of(self._view),
            "dataflow": state_of(self.dataflow),
        }

    def restore(self, state: dict) -> None:
        """Load `state` into this engine, fresh from the same plan and options."""
        if (state["history"] is None) != (self.history is None):
            raise StateError("saved with history on and loaded without, or the reverse")
        if (state["delta_view"] is None) != (self._view is None):
            raise StateError("saved in delta mode and loaded in interval mode, or the reverse")
        self.time = state["time"]
        self._seen = state["seen"]
        self._buffer = {label: list(edges) for label, edges in state["buffer"].items()}
        self._buffer_time = state["buffer_time"]
        self._buffered = state["buffered"]
        self._minus = set(state["deleting_labels"])
        self._drained = [
            (label, [(s, t, ts, exp, wit)]) for s, t, label, ts, exp, wit in state["undrained"]
        ]
        if self.history is not None:
            self.history = {key: list(ivs) for key, ivs in state["history"].items()}
        self._bucket = state["bucket"]
        self._closed = state["closed"]
        counters = state["counters"]
        self.edges_in = counters["edges_in"]
        self.results_out = counters["results_out"]
        self.ignored = counters["ignored"]
        self.peak_state = counters["peak_state"]
        # (a checkpoint from before the flag: no vertex known plain)
        self.plain_vertices = counters.get("plain_vertices", False)
        if self._view is not None:
            restore_into(self._view, state["delta_view"])
        restore_into(self.dataflow, state["dataflow"])

    def delta_view(self) -> DeltaView:
        """A delta view to feed `drain()` results and `engine.time`: a fresh one, or with
        `deltas=True` the engine's own, which its native producers write to."""
        return self._view if self._view is not None else DeltaView()

    def snapshot(self, tau: int) -> set[tuple[str, str, str]]:
        """The output snapshot at `tau` from every result emitted so far."""
        if self.history is None:
            raise UserError("snapshot() needs the engine's history (engine(history=True))")
        return {key for key, ivs in self.history.items() if any(ts <= tau < exp for ts, exp in ivs)}

    def stats(self) -> dict:
        """Counters and state sizes: edges in, results out (end records included), `-` edges
        that deleted a valid edge and those that matched nothing (of labels the program reads;
        others are ignored edges), state entries per operator (PATH tree nodes, join index
        entries, coalescing entries)."""
        operators = self.dataflow.state_sizes()
        deleted, unmatched = self.dataflow.deletions()
        state = sum(operators.values())
        self.peak_state = max(self.peak_state, state)
        return {
            "edges_in": self.edges_in,
            "results_out": self.results_out,
            "ignored_edges": self.ignored,
            "deletions": deleted,
            "unmatched_deletions": unmatched,
            "state": state,
            "peak_state": self.peak_state,
            "operators": operators,
            "time": self.time,
        }

    # ---- internals
    def _reach(self, t) -> None:
        """The frontier moves to `t` (every input before it consumed)."""
        if t > self.time:
            self.time = t
            if self._view is not None:
                self.dataflow.settle(t)
            self._widen(t - 1, True)  # rows ending before `t` that go on

    def _widen(self, upto: float, final: bool) -> None:
        """Emit the widenings of the deferred rows that end by `upto` (`Dataflow.overdue`)."""
        flow = self.dataflow
        if flow.deferring:
            got = flow.overdue(upto, final)
            if got:
                self._emit(got, {})

    def _enter_bucket(self, now: int) -> None:
        """At the first round of a slide bucket: purge what expired, note the peak state."""
        flow = self.dataflow
        bucket = now // flow.slide
        if bucket != self._bucket:
            flow.purge(now)
            self._bucket = bucket
            state = sum(flow.state_sizes().values())
            if state > self.peak_state:
                self.peak_state = state

    def _note_vertices(self, batches: dict[str, list]) -> None:
        """Keep `plain_vertices` for the edges `(src, trg, t, op)` of a round (one check of
        their joined text per label)."""
        if self.plain_vertices:
            self.plain_vertices = all(
                csv_plain("".join([e[0] + e[1] for e in edges])) for edges in batches.values()
            )

    def _run_buffer(self) -> None:
        now = self._buffer_time
        buffer = self._buffer
        self._buffer = {}
        self._buffer_time = None
        n = self._buffered
        self._buffered = 0
        if n == 0:
            return
        self.edges_in += n
        self._note_vertices(buffer)
        flow = self.dataflow
        # time reaches `now` first: what ended before it (maybe not at a slide's start, when
        # the window is no multiple of the slide) leaves before this round's keys enter
        self._reach(now)
        self._enter_bucket(now)
        deleting, self._minus = self._minus, set()
        produced, ended = flow.run(buffer, now, deleting)
        if produced or ended:
            self._emit(produced, ended)

    def _emit(self, produced: dict, ended: dict) -> None:
        """The output nodes' rows of a round (or a span): drained, remembered, announced."""
        flow = self.dataflow
        labels = flow.output_labels
        history = self.history
        subscribers = self._subscribers
        drained = self._drained
        for i in flow.outputs:
            out = produced.get(i)
            cut = ended.get(i)
            if cut:
                # one row per key and round: the last (a widening cut again shows as the cut)
                last = {(row[0], row[1]): row for row in (out + cut if out else cut)}
                out = list(last.values())
            elif not out:
                continue
            label = labels[i]
            drained.append((label, out))
            self.results_out += len(out)
            if history is not None:
                for s, t, ts, exp, _wit in out:
                    _remember(history, (s, t, label), ts, exp)
            if subscribers:
                for s, t, ts, exp, wit in out:
                    r = Result(s, t, label, ts, exp, wit)
                    for cb in subscribers:
                        cb(r)


def check_properties(needed: dict[str, tuple[str, ...]], available: Sequence[str]) -> None:
    """A UserError naming the first property the plan reads (`needed`, per label) that the
    input does not have, with the ones it has (specs/semantics.md §1)."""
    for label, keys in needed.items():
        for key in keys:
            if key not in available:
                have = (
                    "its properties are " + ", ".join(available)
                    if available
                    else "it has no property columns"
                )
                raise UserError(
                    f"the program reads property {key!r} of {label!r} edges, but the input "
                    f"has no such column; {have}"
                )


def _flat(segments: list) -> list[tuple]:
    """Six-field rows `(src, trg, label, ts, exp, path)` of drained segments."""
    return [(s, t, label, ts, exp, wit) for label, rows in segments for s, t, ts, exp, wit in rows]


def _remember(history: dict, key: tuple, ts: int, exp: int) -> None:
    """Merge the row `[ts, exp)` into the key's sorted, disjoint interval list: a start, a
    widening, or an end record cutting the last interval (see the module docstring)."""
    ivs = history.get(key)
    if ivs is None:
        if exp > ts:
            history[key] = [(ts, exp)]
        return
    last_ts, last_exp = ivs[-1]
    if ts > last_exp:
        if exp > ts:
            ivs.append((ts, exp))
        return
    if ts >= last_ts:
        if exp > last_exp:
            ivs[-1] = (last_ts, exp)
        elif exp < last_exp:  # an end record
            if exp > last_ts:
                ivs[-1] = (last_ts, exp)
            else:
                ivs.pop()
                if not ivs:
                    del history[key]
        return
    merged = [(ts, exp)]
    rest = []
    for iv in ivs:
        if iv[1] < ts or iv[0] > merged[0][1]:
            rest.append(iv)
        else:
            merged[0] = (min(iv[0], merged[0][0]), max(iv[1], merged[0][1]))
    rest.append(merged[0])
    rest.sort()
    history[key] = rest
