"""Coarse levels (state/level_closure.py, `Tuning.level_every` and `coarse_work`): a closure
PATH whose rows only the engine's output reads keeps, once its closures work hard, a closure
for one new top level in `level_every` and rebuilds the lowest live levels when they come up.
Its rows' ends are then lower bounds, each widened when it comes up (`defers_rows`). The
validity per key must be the exact closure's and S-PATH's at every instant once time has
reached it, after the close, across deletions and across a checkpoint, with one row per key
and round; only when a widening goes out may differ, never later than the old end."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st
from incremental_support import (
    assert_checkpoint_round_trip,
    assert_matches_reference,
    compile_text,
    norm,
    timed,
)
from sgq.incremental.operators.path_closure import PathClosureOp
from sgq.incremental.state import level_closure
from sgq.incremental.state.fan_coverage import FanCoverage
from sgq.incremental.state.follower_rows import FollowerRows
from sgq.incremental.state.interval_rows import IntervalRows
from test_follower_rows import PROGRAMS, follower_streams

from sgq import Engine, PlanOptions, Tuning

#: coarse from the first slide on (no work threshold), every other new top level
COARSE = Tuning(coarse_work=0, level_every=2)


def _query(text: str, window: int, slide: int, tuning: Tuning = COARSE, operator="closure"):
    options = PlanOptions(path_operator=operator, tuning=tuning)
    return compile_text(text, window=window, slide=slide, options=options)


def _closures(engine) -> list:
    return [op for op in engine.dataflow.ops if isinstance(op, PathClosureOp)]


def _rounds(engine, edges) -> list:
    """`_rounds_of` the whole stream, then the close's rows."""
    out = _rounds_of(engine, edges)
    engine.close()
    out.append([(r.src, r.trg, r.ts, r.exp) for r in engine.drain()])
    return out


def _rounds_of(engine, edges) -> list:
    """Per instant with input: its round's rows, then the rows of advancing past it (the
    widenings of the ends that came up at it), the invariants checked after each; between
    two instants with input, the rows of each instant in between, advanced to one by one
    (pushed at once, a later input would bring the rounds of all of them in one drain).
    Each round shows at most one row per key."""
    out = []
    last = None
    for t in sorted({e[3] for e in edges}):
        for tau in range(t if last is None else last + 1, t):
            engine.advance(tau + 1)
            out.append(_round(engine, tau))
        engine.push_batch([e for e in edges if e[3] == t])
        engine.flush()
        rows = _round(engine, t)
        engine.advance(t + 1)
        engine.dataflow._check()
        out += [rows, [(r.src, r.trg, r.ts, r.exp) for r in engine.drain()]]
        last = t
    return out


def _round(engine, t) -> list:
    """The rows drained at instant t, at most one per key `(x, y)`, x != y."""
    rows = [(r.src, r.trg, r.ts, r.exp) for r in engine.drain()]
    keys = [(s, t) for s, t, _ts, _exp in rows if s != t]  # ((v, v): its ε-pair's too)
    assert len(keys) == len(set(keys)), ("two rows of a key in one round", t, rows)
    return rows


def _spath_spans(query, edges) -> dict:
    """`_spans` of S-PATH's history on the whole stream: the validity to match."""
    exact = Engine(query.plan, options=PlanOptions(path_operator="spath"))
    exact.push_batch(edges)
    exact.close()
    return _spans(exact.history)


def test_a_closure_goes_coarse_only_past_its_work_and_where_only_the_output_reads_it():
    edges = norm([(i % 5, (i * 3) % 5, "a", i) for i in range(30)])
    star = "Answer(x, y) :- a*(x, y)."
    for tuning, text, coarse in (
        (COARSE, star, True),
        (Tuning(), star, False),  # a few edges: far below `coarse_work`
        (Tuning(coarse_work=0, level_every=1), star, False),
        (COARSE, "P(x, y) :- a*(x, y).\nAnswer(x, z) :- P(x, y), b(y, z).", False),
    ):
        engine = _query(text, 6, 1, tuning).engine()
        engine.push_batch(edges)
        engine.flush()
        assert [op.mode.closure.every > 1 for op in _closures(engine)] == [coarse], text
    engine = _query(star, 6, 1).engine(history=False, deltas=True)
    assert not any(op.defers_rows() for op in _closures(engine))  # native deltas instead


