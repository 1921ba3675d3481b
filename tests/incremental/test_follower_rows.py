"""The interval rows of sole-edge sources derived from their successor's (state/follower_rows.py,
the closure PATH with interval rows) are exactly S-PATH's rows: the same rows at every instant
(one per key and round), over streams built to make many such sources, renew their edges,
expire them, and turn them into rows again (an edge into one, a second successor); plus the
brute-force reference, state checks after every round, a checkpoint round trip, and a
hand-over at a deletion."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from incremental_support import assert_matches_reference, compile_text, norm
from sgq.incremental.deltas import delta_rows
from sgq.incremental.fan_rows import rows_of_fans
from sgq.incremental.operators.path_closure import PathClosureOp
from sgq.incremental.state.follower_rows import FollowerRows

from sgq import Engine, PlanOptions
from sgq.state_codec import decode, encode

# regexes where `s -a-> h` makes s a follower of h's start node (the start state loops on `a`;
# final: h's vertex is a result with the edge alone, or not) or of another node of h
PROGRAMS = {
    "astar_bstar": "Answer(x, y) :- [a*/b*](x, y).",
    "astar_bplus": "Answer(x, y) :- [a*/b+](x, y).",
    "astar": "Answer(x, y) :- a*(x, y).",
    "astar_b_c": "Answer(x, y) :- [a*/b/c?](x, y).",
    # successors that are not start nodes: their coverage is kept for their followers
    "aopt_bstar": "Answer(x, y) :- [a?/b*](x, y).",
    "a_bstar": "Answer(x, y) :- [a/b*](x, y).",
    "a_bplus_c": "Answer(x, y) :- [a/b+/c?](x, y).",
    # the PATH's rows as a list, read by a join (no fans)
    "feeds_join": "P(x, y) :- [a*/b*](x, y).\nAnswer(x, z) :- P(x, y), c(y, z).",
    # a+ feeding a join, as so Q6 and snb Q6 (`knows+`): followers of inner nodes
    "plus_feeds_join": "P(x, y) :- [(a|b)+](x, y).\nAnswer(x, z) :- P(x, y), c(y, z).",
}

_source = st.sampled_from(["s0", "s1", "s2", "s3", "s4"])
_hub = st.sampled_from(["h0", "h1", "h2"])
_edge = st.one_of(
    # a source's edge to a hub (most often: many followers, renewals by repeats)
    st.tuples(_source, _hub, st.just("a")),
    st.tuples(_source, _hub, st.just("a")),
    st.tuples(_hub, _hub, st.sampled_from("ab")),
    st.tuples(_hub, _hub, st.sampled_from("bc")),
    # rarer: an edge into a source, a source's second successor, a hub back to a source
    st.tuples(_hub, _source, st.sampled_from("ab")),
    st.tuples(_source, _source, st.just("a")),
)


@st.composite
def follower_streams(draw, deletions: bool = False):
    steps = draw(st.lists(st.tuples(_edge, st.sampled_from([0, 0, 1, 1, 2, 4])), max_size=30))
    t, out = 0, []
    for (src, trg, label), gap in steps:
        t += gap
        out.append((src, trg, label, t, "+"))
    if deletions and out:
        i = draw(st.integers(0, len(out) - 1))
        src, trg, label, t_i, _ = out[i]
        out.append((src, trg, label, out[-1][3] + draw(st.integers(0, 2)), "-"))
    return norm(out)


def rows_per_instant(query, edges, operator: str, check: bool = False) -> list:
    """Each instant's interval rows, drained instant by instant, as `{key: (ts, exp)}` of
    the key's last row (S-PATH may widen a key twice in one round, as its edges come: the
    last row is what the round shows); `check`: the dataflow's invariants after every
    instant, and one row per key `(x, y)`, x != y, and round."""
    eng = Engine(query.plan, options=PlanOptions(path_operator=operator))
    out = []
    times = sorted({e[3] for e in edges})
    i = 0
    for t in [*times, "end"]:
        if t == "end":
            eng.close()
        else:
            while i < len(edges) and edges[i][3] == t:
                eng.push(*edges[i])
                i += 1
            eng.advance(t + 1)
            if check:
                eng.dataflow._check()
        rows = eng.drain()
        last = {(r.src, r.trg): (r.ts, r.exp) for r in rows}
        if check:  # (a pair (v, v) may get a path's row and then its ε-pair's, as in S-PATH)
            pairs = [(r.src, r.trg) for r in rows if r.src != r.trg]
            assert len(pairs) == len(set(pairs)), ("two rows of a key in one round", t, rows)
        out.append((t, last))
    return out


def assert_same_rows(got: list, want: list) -> None:
    """The closure's rows per instant (`rows_per_instant`) against S-PATH's: the same keys
    with the same ends in every round. A row may start later than S-PATH's, no later than its
    round, where it widens a key its earlier rows hold until then: a start node whose coverage
    the closure holds widens a live key from its round, and keeps that start, or the round
    it got a coverage of its own, from then on (specs/semantics.md §5: from inside the open
    interval, never from before it)."""
    assert [t for t, _rows in got] == [t for t, _rows in want]
    ends: dict = {}  # key -> the end of the closure's rows so far
    for (t, rows), (_t, spath) in zip(got, want):
        assert {k: e for k, (_s, e) in rows.items()} == {k: e for k, (_s, e) in spath.items()}, t
        for key, (ts, exp) in rows.items():
            since = spath[key][0]
            if ts != since:
                assert since < ts <= ends.get(key, since), (t, key, ts, since)
                assert t == "end" or ts <= t, (t, key, ts, since)
            ends[key] = max(ends.get(key, exp), exp)


def _closure_ops(eng) -> list:
    return [op for op in eng.dataflow.ops if isinstance(op, PathClosureOp)]


@pytest.mark.parametrize("name", sorted(PROGRAMS))
@settings(max_examples=60, deadline=None)
@given(edges=follower_streams(), window=st.integers(2, 8), slide=st.integers(1, 3))
def test_derived_rows_are_spath_rows(name, edges, window, slide):
    query = compile_text(PROGRAMS[name], window=window, slide=min(slide, window))
    want = rows_per_instant(query, edges, "spath")
    assert_same_rows(rows_per_instant(query, edges, "closure", check=True), want)
    assert_matches_reference(query, edges, check_state=True)


@settings(max_examples=40, deadline=None)
@given(edges=follower_streams(deletions=True), window=st.integers(2, 8))
def test_followers_hand_over_at_a_deletion(edges, window):
    """Same history and deltas as S-PATH (in a round with a deletion the closure may open and
    cut a key at that instant, which S-PATH never opened: the same snapshots)."""
    query = compile_text(PROGRAMS["astar_bstar"], window=window, slide=1)
    engines = []
    for operator in ("closure", "spath"):
        eng = Engine(query.plan, options=PlanOptions(path_operator=operator))
        for t in sorted({e[3] for e in edges}):
            eng.push_batch([e for e in edges if e[3] == t])
            eng.advance(t + 1)
            eng.dataflow._check()
        eng.close()
        engines.append(eng)
    closure, spath = engines
    assert closure.history == spath.history
    assert delta_rows(closure.drain()) == delta_rows(spath.drain())


def test_a_follower_renewed_while_its_successor_widens_gets_one_row():
    """s's edge is renewed in the round where its successor h's coverage of t widens: s's row
    of t is one row, at the new min of the two ends, keeping its start."""
    query = compile_text(PROGRAMS["astar_bstar"], window=4, slide=2)
    edges = norm(
        [
            ("h", "t", "b", 0),
            ("s", "h", "a", 1),  # s follows h, its edge until 4
            ("h", "t", "b", 2),  # h's t widens to 6
            ("s", "h", "a", 2),  # s's edge renewed to 6 in the same round
        ]
    )
    got = rows_per_instant(query, edges, "closure", check=True)
    assert_same_rows(got, rows_per_instant(query, edges, "spath"))
    assert dict(got)[2][("s", "t")] == (1, 6)
    eng = Engine(query.plan)
    eng.push_batch(edges[:2])
    eng.advance(2)
    (op,) = _closure_ops(eng)
    assert op.mode.follow.since  # s is derived, not rows
    assert set(op.mode.cover.keys_of("s")) == {"s"}  # its ε-pair only: no (s, h), (s, t)


def test_a_renewed_follower_compares_with_its_successors_end_before_the_round():
    """h's coverage of t widens from 8 to 10 (a path through m) in the round where s's edge
    is renewed from 10 to 12: (s, t) widens from min(10, 8) to min(12, 10), one row; judged by
    h's end after the round, min(10, 10), it would seem unchanged."""
    query = compile_text(PROGRAMS["astar_bstar"], window=8, slide=2)
    edges = norm(
        [
            ("h", "t", "b", 0),  # (h, t) until 8
            ("s", "h", "a", 2),  # s follows h until 10: (s, t) until 8
            ("h", "m", "b", 2),
            ("m", "t", "b", 4),  # (h, t) until min(10, 12) = 10
            ("s", "h", "a", 4),  # s renewed: until 12
        ]
    )
    got = rows_per_instant(query, edges, "closure", check=True)
    assert_same_rows(got, rows_per_instant(query, edges, "spath"))
    assert dict(got)[4][("s", "t")] == (2, 10)


