"""The bit helpers of the closure states (state/product_nodes.py) against plain definitions:
`bits` on masks narrow and wide, sparse and dense (bit by bit up to the 40th bit; a dense mask's
rest by its binary text up to 640 bits wide, by numpy beyond), and
`fresh_vertices` against a fold of whole masks, with several final states per vertex; cold
vertices (interned aside, promoted, recycled, saved)."""

from __future__ import annotations

import json
from unittest.mock import patch

from hypothesis import given, settings
from hypothesis import strategies as st
from sgq.incremental.state.level_closure import LevelClosure
from sgq.incremental.state.product_nodes import COLD, ProductNodes, bits

from sgq.state_codec import decode, encode

_positions = (
    st.sets(st.integers(0, 5000), max_size=120)
    | st.sets(st.integers(0, 700), max_size=300)
    | st.sets(st.integers(0, 1100), min_size=35, max_size=200)
)


def _mask(positions) -> int:
    return sum(1 << p for p in positions)


@settings(max_examples=200)
@given(_positions)
def test_bits_are_the_set_positions(positions):
    assert sorted(bits(_mask(positions))) == sorted(positions)


def test_wide_dense_masks_read_by_text_then_by_numpy(monkeypatch):
    """The first wide dense masks are read by their binary text, the later ones by numpy:
    both give the set positions."""
    from sgq.incremental.state import product_nodes

    monkeypatch.setattr(product_nodes, "_wide_before_numpy", 2)
    for k in range(5):
        positions = set(range(k, 3000, 7)) | {3100 + k}
        assert sorted(bits(_mask(positions))) == sorted(positions)
    assert product_nodes._wide_before_numpy == 0


@settings(max_examples=300)
@given(
    st.integers(1, 3),
    st.sets(st.integers(0, 2), min_size=1),
    st.sets(st.integers(0, 3000), max_size=80),
    st.sets(st.integers(0, 3000), max_size=80) | st.sets(st.integers(0, 200), max_size=150),
)
def test_fresh_vertices_are_the_vertices_with_a_final_node_gained_and_none_held(
    ns, finals, held_at, gained_at
):
    finals = {q for q in finals if q < ns} or {0}
    nodes = ProductNodes(ns, 0, finals)
    nodes._grow(3001 // ns + 1)
    held = _mask(held_at)
    gained = _mask(gained_at) & ~held
    want = {
        v * ns
        for v in range(3001 // ns + 1)
        if any(gained >> (v * ns + f) & 1 for f in finals)
        and not any(held >> (v * ns + f) & 1 for f in finals)
    }
    got = nodes.fresh_vertices(held, gained)
    assert len(got) == len(set(got))  # each vertex once, however many final nodes it gained
    assert set(got) == want


def test_a_vertex_whose_final_nodes_straddle_the_40th_bit_comes_once():
    """43 final nodes: 39 single ones high up, and both of vertices 0 and 1: `bits` gives 40
    from the top (vertex 1's higher node last) and the rest lowest first (vertex 0's two, then
    vertex 1's lower one)."""
    nodes = ProductNodes(2, 0, {0, 1})
    nodes._grow(200)
    gained = 0b1111 | _mask(2 * v for v in range(10, 49))
    got = nodes.fresh_vertices(0, gained)
    assert sorted(got) == [0, 2] + [2 * v for v in range(10, 49)]


def test_cold_vertices_are_kept_aside_promoted_recycled_and_saved():
    """A cold vertex takes no dense index (the next dense one is still the lowest free) until
    promoted; it is recycled when its tuples expire, and a checkpoint keeps it cold."""
    nodes = LevelClosure(2, 0, [1])
    a = nodes.intern("a", 10, cold=True)
    b = nodes.intern("b", 10)
    c = nodes.intern("c", 20, cold=True)
    assert (a, b, c) == (COLD, 0, COLD + 1)
    assert nodes.intern("a", 30) == COLD and nodes.cold_exp[COLD] == 30  # still cold
    assert [nodes.name_of(i) for i in (a, b, c)] == ["a", "b", "c"]
    saved = json.loads(json.dumps(encode({"nodes": nodes})))
    again = LevelClosure(2, 0, [1])
    decode(saved, {"nodes": again})
    assert again.vid == nodes.vid and again.cold == nodes.cold
    assert again.intern("d", 5, cold=True) == COLD + 2
    nodes._check_vertices()
    assert nodes.promote(c) == 1 and nodes.name_of(1) == "c" and COLD + 1 not in nodes.cold
    nodes.recycle(25)  # b and c expired; a (until 30) stays, cold
    assert nodes.vid == {"a": COLD}
    nodes._check_vertices()


@settings(max_examples=150)
@given(
    st.integers(1, 3),
    st.sets(st.integers(0, 80), max_size=80)
    | st.builds(lambda k, r: set(r.sample(range(1501), k)), st.integers(0, 600), st.randoms()),
    st.booleans(),
)
def test_sorted_vertex_names_name_a_vertex_mask(nstates, indexes, numpy_now):
    """The names of a vertex mask (bit `i * nstates` per vertex index i), sparse or dense
    enough to be read in C, narrow or wide (positions picked, by text or numpy, or every
    name walked), sorted."""
    from sgq.incremental.state import product_nodes

    nodes = LevelClosure(nstates, 0, [nstates - 1])
    names = [f"v{i:04}" for i in range(1501)]
    for v in names:
        nodes.intern(v, 10)
    mask = sum(1 << (i * nstates) for i in indexes)
    with patch.object(product_nodes, "_wide_before_numpy", 0 if numpy_now else 10**6):
        assert nodes.sorted_vertex_names(mask) == sorted(names[i] for i in indexes)


def test_kept_vertex_names_go_when_an_index_is_freed():
    """A vertex mask's names are kept, until an index is freed: it may then name another
    vertex, and the mask is named again."""
    nodes = LevelClosure(2, 0, [1])
    a, b = nodes.intern("a", 10), nodes.intern("b", 20)
    mask = 1 << (a * 2) | 1 << (b * 2)
    first = nodes.sorted_vertex_names(mask)
    assert first == ["a", "b"] and nodes.sorted_vertex_names(mask) is first  # kept
    nodes.recycle(15)  # a's tuples expired: its index is free
    assert nodes.intern("c", 30) == a  # the freed index names c now
    assert nodes.sorted_vertex_names(mask) == ["b", "c"]
