"""Rule 13 of the thesis (merge_union_wscans): the equivalence property (rule_support.py) on
plans with UNIONs over two or three labels' scans, with windows alike or not, and on the
UNIONs rule 15 makes of an alternation; the rule is applied once (UNION -> one WSCAN over the
labels) and now and then again (that WSCAN back to a UNION of one WSCAN per label)."""

from __future__ import annotations

from case_generators import DataChooser
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from rule_support import EXAMPLES, apply_rule, mismatch_of, rule_case
from sgq.sga.algebra import Plan, Rename, Union, WScan
from sgq.sga.explain import explain_data, explain_dot, explain_text
from sgq.sga.rewrite.decompose_alternation import decompose_alternation
from sgq.sga.rewrite.decompose_kleene_star import decompose_kleene_star
from sgq.sga.rewrite.merge_union_wscans import merge_union_wscans


def union_program(ch) -> str:
    """A predicate D of 2-4 rules, most of them one atom of a, b or c (a UNION of scans; a
    reversed one or a join stays beside the merged scan), read as the answer, in a join or
    under a closure; b has its own window now and then (not merged with a and c then)."""
    bodies = ["a(x, y)", "b(x, y)", "c(x, y)", "b(y, x)", "a(x, z), c(z, y)"]
    rules = {f"D(x, y) :- {ch.choice(bodies)}." for _ in range(ch.int(2, 4))}
    uses = ["D(x, y)", "D(x, z), c(z, y)", "[D+](x, y)", 'D(x, y), x != "1"']
    window = ch.int(2, 12)
    slide = ch.int(1, window) if ch.bool(0.3) else 1
    lines = [f".window {window}", f".slide {slide}"]
    if ch.bool(0.2):
        lines.append(f".window {ch.int(max(2, slide), 12)} for b")
    lines += sorted(rules) + [f"Answer(x, y) :- {ch.choice(uses)}."]
    return "\n".join(lines) + "\n"


def _merge_and_maybe_split(ch, plan: Plan) -> tuple[Plan, int]:
    plan, applied = apply_rule(plan, merge_union_wscans, ch)
    if ch.bool(0.3):
        plan, _ = apply_rule(plan, merge_union_wscans, ch)
    return plan, applied


@settings(max_examples=EXAMPLES)
@given(st.data())
def test_merge_union_wscans_keeps_every_snapshot(data):
    ch = DataChooser(data)
    text = union_program(ch)
    plan, _, edges = rule_case(ch, text, lambda op: ())
    plan, applied = _merge_and_maybe_split(ch, plan)
    assume(applied)
    mismatch = mismatch_of(text, plan, edges)
    assert mismatch is None, mismatch


def alternation_program(ch) -> str:
    """`Answer(x, y) :- [R](x, y).` with R an alternation of 2-3 letters of a, b, c and now
    and then a concatenation, under `+` or `*` half the time (rpq10's shape)."""
    options = list(dict.fromkeys(ch.choice("abc") for _ in range(ch.int(2, 3))))
    if len(options) < 2:
        options.append("c" if options[0] != "c" else "a")
    if ch.bool(0.3):
        options.append(ch.choice(("a/b", "c/a")))
    regex = "|".join(options)
    if ch.bool(0.5):
        regex = f"({regex}){ch.choice('+*')}"
    window = ch.int(2, 12)
    slide = ch.int(1, window) if ch.bool(0.3) else 1
    return f".window {window}\n.slide {slide}\nAnswer(x, y) :- [{regex}](x, y).\n"


@settings(max_examples=EXAMPLES)
@given(st.data())
def test_merge_union_wscans_after_the_path_rules_keeps_every_snapshot(data):
    """Rule 17 (under a closure), then 15 and 16 make the UNION of the letters' scans."""
    ch = DataChooser(data)
    text = alternation_program(ch)
    plan, _, edges = rule_case(ch, text, decompose_kleene_star, skip=("finite_paths",))
    plan, _ = apply_rule(plan, decompose_alternation, ch)
    plan, applied = _merge_and_maybe_split(ch, plan)
    assume(applied)
    mismatch = mismatch_of(text, plan, edges)
    assert mismatch is None, mismatch


def test_merge_union_wscans_golden():
    """Before and after in `explain` notation: renamed and plain scans of one window merge,
    a reversed one stays, and the merged scan splits back into one WSCAN per label."""
    a, b, c = (WScan(name, 10, 1) for name in "abc")

    union = Union((Rename(a, "D"), b, Rename(c, "D", reverse=True)), "D")
    (merged,) = merge_union_wscans(union)
    assert explain_text(Plan((merged,))) == (
        "order: \n"
        "output D:\n"
        "  #1 UNION[D]\n"
        "    #2 WSCAN[a, b -> D](ω=10, β=1)\n"
        "    #3 RENAME[trg, src -> D]\n"
        "      #4 WSCAN[c](ω=10, β=1)\n"
    )
    (scan,) = merge_union_wscans(Union((a, b), "D"))
    assert merge_union_wscans(scan) == (Union((a, b), "D"),)
    (entry,) = explain_data(Plan((scan,)))["operators"]
    assert entry["kind"] == "WSCAN" and entry["label"] == "D"
    assert entry["parameters"] == {"window": 10, "slide": 1, "labels": ["a", "b"]}
    assert '"#1 WSCAN[a, b -> D](ω=10, β=1)"' in explain_dot(Plan((scan,)))
    assert merge_union_wscans(Union((a, WScan("b", 20, 1)), "D")) == ()