def test_a_follower_clips_its_successors_starts_and_ends():
    """s follows h from 2; at 4, h's edge to x, which reaches t1 and t2 already, widens t1
    (live from 0), t2 (from 3) and the new x to 12 in one row of h. With a longer window for
    `a` (s's edge until 16) each of s's rows widens to 12; with one window (s's edge until
    10) t2, already until 10 for s, gets none. h is a held start node (its findings are its
    widenings, by vertex over a*/b*'s two final states), so its rows and s's start at 4,
    inside the keys' intervals (specs/semantics.md §5: a widening starts inside the open
    interval); `assert_same_rows` checks the validity per key against S-PATH's."""
    edges = norm(
        [("h", "t1", "b", 0), ("s", "h", "a", 2), ("h", "t2", "b", 3)]
        + [("x", "t1", "b", 4), ("x", "t2", "b", 4), ("h", "x", "b", 4)]
    )
    for windows, want in (
        (".window 14 for a\n", {"t1": (4, 12), "t2": (4, 12), "x": (4, 12)}),
        ("", {"t1": (4, 10), "x": (4, 10)}),
    ):
        query = compile_text(windows + PROGRAMS["astar_bstar"], window=8, slide=2)
        got = rows_per_instant(query, edges, "closure", check=True)
        assert_same_rows(got, rows_per_instant(query, edges, "spath"))
        assert {t: span for (x, t), span in dict(got)[4].items() if x == "s"} == want
    # a shorter window for `a`: a new follower's rows end with its edge
    query = compile_text(".window 2 for a\n" + PROGRAMS["astar_bstar"], window=8, slide=2)
    edges = norm([("h", "t1", "b", 0), ("s", "h", "a", 1)])
    got = rows_per_instant(query, edges, "closure", check=True)
    assert_same_rows(got, rows_per_instant(query, edges, "spath"))
    assert dict(got)[1][("s", "t1")] == (1, 2)


