"""The equivalence rules the optimizer explores (thesis 6.2), by name: each maps one plan
node to the equivalent nodes it can become (`()` when it does not apply), never changing the
node's label. Unlike the passes of pipeline.py, which always pay and always run, these are
alternatives: sga/optimize/ keeps whichever the cost model (sga/cost/) prices lowest.

Rules of thesis 6.2 not listed: 1 (commutativity of UNION) and 7 (of PATTERN) change only the
order of inputs, which the physical operators ignore; 2-6 (FILTER idempotence, conjunction,
disjunction, order, distributivity over UNION) have no plan of ours to improve, since
translation already puts each FILTER on its atom; 12-13 (WSCAN) move FILTER and UNION under a
window that the engine applies to the raw input anyway.
"""

from __future__ import annotations

from collections.abc import Callable

from ..algebra import Op
from .associate_pattern import associate_pattern
from .decompose_alternation import decompose_alternation
from .decompose_concatenation import decompose_concatenation
from .decompose_kleene_star import decompose_kleene_star
from .push_filter_into_pattern import push_filter_into_pattern
from .substitute_transition import substitute_transition

Rule = Callable[[Op], tuple[Op, ...]]

#: name -> (thesis rule number, the rule)
RULES: dict[str, tuple[int, Rule]] = {
    "decompose_kleene_star": (17, decompose_kleene_star),
    "decompose_concatenation": (14, decompose_concatenation),
    "decompose_alternation": (15, decompose_alternation),
    "substitute_transition": (16, substitute_transition),
    "associate_pattern": (8, associate_pattern),
    "push_filter_into_pattern": (9, push_filter_into_pattern),
}
