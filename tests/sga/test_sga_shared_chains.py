"""The shared-chains rewrite (sga/rewrite/shared_chains.py): which PATTERNs become nested ones,
and which keep their flat join."""

from __future__ import annotations

import pytest
from sgq.datalog.check import check_text
from sgq.sga.algebra import Pattern, Rename, WScan
from sgq.sga.translate import translate


def _root(text: str, skip=()):
    plan = translate(check_text(".window 10\n" + text), skip=skip)
    op = plan.outputs[0]
    return op.input if isinstance(op, Rename) else op


def _shape(op) -> object:
    """Nested PATTERNs as nested lists of their inputs' labels."""
    if isinstance(op, Pattern):
        return [_shape(i) for i in op.inputs]
    return op.label


def test_finite_path_is_right_deep():
    op = _root("Answer(x, y) :- [knows/likes/hasCreator](x, y).")
    assert _shape(op) == ["knows", ["likes", "hasCreator"]]
    inner = op.inputs[1]
    assert inner.label == "[likes/hasCreator]"
    # the outer join binds the inner result on (a, y): a chain of two
    assert op.bindings[0][1] == op.bindings[1][0]
    assert op.head == (op.bindings[0][0], op.bindings[1][1])


def test_four_hop_chain_nests_twice():
    op = _root("Answer(x, y) :- a(x, p), b(p, q), c(q, r), d(r, y).")
    assert _shape(op) == ["a", ["b", ["c", "d"]]]


def test_chain_with_reversed_atoms_keeps_path_orientation():
    op = _root("Answer(x, y) :- a(x, p), b(q, p), c(q, y).")
    assert _shape(op) == ["a", ["b", "c"]]
    assert op.inputs[1].label == "[^b/c]"
    assert op.inputs[1].head == ("p", "y")


def test_closing_link_becomes_a_join_on_both_endpoints():
    op = _root("Answer(x, y) :- knows+(x, y), likes(x, m), hasCreator(m, y).")
    assert _shape(op) == ["knows+", ["likes", "hasCreator"]]
    assert set(op.bindings) == {("x", "y")}


@pytest.mark.parametrize(
    "text",
    [
        # a cycle without a closing atom (SGA Q5): merging would build a product
        "Answer(m1, m2) :- knows(x, y), hasCreator(m1, x), hasCreator(m2, y), replyOf(m2, m1).",
        # the linking variable is read by the head, or by a condition
        "Answer(x, m) :- a(x, m), b(m, y), c(y, z).",
        "Answer(x, y) :- a(x, m), b(m, n), c(n, y), m != n.",
        # a star, not a chain
        "Answer(x, y) :- a(x, y), b(x, p), c(x, q).",
        # two atoms: nothing to share
        "Answer(x, y) :- a(x, m), b(m, y).",
    ],
)
def test_other_joins_stay_flat(text):
    op = _root(text)
    assert isinstance(op, Pattern)
    assert all(not isinstance(i, Pattern) for i in op.inputs), _shape(op)


def test_skipped_by_name():
    op = _root("Answer(x, y) :- [knows/likes/hasCreator](x, y).", skip={"shared_chains"})
    assert _shape(op) == ["knows", "likes", "hasCreator"]
    assert all(isinstance(i, WScan) for i in op.inputs)