def test_a_follower_its_successor_reaches_keeps_its_own_starts():
    """[a?/b*]: h reaches s and t from 0; u follows h's inner node from 2 (whose coverage
    then starts), s from 3 (its start node has no edge in), so s's pair with itself is its
    own coverage and s goes out of its group's fan; at 4 h's edge to x (reaching s and t
    longer) widens both in one finding. h's inner node is final (one of a?/b*'s two final
    states) and held, its findings its widenings by vertex: s's and u's rows of t widen from
    4, inside their intervals (specs/semantics.md §5); `assert_same_rows` checks the
    validity per key against S-PATH's."""
    edges = norm(
        [("h", "s", "b", 0), ("h", "t", "b", 0), ("x", "s", "b", 2), ("x", "t", "b", 2)]
        + [("u", "h", "a", 2), ("s", "h", "a", 3), ("h", "x", "b", 4)]
    )
    query = compile_text(PROGRAMS["aopt_bstar"], window=12, slide=2)
    got = rows_per_instant(query, edges, "closure", check=True)
    assert_same_rows(got, rows_per_instant(query, edges, "spath"))
    spans = dict(got)[4]
    assert (spans[("s", "t")], spans[("u", "t")]) == ((4, 14), (4, 14))


def test_a_follower_gets_no_row_of_its_successors_vertex_reached_again():
    """(s, h) holds with s's edge; h reaching itself over a cycle of b edges gives h a row
    of (h, h), and s none."""
    query = compile_text(PROGRAMS["astar_bplus"], window=8, slide=2)
    edges = norm([("s", "h", "a", 0), ("h", "k", "b", 0), ("h", "t", "b", 1), ("k", "h", "b", 2)])
    got = rows_per_instant(query, edges, "closure", check=True)
    assert_same_rows(got, rows_per_instant(query, edges, "spath"))
    query = compile_text(PROGRAMS["astar_bstar"], window=8, slide=2)
    edges = norm([("s", "h", "a", 0), ("h", "k", "b", 0), ("k", "h", "b", 2)])
    got = rows_per_instant(query, edges, "closure", check=True)
    assert_same_rows(got, rows_per_instant(query, edges, "spath"))
    assert ("s", "h") not in dict(got)[2]


