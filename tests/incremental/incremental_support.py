"""Helpers for the engine tests: compile text, run streams, compare with the brute-force
reference (tests/snapshot_reference.py) at every change point."""

from __future__ import annotations

import pickle

import snapshot_reference as ref
from hypothesis import strategies as st
from native_deltas import DeltaSnapshots
from sgq.incremental.deltas import delta_rows
from sgq.incremental.state.edge_index import EdgeIndex

import sgq


def compile_text(text: str, window=None, slide=None, options=sgq.PlanOptions()):
    return sgq.compile(text, window=window, slide=slide, options=options)


def assert_checkpoint_round_trip(query, edges, cut: int) -> None:
    """An engine restored from one that read `edges[:cut]` (its state pickled), then fed the
    rest, has the history of one engine fed the whole stream."""
    whole = query.engine()
    whole.push_batch(edges)
    whole.close()
    first = query.engine()
    first.push_batch(edges[:cut])
    second = query.engine()
    second.restore(pickle.loads(pickle.dumps(first.state())))
    second.push_batch(edges[cut:])
    second.close()
    assert second.history == whole.history


def timed(steps) -> list:
    """Edges drawn as `(src, trg, label, step, ...)`, the time given as a step from the edge
    before: the same edges with absolute times `(src, trg, label, t, ...)`."""
    t, out = 0, []
    for src, trg, label, step, *rest in steps:
        t += step
        out.append((src, trg, label, t, *rest))
    return out


def norm(edges):
    """Edges as (src, trg, label, t, op) with string ids, and their properties' dict as a
    sixth field when they have one (specs/semantics.md §1)."""
    out = []
    for e in edges:
        op = e[4] if len(e) > 4 else "+"
        out.append((str(e[0]), str(e[1]), str(e[2]), int(e[3]), op, *e[5:6]))
    return out


def run_all(query, edges, *, batch=False, paths=False, check=False):
    """Push every edge (one by one, or as one push_batch), close; return the engine."""
    eng = query.engine(paths=paths)
    if batch:
        eng.push_batch(edges)
    else:
        for e in edges:
            eng.push(*e)
            if check:
                eng.dataflow._check()
    eng.close()
    return eng


def assert_matches_reference(query, edges, *, check_state=False):
    """Timeliness and correctness: at every change point τ, once every input with time <= τ
    is consumed (advance(τ + 1)), the engine's snapshot at τ equals the reference; after the
    whole stream (nothing emitted late) every snapshot still does, and the delta views agree."""
    edges = norm(edges)
    checked = query.checked
    points = ref.change_points(checked, edges)
    expected = {tau: ref.output_snapshot(checked, edges, tau) for tau in points}
    eng = query.engine()
    for tau in _fed_until_each(eng, edges, points):
        if check_state:
            eng.dataflow._check()
        got = eng.snapshot(tau)
        assert got == expected[tau], (tau, sorted(got ^ expected[tau]))
    eng.close()
    for tau in points:
        assert eng.snapshot(tau) == expected[tau], ("late or retracted", tau)
    results = eng.drain()
    assert delta_rows(results) == ref.delta_view(checked, edges)
    assert_native_deltas(query, edges, points, expected)
    return eng, results


def _fed_until_each(eng, edges, points):
    """For each change point τ: push the edges up to τ, `advance(τ + 1)`, yield τ; then push
    the rest (without closing)."""
    i = 0
    for tau in points:
        while i < len(edges) and edges[i][3] <= tau:
            eng.push(*edges[i])
            i += 1
        eng.advance(tau + 1)
        yield tau
    for edge in edges[i:]:
        eng.push(*edge)


def assert_native_deltas(query, edges, points, expected):
    """The same in delta mode (PATH's native deltas): timely snapshots from the events
    released after `advance(τ + 1)`, and the whole delta view."""
    eng = DeltaSnapshots(query)
    for tau in _fed_until_each(eng, edges, points):
        got = eng.snapshot(tau)
        assert got == expected[tau], ("deltas", tau, sorted(got ^ expected[tau]))
    eng.close()
    assert eng.events == ref.delta_view(query.checked, edges), "native delta view"


