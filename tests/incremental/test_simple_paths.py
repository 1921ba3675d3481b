"""Simple-path semantics (specs/semantics.md §4a): the conflict-free class, witnesses that are
simple paths, and the budget that stops a conflict-heavy search with a message. (Results
against the brute-force reference: the harness, tests/harness/, whose programs carry
`simple` atoms.)"""

from __future__ import annotations

import pytest
from sgq.base.dfa import compile_regex
from sgq.base.suffix_languages import conflict_free, shortcut
from sgq.incremental.state.simple_search import SimplePathBudgetError

import sgq
from sgq.api import PlanOptions
from sgq.cli import main

L = ("label", "a"), ("label", "b"), ("label", "c")
A, B, C = L


@pytest.mark.parametrize(
    "regex, free",
    [
        (("star", A), True),  # Q1 a*
        (("plus", A), True),  # a+: a walk back to the root goes on in a+
        (("star", ("alt", A, B, C)), True),  # Q4
        (("plus", ("alt", A, B, C)), True),  # Q9
        (("concat", ("star", A), ("star", B)), True),  # Q6 a*/b*
        (("concat", ("opt", A), ("star", B)), True),  # Q8 a?/b*
        (("concat", A, ("star", B)), False),  # Q2 a/b*
        (("concat", A, B, ("star", C)), False),  # Q7
        (("concat", A, B, C), False),  # Q11: finite, but x -a-> v -b-> x -c-> y
        (("star", ("concat", A, B)), False),  # (a/b)*
    ],
)
def test_conflict_free_automata(regex, free):
    assert conflict_free(compile_regex(regex)) is free


def test_shortcut_cuts_each_vertex_to_its_last_visit():
    assert shortcut(["x", "v", "x", "y"], ["xv", "vx", "xy"]) == ["xy"]
    assert shortcut(["x", "v", "w", "v", "y"], [1, 2, 3, 4]) == [1, 4]
    assert shortcut(["x", "y"], ["xy"]) == ["xy"]


def test_explain_names_simple_atoms_and_the_conflict_free_ones():
    text = ".window 10\nAnswer(x, y) :- simple knows+(x, z), simple [a/b*](z, y).\n"
    plan = sgq.compile(text).explain()
    assert "FILTER" not in plan  # a simple PATH's arbitrary-path operators drop (x, x)
    assert "PATH[simple knows+; conflict-free: arbitrary-path cost]" in plan
    assert "PATH[simple a/b*; RSPQ]" in plan


def _is_simple_word(path, x, y, regex):
    vertices = [x] + [trg for _src, trg, _label in path]
    linked = all(a[1] == b[0] for a, b in zip(path, path[1:])) and path[0][0] == x
    return linked and vertices[-1] == y and len(set(vertices)) == len(vertices), regex.accepts(
        [label for _s, _t, label in path]
    )


@pytest.mark.parametrize("rewrites", [(), ("relax_simple_paths",)])
@pytest.mark.parametrize("regex", ["a*", "a/b*"])
def test_witnesses_are_simple_paths(regex, rewrites):
    """`x -a-> v -b-> x -b-> y`, `x -a-> w -b-> y`: the simple witness of (x, y) avoids the
    cycle (for a* through S-PATH's tree cut to a simple path)."""
    text = f".window 100\nAnswer(x, y) :- simple [{regex}](x, y).\n"
    query = sgq.compile(text, options=PlanOptions(skip_rewrites=rewrites))
    engine = query.engine(paths=True)
    edges = [("x", "v", "a", 1), ("v", "x", "b", 2), ("x", "y", "b", 3), ("x", "y", "a", 3)]
    edges += [("v", "w", "a", 4), ("w", "y", "b", 5), ("x", "w", "a", 6)]
    for e in edges:
        engine.push(*e)
    engine.close()
    dfa = compile_regex(("star", A) if regex == "a*" else ("concat", A, ("star", B)))
    checked = 0
    for r in engine.drain():
        if r.path:
            simple, accepted = _is_simple_word(r.path, r.src, r.trg, dfa)
            assert simple and accepted, r
            checked += 1
    assert checked


CLIQUE = 7
REGEX = "a/b*/c/b/d"


