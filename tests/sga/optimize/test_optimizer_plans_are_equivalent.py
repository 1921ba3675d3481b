"""Every plan the optimizer ranks is equivalent to the program (thesis Def 35): on random
programs (the harness's, and path and join programs the rules apply to) and random streams
with deletions, each of the cheapest alternatives, priced over the stream's own statistics,
matches the brute-force reference at every change point. This checks the memo's plumbing
(children swapped between groups, renamed variables, rules composed) beyond each rule alone."""

from __future__ import annotations

from case_generators import DataChooser, gen_program, gen_stream
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from rule_support import EXAMPLES, join_program, mismatch_of, path_program, reference_of
from sgq.datalog.check import check_text
from sgq.sga.cost.statistics import collect
from sgq.sga.optimize.search import optimize
from sgq.sga.translate import translate


@settings(max_examples=EXAMPLES)
@given(st.data())
def test_every_ranked_plan_keeps_every_snapshot(data):
    ch = DataChooser(data)
    kind = ch.int(0, 2)
    if kind == 0:
        text = path_program(ch, ("closure", "concat", "alt", "any")[ch.int(0, 3)])
    elif kind == 1:
        text = join_program(ch)
    else:
        text = gen_program(ch)
    checked = check_text(text, "optimize.dl")
    edges = gen_stream(ch, checked.edb, deletions=True)
    skip = ("finite_paths",) if ch.bool(0.5) else ()
    reference = reference_of(text, edges)
    assume(reference is not None)
    result = optimize(translate(checked, skip=skip), collect(edges), alternatives=3)
    for ranked in result.ranked:
        mismatch = mismatch_of(text, ranked.plan, edges, reference)
        assert mismatch is None, mismatch
