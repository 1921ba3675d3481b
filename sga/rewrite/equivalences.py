"""The equivalence rules the optimizer explores (thesis 6.2), by name: each maps one plan
node to the equivalent nodes it can become (`()` when it does not apply), never changing the
node's label. Unlike the passes of pipeline.py, which always pay and always run, these are
alternatives: sga/optimize/ keeps whichever the cost model (sga/cost/) prices lowest.

Rules of thesis 6.2 not listed (docs/optimizer.md, "Rules without a file"): 1 (commutativity
of UNION, commute_union.py) and 7 (of PATTERN, part of associate_pattern.py) change only the
order of inputs, which the physical operators ignore, so no plan differs in cost by them; the
thesis's list has no rule 11 (it runs 1-10, 12-17). Rule 13, `Wω(S1 ∪[d] S2) ≡ Wω(S1) ∪[d]
Wω(S2)` (merge_union_wscans.py), is listed and also one of `EXACT`: its left side, one WSCAN
over several labels that keeps each label's coverage apart (incremental/operators/
union_wscan.py, sound under `-` edges), does the work of the UNION of WSCANs with fewer
operators, so sga/optimize/search.py applies it wherever the cost model prices it lower,
without the margin that guards a change of plan shape.
"""

from __future__ import annotations

from collections.abc import Callable

from ..algebra import Op
from .associate_pattern import associate_pattern
from .decompose_alternation import decompose_alternation
from .decompose_concatenation import decompose_concatenation
from .decompose_kleene_star import decompose_kleene_star
from .drop_repeated_filter import drop_repeated_filter
from .merge_filtered_union import merge_filtered_union
from .merge_filters import merge_filters
from .merge_union_wscans import merge_union_wscans
from .push_filter_into_pattern import push_filter_into_pattern
from .push_filter_into_union import push_filter_into_union
from .push_filter_into_wscan import push_filter_into_wscan
from .substitute_transition import substitute_transition
from .swap_filters import swap_filters

Rule = Callable[[Op], tuple[Op, ...]]

#: name -> (thesis rule number, the rule)
RULES: dict[str, tuple[int, Rule]] = {
    "decompose_kleene_star": (17, decompose_kleene_star),
    "decompose_concatenation": (14, decompose_concatenation),
    "decompose_alternation": (15, decompose_alternation),
    "substitute_transition": (16, substitute_transition),
    "associate_pattern": (8, associate_pattern),
    "push_filter_into_pattern": (9, push_filter_into_pattern),
    "drop_repeated_filter": (2, drop_repeated_filter),
    "merge_filters": (3, merge_filters),
    "merge_filtered_union": (4, merge_filtered_union),
    "swap_filters": (5, swap_filters),
    "push_filter_into_union": (6, push_filter_into_union),
    "push_filter_into_wscan": (12, push_filter_into_wscan),
    "merge_union_wscans": (13, merge_union_wscans),
}

#: the rules whose alternative does the same work with fewer operators (no new plan shape):
#: the optimizer takes them wherever the estimated cost drops (sga/optimize/search.py)
EXACT: tuple[str, ...] = ("merge_union_wscans",)
