"""The search prices a bounded number of an expression's child combinations, cheapest-ranked
first (sga/optimize/search.py `_combinations`): with no bound it is the whole product, in
rising order of rank sums; with one, a prefix of that order."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st
from sgq.sga.optimize.search import _combinations

_choices = st.lists(st.integers(0, 4), max_size=4).map(
    # list i holds (i, rank) for its ranks, so a tuple names its ranks
    lambda sizes: [[(i, r) for r in range(n)] for i, n in enumerate(sizes)]
)


@given(_choices, st.integers(1, 40))
def test_combinations_are_the_product_by_rising_rank_sum(choices, limit):
    everything = list(_combinations(choices, 10**6))
    assert sorted(everything) == sorted(itertools.product(*choices))
    sums = [sum(r for _i, r in combo) for combo in everything]
    assert sums == sorted(sums)
    got = list(_combinations(choices, limit))
    assert got == everything[:limit]


def test_an_expression_without_children_is_one_combination():
    assert list(_combinations([], 5)) == [()]
