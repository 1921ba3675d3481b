"""The EdgeIndex's map by trg is kept only once a reader asks for it (state/edge_index.py
`by_targets`): built then from the rows by src, it holds the same entries as a map kept from
the first insert would, through later inserts, cuts and purges, and across a checkpoint;
an index nobody asks keeps no second map at all."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from incremental_support import compile_text
from sgq.incremental.state.edge_index import EdgeIndex
from sgq.incremental.stateful import restore_into, state_of

_vertex = st.sampled_from("abcd")
_step = st.one_of(
    st.tuples(st.just("insert"), _vertex, _vertex, st.integers(0, 2), st.integers(1, 6)),
    st.tuples(st.just("cut"), _vertex, _vertex, st.integers(0, 3)),
    st.tuples(st.just("purge")),
    st.tuples(st.just("tick"), st.integers(1, 3)),
    st.tuples(st.just("ask")),
)


def _by_target(index: EdgeIndex) -> dict:
    """`{t: {s: (ts, exp, start)}}` of the index's map by trg, every entry checked to be the
    one its row by src holds."""
    out: dict = {}
    for t, col in index.by_targets().items():
        for s, entry in col.items():
            assert index.by_src[s][t] is entry
            out.setdefault(t, {})[s] = (entry.ts, entry.exp, entry.start)
    return out


@given(st.lists(_step, max_size=40))
def test_a_map_built_when_first_asked_is_the_one_kept_from_the_start(steps):
    eager, lazy = EdgeIndex(), EdgeIndex()
    eager.by_targets()  # kept from the first insert on
    now = 0
    for step in steps:
        if step[0] == "insert":
            _, s, t, back, ahead = step
            for index in (eager, lazy):
                index.insert(s, t, max(0, now - back), now + ahead, None, now)
        elif step[0] == "cut":
            _, s, t, ahead = step
            entry = eager.get(s, t)
            if entry is not None and entry.exp > now:
                exp = min(entry.exp, now + ahead)
                for index in (eager, lazy):
                    index.cut(s, t, exp, None, now)
        elif step[0] == "purge":
            for index in (eager, lazy):
                index.purge(now)
        elif step[0] == "tick":
            now += step[1]
        else:
            lazy.by_targets()
        eager._check()
        lazy._check()
        assert len(lazy) == len(eager)
    assert _by_target(lazy) == _by_target(eager)
    assert lazy.targets() == eager.targets()


def test_an_index_nobody_asks_keeps_one_map_and_saves_none():
    index = EdgeIndex()
    index.insert("a", "b", 0, 10, None, 0)
    index.insert("c", "b", 1, 11, None, 1)
    index.purge(10)
    assert index.by_trg is None and len(index) == 1
    index._check()
    saved = state_of(index)
    again = EdgeIndex()
    restore_into(again, saved)
    assert again.by_trg is None and again.by_src.keys() == {"c"}
    assert again.predecessors("b").keys() == {"c"}  # asked now: built from the rows
    restore_into(again, state_of(again))  # and saved, once kept
    assert again.by_trg is not None and again.predecessors("b").keys() == {"c"}


def _indexes_with_map(text: str, edges: list) -> list[bool]:
    eng = compile_text(".window 10\n" + text).engine()
    eng.push_batch(edges)
    return [index.by_trg is not None for index in eng.dataflow.indexes if index is not None]


def test_a_path_over_chains_and_a_meet_on_both_ends_ask_for_no_map_by_trg():
    """S-PATH reads its input rows by src, and a PATTERN meeting two inputs on both their
    ends probes each by src and trg bound: no index of theirs keeps a map by trg; a step from
    a bound trg asks for one."""
    edges = [(1, 2, "a", 0), (2, 3, "b", 1), (1, 3, "c", 2), (2, 3, "a", 3)]
    assert not any(_indexes_with_map("Answer(x, y) :- [a/b*](x, y).", edges))
    both = "Answer(x, y) :- a(x, y), c(x, y)."
    assert not any(_indexes_with_map(both, edges))
    chain = "Answer(x, z) :- a(x, y), b(y, z), c(z, w)."
    assert any(_indexes_with_map(chain, edges + [(3, 4, "c", 4)]))