def test_a_lower_bound_end_is_widened_when_it_comes_up():
    """`1 -a-> 2` at 0, 1, 2, 3 (1 has an edge in, `2 -a-> 1` at 0: rows of its own), window
    6: the exact closure widens (1, 2) at each instant, to 6, 7, 8, 9. With a closure for
    every other new top level (6 and 8), the edges at 1 (exp 7) and at 3 (exp 9) change no
    closure: (1, 2) goes out until 6, is widened to 8 at 2, and at 8, when that end comes
    up, the level 9 is rebuilt and holds it: one row `[8, 9)` then (the close gives it
    here: no round comes after 3). 1 has no followers: its coverage is the closure's, so a
    widening starts at its round (inside the open interval), not at the key's start."""
    edges = norm([("2", "1", "a", 0)] + [("1", "2", "a", t) for t in range(4)])
    text = "Answer(x, y) :- a+(x, y)."
    exact = _rounds(_query(text, 6, 1, Tuning()).engine(), edges)
    coarse = _rounds(_query(text, 6, 1).engine(), edges)
    first = {(x, y, 0, 6) for x in "12" for y in "12"}
    assert [set(rows) for rows in exact] == [first, set()] + [
        {("1", "2", 1 + i // 2, exp)} if i % 2 == 0 else set()
        for i, exp in enumerate((7, 7, 8, 8, 9))
    ] + [set(), set()]
    assert [set(rows) for rows in coarse] == [first, set()] + [set(), set()] + [
        {("1", "2", 2, 8)},
        set(),
        set(),
        set(),
        {("1", "2", 8, 9)},
    ]


def test_renewed_cycles_widen_at_the_kept_levels_only():
    """A cycle renewed at every instant: coarse levels widen its pairs at every other
    instant, not at each (fewer rows than exact ends), the same validity."""
    edges = norm([("1", "2", "a", t) for t in range(8)] + [("2", "1", "a", t) for t in range(8)])
    text = "Answer(x, y) :- a+(x, y)."
    exact = _rounds(_query(text, 6, 1, Tuning()).engine(), edges)
    coarse = _rounds(_query(text, 6, 1).engine(), edges)
    assert sum(map(len, coarse)) < sum(map(len, exact))
    assert (
        _merged(exact)
        == _merged(coarse)
        == {key: [(0, 13)] for key in (("1", "2"), ("2", "1"), ("1", "1"), ("2", "2"))}
    )


def _merged(rounds: list) -> dict:
    """Per key its rows merged, in emission order; each row a start (after the key's open
    interval) or a widening (ending later): none repeats what was emitted (no deletions)."""
    spans: dict = {}
    for rows in rounds:
        for s, t, ts, exp in rows:
            got = spans.setdefault((s, t), [])
            if got and ts <= got[-1][1]:
                assert exp > got[-1][1], ("a row that widens nothing", s, t, ts, exp, got)
                got[-1] = (got[-1][0], max(got[-1][1], exp))
            else:
                got.append((ts, exp))
    return spans


@settings(max_examples=60, deadline=None)
@given(
    name=st.sampled_from(sorted(PROGRAMS)),
    edges=follower_streams(deletions=True),
    window=st.integers(2, 8),
    slide=st.integers(1, 3),
    every=st.integers(2, 4),
)
def test_coarse_levels_give_the_exact_validity(name, edges, window, slide, every):
    tuning = Tuning(coarse_work=0, level_every=every)
    query = _query(PROGRAMS[name], window, min(slide, window), tuning)
    engine, _rows = assert_matches_reference(query, edges, check_state=True)
    want = _spath_spans(query, edges)
    assert _spans(engine.history) == want  # (merged per key: the validity)
    spans = query.engine()  # the whole stream at once: spans of many instants
    spans.push_batch(edges)
    spans.close()
    assert _spans(spans.history) == want


def _spans(history: dict) -> dict:
    """Per key its spans with the abutting ones merged (a widening at an end starts there)."""
    out = {}
    for key, spans in history.items():
        merged: list = []
        for ts, exp in sorted(spans):
            if merged and ts <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(merged[-1][1], exp))
            else:
                merged.append((ts, exp))
        out[key] = merged
    return out


@settings(max_examples=150, deadline=None)
@given(
    name=st.sampled_from(sorted(PROGRAMS)),
    edges=follower_streams(),
    window=st.integers(2, 10),
    every=st.integers(2, 9),
)
def test_coarse_rounds_keep_their_invariants(name, edges, window, every):
    """Every round's rows widen what was emitted, with levels rebuilt and kept without a
    closure between two with one (`every >= 4`: a rebuilt level's reports kept, `rebuilt`)."""
    exact = _rounds(_query(PROGRAMS[name], window, 1, Tuning()).engine(), edges)
    tuning = Tuning(coarse_work=0, level_every=every)
    coarse = _rounds(_query(PROGRAMS[name], window, 1, tuning).engine(), edges)
    assert _merged(coarse) == _merged(exact)


@st.composite
def _hub_streams(draw):
    """Sources with `a` edges to hubs, hubs with `b` edges among them and to sinks, steps of
    0-3: the hubs are the sources' sole successors, reaching one another by paths of many
    expiry levels."""
    steps = draw(
        st.lists(
            st.one_of(
                st.tuples(st.integers(0, 6), st.integers(0, 3), st.just("a"), st.integers(0, 3)),
                st.tuples(st.integers(0, 3), st.integers(0, 5), st.just("b"), st.integers(0, 3)),
                st.tuples(st.integers(0, 3), st.integers(0, 5), st.just("b"), st.integers(0, 3)),
            ),
            min_size=10,
            max_size=60,
        )
    )
    return norm(
        timed(
            [
                (("s" if label == "a" else "h") + str(s), f"h{t}", label, step)
                for s, t, label, step in steps
            ]
        )
    )


#: a stream where s1's row to h4 came up twice with one end (found by a random search)
_TWICE = [
    ("h2", "h3", "b", 0), ("s0", "h0", "a", 3), ("h0", "h5", "b", 5), ("h2", "h2", "b", 6),
    ("s1", "h0", "a", 7), ("h0", "h4", "b", 7), ("h2", "h4", "b", 8), ("s4", "h0", "a", 9),
    ("h0", "h2", "b", 9), ("s3", "h0", "a", 12), ("h3", "h0", "b", 13), ("s3", "h3", "a", 14),
    ("h3", "h0", "b", 17), ("h1", "h2", "b", 18), ("h1", "h5", "b", 18), ("h3", "h4", "b", 20),
    ("h3", "h3", "b", 21),
]  # fmt: skip


@settings(max_examples=100, deadline=None)
@example(text="Answer(x, y) :- [(a|b)*](x, y).", edges=norm(_TWICE), window=8, every=7)
@given(
    text=st.sampled_from(["Answer(x, y) :- [a/b*](x, y).", "Answer(x, y) :- [(a|b)*](x, y)."]),
    edges=_hub_streams(),
    window=st.integers(4, 12),
    every=st.integers(4, 9),
)
def test_a_rebuilds_findings_widen_the_followers_rows_they_give(text, edges, window, every):
    """A held successor's end may be a rebuilt level's report above the dropped level (a
    lower bound, `rebuilt`), and a later rebuild may find the key at a higher level still:
    its followers' rows clipped by an edge at or below that report widen nothing then, and
    are not emitted (`LevelClosure.reported_before`); the validity is the exact one."""
    exact = _rounds(_query(text, window, 1, Tuning()).engine(), edges)
    tuning = Tuning(coarse_work=0, level_every=every)
    coarse = _rounds(_query(text, window, 1, tuning).engine(), edges)
    assert _merged(coarse) == _merged(exact)


def test_going_coarse_keeps_the_lowest_and_the_top_closure():
    """Levels 6, 7, 8 made exact (window 6: edges at 0, 1, 2), then coarse: 7's closure goes.
    An edge `1 -> 2` at 3 (exp 9: no closure of its own) joins the cycle `9 -> 0 -> 1 -> 9`
    of exp 6: (0, 2) and (9, 2) are found through the lowest level's closure, until 6."""
    edges = norm(
        [("9", "0", "a", 0), ("0", "1", "a", 0), ("1", "9", "a", 0)]
        + [("5", "6", "a", 1), ("6", "7", "a", 2), ("1", "2", "a", 3)]
    )
    query = _query("Answer(x, y) :- a*(x, y).", 6, 1, Tuning())
    engine = query.engine()
    _rounds_of(engine, edges[:5])
    (op,) = _closures(engine)
    assert op.mode.closure.levels == [6, 7, 8]
    op.mode.closure.coarsen(2)
    assert op.mode.closure.levels == [6, 8]
    _rounds_of(engine, edges[5:])
    engine.close()
    spans = _spans(engine.history)
    assert spans[("0", "2", "Answer")] == spans[("9", "2", "Answer")] == [(3, 6)]


@st.composite
def _graph_streams(draw):
    """Edges among five vertices, every label, a step of 0-2 between them: paths through
    old and new edges alike."""
    steps = draw(
        st.lists(
            st.tuples(
                st.integers(0, 4), st.integers(0, 4), st.sampled_from("abc"), st.integers(0, 2)
            ),
            max_size=45,
        )
    )
    return norm(timed([(str(s), str(t), label, step) for s, t, label, step in steps]))


@settings(max_examples=60, deadline=None)
@given(
    name=st.sampled_from(sorted(PROGRAMS)),
    edges=st.one_of(follower_streams(), _graph_streams()),
    window=st.integers(4, 10),
    cut=st.integers(5, 40),
    every=st.integers(2, 4),
)
def test_going_coarse_mid_stream_keeps_the_exact_validity(name, edges, window, cut, every):
    """A closure that goes coarse after exact levels were made (a slide's work passed
    `coarse_work` mid-stream) keeps the lowest level's closure and the top's only; what the
    dropped levels held keeps its end, what is found later in between gets a lower bound. The
    validity per key stays S-PATH's, and the invariants hold at every round."""
    query = _query(PROGRAMS[name], window, 1, Tuning())
    engine = query.engine()
    cut = min(cut, len(edges))
    while 0 < cut < len(edges) and edges[cut][3] == edges[cut - 1][3]:
        cut += 1  # (an instant's edges in one round)
    _rounds_of(engine, edges[:cut])
    levels_before = []
    for op in _closures(engine):
        if op.defers_rows():  # (not handed over to S-PATH, rows only the output reads)
            levels_before.append(len(op.mode.closure.levels))
            op.mode.closure.coarsen(every)
            assert len(op.mode.closure.levels) <= 2
    _rounds_of(engine, edges[cut:])
    engine.close()
    assert _spans(engine.history) == _spath_spans(query, edges), levels_before


@settings(max_examples=80, deadline=None)
@given(
    name=st.sampled_from(sorted(PROGRAMS)),
    edges=_graph_streams(),
    window=st.integers(6, 12),
    slide=st.integers(1, 2),
    every=st.integers(4, 9),
)
def test_thinned_rebuilt_levels_give_the_exact_validity(name, edges, window, slide, every):
    """Wide windows, a closure for one new top level in 4 to 9, rounds between the levels'
    ends: a rebuilt gap keeps one closure in `isqrt(every)` (2 or 3), the lowest first, so
    a path through the lowest live level is found in the round that makes it."""
    query = _query(PROGRAMS[name], window, slide, Tuning(coarse_work=0, level_every=every))
    engine = query.engine()
    _rounds_of(engine, edges)
    engine.close()
    assert _spans(engine.history) == _spath_spans(query, edges)


@settings(max_examples=60, deadline=None)
@given(
    name=st.sampled_from(sorted(PROGRAMS)),
    edges=st.one_of(follower_streams(), _graph_streams()),
    cut=st.integers(0, 45),
    wide=st.booleans(),
    every=st.integers(4, 9),
)
def test_a_checkpoint_keeps_the_coarse_levels(name, edges, cut, wide, every):
    """Restored mid-stream, the same history, with a closure for every other new top level
    (window 4) or with wide windows whose rebuilt gaps keep one closure in `isqrt(every)`."""
    cut = min(cut, len(edges))
    if wide:
        query = _query(PROGRAMS[name], 9, 1, Tuning(coarse_work=0, level_every=every))
    else:
        query = _query(PROGRAMS[name], 4, 1)
    assert_checkpoint_round_trip(query, edges, cut)


def _rejected_by_coverage(engine, edges, monkeypatch) -> int:
    """The start nodes' targets the rebuilds report that the coverage already holds as long
    (the re-reports `LevelClosure.rebuilt` is there to keep from it), over `_rounds`."""
    rejected = [0]
    admit_fan = FanCoverage.admit_fan

    def counting(self, src, trgs, now, exp):
        fan = self.live.get(src, {})
        rejected[0] += sum(1 for t in trgs if t in fan and now < fan[t][1] >= exp)
        return admit_fan(self, src, trgs, now, exp)

    monkeypatch.setattr(FanCoverage, "admit_fan", counting)
    # (the sources keep their coverage: held again, their findings would skip it)
    monkeypatch.setattr(IntervalRows, "_rehold", lambda self, x, now: None)
    monkeypatch.setattr(FollowerRows, "holds_made_rows", lambda self, *args: False)
    _rounds(engine, edges)
    monkeypatch.undo()
    return rejected[0]


def test_a_rebuilt_level_without_a_closure_does_not_report_its_results_again(monkeypatch):
    """A cycle through six vertices renewed edge by edge, window 9, a closure for one new
    top level in 9: each rebuilt gap keeps one closure in 3, and the next rebuild of the two
    left without one reports only what their earlier rebuild did not (`rebuilt`). Without
    that memo the coverage is handed the same results again and drops them; the rows are
    the same either way."""
    edges = norm([(str(t % 6), str((t + 1) % 6), "a", t) for t in range(40)])
    tuning = Tuning(coarse_work=0, level_every=9)
    query = _query("Answer(x, y) :- a+(x, y).", 9, 1, tuning)
    memo = query.engine()
    rejected = _rejected_by_coverage(memo, edges, monkeypatch)
    monkeypatch.setattr(level_closure, "_unreported", lambda found, before: found)
    plain = query.engine()
    rejected_plain = _rejected_by_coverage(plain, edges, monkeypatch)
    assert rejected < rejected_plain, (rejected, rejected_plain)
    assert memo.history == plain.history
    assert _spans(memo.history) == _spath_spans(query, edges)
