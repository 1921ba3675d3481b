"""A run resumed from a checkpoint at any point has the history of one that never stopped,
with `-` edges after the resume too, for each PATH operator (incremental/stateful.py).

The first test is the case that failed: a held successor with followers (the closure PATH's
sole-edge sources, state/follower_rows.py) was restored without its rows logged by source, so
at the hand-over to S-PATH that a deletion makes, its followers' rows were lost and their
results outlived the deleted edge."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from incremental_support import assert_checkpoint_round_trip, compile_text, timed

from sgq.options import PlanOptions

OPERATORS = ("auto", "closure", "spath")
QUERIES = (
    ".window 10\n.slide 5\nAnswer(x, y) :- [a/b*](x, y).",
    ".window 10\n.slide 5\nAnswer(x, y) :- [(a|b)+](x, y).",
)


def _query(text: str, path_operator: str):
    return compile_text(text, options=PlanOptions(path_operator=path_operator))


@pytest.mark.parametrize("path_operator", OPERATORS)
def test_a_held_successors_followers_keep_their_rows_across_a_resume(path_operator):
    # 1 is a sole-edge source into 2, whose one final state is held; 2 -> 3 comes after the
    # resume, and its deletion ends (1, 3) at 3
    edges = [("1", "2", "a", 0), ("2", "3", "b", 1), ("2", "3", "b", 3, "-")]
    assert_checkpoint_round_trip(_query(QUERIES[0], path_operator), edges, 1)


EDGES = st.lists(
    st.tuples(
        st.sampled_from("1234"),
        st.sampled_from("1234"),
        st.sampled_from("ab"),
        st.sampled_from((0, 1, 2, 4)),
        st.sampled_from("+++-"),
    ),
    max_size=14,
)


@settings(max_examples=60, deadline=None)
@given(EDGES, st.integers(0, 14), st.sampled_from(QUERIES), st.sampled_from(OPERATORS))
def test_a_resumed_run_has_the_history_of_one_that_never_stopped(edges, cut, text, operator):
    edges = timed(edges)
    assert_checkpoint_round_trip(_query(text, operator), edges, min(cut, len(edges)))