@st.composite
def edge_streams(
    draw,
    labels,
    max_size=14,
    vertices=3,
    deletions=True,
    gaps=(0, 0, 1, 1, 2, 4),
    delete_odds=4,
    absent_odds=20,
):
    """Non-decreasing times with ties and gaps; with `deletions`, `-` edges: about one in
    `delete_odds` of an earlier insert (the latest or a random one, sometimes re-inserted at
    once) and one in `absent_odds` of a random (mostly absent) edge. A label `zz` no program
    reads adds noise."""
    n = draw(st.integers(1, max_size))
    t = draw(st.integers(0, 3))
    out: list = []
    for _ in range(n):
        t += draw(st.sampled_from(gaps))
        inserted = [e for e in out if e[4] == "+"]
        if deletions and inserted and draw(st.integers(0, delete_odds - 1)) == 0:
            s, d, label = draw(st.sampled_from([inserted[-1], *inserted]))[:3]
            out.append((s, d, label, t, "-"))
            if draw(st.booleans()):
                out.append((s, d, label, t, "+"))
            continue
        s = draw(st.integers(0, vertices - 1))
        d = draw(st.integers(0, vertices - 1))
        label = draw(st.sampled_from(labels + ("zz",)))
        absent = deletions and draw(st.integers(0, absent_odds - 1)) == 0
        out.append((s, d, label, t, "-" if absent else "+"))
    return out


class OperatorContext:
    """What a physical operator asks its engine for when built (`BuildContext`), for tests
    that build one operator by hand: one EdgeIndex per input node, rows as tuples, no native
    deltas; `paths` whether rows carry witnesses."""

    def __init__(self, paths: bool = False):
        self.paths = paths
        self.indexes: dict = {}

    def index_of(self, node):
        return self.indexes.setdefault(node, EdgeIndex())

    def delta_sink(self, node):
        return None  # rows, not native deltas

    def output_key(self, node):
        return node.label, False

    def fan_rows(self, node):
        return False  # rows as tuples

    def intersection_side(self, node):
        return False  # no intersection


@st.composite
def chunked_streams(draw, programs: list):
    """`(text, chunks)`: one of `programs` under a random window and slide (also no multiple
    of it), and a stream of up to 40 edges over labels a and b on five vertices, some of them
    `-` edges of earlier ones, cut into up to five `push_batch` chunks."""
    window = draw(st.integers(1, 12))
    slide = draw(st.integers(1, window))
    program = draw(st.sampled_from(programs))
    deleting = draw(st.booleans())
    n = draw(st.integers(1, 40))
    edges, t, live = [], 0, []
    for _ in range(n):
        t += draw(st.integers(0, 3))
        if deleting and live and draw(st.integers(0, 5)) == 0:
            s, d, label = draw(st.sampled_from(live))
            edges.append((s, d, label, t, "-"))
            continue
        s, d = draw(st.integers(0, 4)), draw(st.integers(0, 4))
        label = draw(st.sampled_from("ab"))
        edges.append((str(s), str(d), label, t, "+"))
        live.append((str(s), str(d), label))
    cuts = sorted(set(draw(st.lists(st.integers(1, max(1, n - 1)), max_size=4))))
    chunks = [edges[i:j] for i, j in zip([0, *cuts], [*cuts, n]) if edges[i:j]]
    return f".window {window}\n.slide {slide}\n{program}", chunks


def delta_events(query, chunks: list, deltas: bool) -> list:
    """The delta events of `query` fed `chunks` (one `push_batch` each, the view fed after
    each), in delta mode (`deltas`) or from interval rows."""
    engine = query.engine(history=False, deltas=deltas)
    view = engine.delta_view()
    events: list = []
    for chunk in chunks:
        engine.push_batch(chunk)
        events += view.feed(engine.drain_rows(), engine.time)
    engine.close()
    events += view.feed(engine.drain_rows(), engine.time)
    events += view.close()
    return events