def _conflicting_stream():
    """`simple [a/b*/c/b/d]` from x: every walk to y runs `z -c-> t -b-> z -d-> y`, through z
    twice (a conflict: no cut of it spells a word of the language), so y is unmarked, and the
    search enumerates every simple path through the b-clique before it knows that none reaches
    y; `x2 -a-> m -c-> n -b-> o -d-> p` is a simple result."""
    edges = [("x", "k0", "a", 1), ("z", "t", "c", 1), ("t", "z", "b", 1), ("z", "y", "d", 1)]
    edges += [("x2", "m", "a", 1), ("m", "n", "c", 1), ("n", "o", "b", 1), ("o", "p", "d", 1)]
    clique = [f"k{i}" for i in range(CLIQUE)]
    for i in clique:
        edges += [(i, j, "b", 3) for j in clique if j != i] + [(i, "z", "b", 3)]
    return edges


def test_a_conflict_heavy_input_stops_at_the_budget_with_the_atom_and_vertex():
    text = f".window 100\nAnswer(x, y) :- simple [{REGEX}](x, y) as Flow.\n"
    engine = sgq.compile(text, options=PlanOptions(simple_budget=2000)).engine()
    with pytest.raises(SimplePathBudgetError) as info:
        engine.push_batch([(*e, "+") for e in _conflicting_stream()])
        engine.close()
    message = str(info.value)
    assert "'Flow'" in message and "budget of 2000 steps" in message
    assert "conflicts exploded at vertex 'z'" in message
    # with room enough the same input is answered, without (x, y): no simple path spells it
    engine = sgq.compile(text).engine()
    engine.push_batch([(*e, "+") for e in _conflicting_stream()])
    engine.close()
    assert ("x", "y", "Answer") not in engine.snapshot(3)
    assert ("x2", "p", "Answer") in engine.snapshot(3)


def test_sgq_run_reports_the_budget_without_a_traceback(tmp_path, capsys):
    (tmp_path / "q.dl").write_text(f".window 100\nAnswer(x, y) :- simple [{REGEX}](x, y).\n")
    rows = ["src,trg,label,ts"] + [",".join(map(str, e)) for e in _conflicting_stream()]
    (tmp_path / "e.csv").write_text("\n".join(rows) + "\n")
    code = main(
        ["run", str(tmp_path / "q.dl"), "-i", str(tmp_path / "e.csv")] + ["--simple-budget", "500"]
    )
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert f"simple paths of 'simple [{REGEX}]'" in err and "--simple-budget" in err


def test_a_new_simple_path_below_the_trees_bound_is_found():
    """`(x, y)` is unmarked (the widest walk `x -a-> v -b-> x -b-> y` conflicts, and no simple
    path spells a/b*); the later `x -a-> w` makes the simple `x -a-> w -b-> y`, which ends
    before the walk does, so the tree's node of y does not grow: the unmarked result is
    searched again because the new edge leaves a node of `T_x`."""
    text = ".window 100\nAnswer(x, y) :- simple [a/b*](x, y).\n"
    engine = sgq.compile(text).engine()
    edges = [("w", "y", "b", 0), ("x", "y", "b", 1), ("x", "v", "a", 2), ("v", "x", "b", 2)]
    for e in edges + [("x", "w", "a", 3)]:
        engine.push(*e)
    engine.close()
    assert ("x", "y", "Answer") not in engine.snapshot(2)
    assert ("x", "y", "Answer") in engine.snapshot(3)
    assert ("x", "y", "Answer") in engine.snapshot(99)
    assert ("x", "y", "Answer") not in engine.snapshot(100)


def test_the_completion_past_a_conflict_free_state_avoids_the_prefix():
    """`simple [a/b/c*]`: past `x -a-> q -b-> w` (state of c*, where nothing conflicts) the
    widest walk `w -c-> q -c-> y` goes back through q, on the prefix; the simple path is the
    older `w -c-> m -c-> y`, which ends at 100."""
    text = ".window 100\nAnswer(x, y) :- simple [a/b/c*](x, y).\n"
    engine = sgq.compile(text).engine()
    edges = [("w", "m", "c", 0), ("m", "y", "c", 0), ("x", "q", "a", 1), ("q", "w", "b", 1)]
    for e in edges + [("w", "q", "c", 2), ("q", "y", "c", 2)]:
        engine.push(*e)
    engine.close()
    assert ("x", "w", "Answer") in engine.snapshot(2)
    assert ("x", "y", "Answer") in engine.snapshot(99)
    assert ("x", "y", "Answer") not in engine.snapshot(100)