@pytest.mark.parametrize("name", ["astar_bstar", "aopt_bstar", "a_bplus_c"])
def test_checkpoint_round_trip_keeps_the_followers(name):
    """Followers of h's start node ([a*/b*]), of h's final inner node ([a?/b*]: held, its
    rows logged) or of h's inner node that is not final ([a/b+/c?]: its coverage saved as
    well) go on after a restore as without one."""
    query = compile_text(PROGRAMS[name], window=6, slide=2)
    edges = norm(
        [("h", "t", "b", 0), ("s", "h", "a", 1), ("u", "h", "a", 2), ("h", "w", "b", 3)]
        + [("s", "h", "a", 4), ("h", "t", "b", 5), ("x", "s", "a", 6), ("h", "v", "b", 7)]
    )
    whole = Engine(query.plan)
    whole.push_batch(edges)
    whole.close()
    first = Engine(query.plan)
    first.push_batch(edges[:4])
    first.advance(4)
    (op,) = _closure_ops(first)
    assert op.mode.follow.since  # s and u are derived
    assert bool(op.mode.follow.succ.sources()) == (name == "a_bplus_c")  # h's inner node's
    head = first.drain()
    saved = json.loads(json.dumps(encode({"engine": first})))
    second = Engine(query.plan)
    decode(saved, {"engine": second})
    second.dataflow._check()
    second.push_batch(edges[4:])
    second.close()
    second.dataflow._check()
    assert sorted(head + second.drain()) == sorted(whole.drain())


def test_a_follower_gets_no_row_of_its_successors_vertex_without_epsilon_pairs():
    """Called directly, as a closure without ε-pairs would (none wires it so today): b's row
    of its own vertex moves nothing for f, whose pair with that vertex holds with its edge."""
    from types import SimpleNamespace

    from sgq.incremental.state.fan_coverage import FanCoverage
    from sgq.incremental.state.sole_sources import FollowerChanges, SoleSources

    sole = SoleSources()
    sole.add(2, 0, 9)  # node 2 (vertex "s") follows node 0 (vertex "h") until 9
    names = ["h", "s", "t"]
    closure = SimpleNamespace(
        names=names,
        name_of=names.__getitem__,
        vid={"h": 0, "s": 1, "t": 2},
        nstates=2,
        start=0,
        finals=[0],
        followed=lambda: sole.followers,
        follower_groups=lambda: sole.groups,
        followers=lambda: sole.succ,
        edge_exps=lambda: sole.exp,
    )
    cover = FanCoverage()
    rows = FollowerRows(closure, cover, loops=True)
    rows.since[2] = 1
    trgs, starts, olds = cover.admit_fan("h", ["h", "t"], 3, 7)
    rows.begin(FollowerChanges({}, [], {}, [], []), 3, True, None)
    rows.changed(0, trgs, starts, olds, 7)
    assert list(rows_of_fans(rows.take_rows())) == [("s", "t", 3, 7, None)]


def test_follower_rows_state_round_trips():
    from types import SimpleNamespace

    from sgq.incremental.state.fan_coverage import FanCoverage

    closure = SimpleNamespace(
        start=0,
        finals=[0],
        followed=dict,
        follower_groups=dict,
        followers=dict,
        edge_exps=dict,
    )
    rows = FollowerRows(closure, FanCoverage(), loops=True)
    rows.since = {3: 10, 7: 12}
    again = FollowerRows(closure, FanCoverage(), loops=True)
    again.restore(json.loads(json.dumps(rows.state())))
    assert again.since == rows.since
