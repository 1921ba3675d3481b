"""`explain` in its three formats: text (shared nodes once), JSON (ids agree with the text),
DOT (a well-formed digraph, one node per operator, one edge per input)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest
from sga_support import plan_of
from sgq.sga.explain import describe, explain_data, explain_dot, explain_json, explain_text

NOTIFY = """.window 24h
.slide 1h
RL(u1, u2)   :- likes(u1, m1), follows+(u1, u2) as FP, posts(u2, m1).
Notify(u, m) :- RL+(u, v) as RLP, posts(v, m).
Answer(u, m) :- Notify(u, m).
"""

MIXED = """.output Answer, Loops
Answer(x, y) :- [a/b*](x, "c0"), x != "d", b(y, _), y != x.
Answer(x, y) :- b(y, x).
Loops(x, x) :- a*(x, x).
"""


def test_text_prints_shared_nodes_once():
    assert explain_text(plan_of(NOTIFY)) == (
        "order: likes, follows, posts, RL, Notify, Answer\n"
        "output Answer:\n"
        "  #1 RENAME[src, trg -> Answer]\n"
        "    #2 PATTERN[src1, trg2 -> Notify](trg1 = src2)\n"
        "      #3 PATH[RL+ as RLP]\n"
        "        #4 PATTERN[src1, trg2 -> RL](src1 = src2, trg2 = src3, trg1 = trg3)\n"
        "          #5 WSCAN[likes](ω=86400, β=3600)\n"
        "          #6 PATH[follows+ as FP]\n"
        "            #7 WSCAN[follows](ω=86400, β=3600)\n"
        "          #8 WSCAN[posts](ω=86400, β=3600)\n"
        "      #8 (shared) WSCAN[posts](ω=86400, β=3600)\n"
    )


def test_text_of_filters_unions_conditions_and_domains():
    assert explain_text(plan_of(MIXED)) == (
        "order: a, b, Answer, Loops\n"
        "output Answer:\n"
        "  #1 UNION[Answer]\n"
        '    #2 PATTERN[src1, src2 -> Answer](src1 != "d", src2 != src1)\n'
        '      #3 FILTER[trg = "c0"]\n'
        "        #4 PATH[a/b*]\n"
        "          #5 WSCAN[a](ω=10, β=1)\n"
        "          #6 WSCAN[b](ω=10, β=1)\n"
        "      #6 (shared) WSCAN[b](ω=10, β=1)\n"
        "    #7 RENAME[trg, src -> Answer]\n"
        "      #6 (shared) WSCAN[b](ω=10, β=1)\n"
        "output Loops:\n"
        "  #8 RENAME[src, trg -> Loops]\n"
        "    #9 FILTER[src = trg]\n"
        "      #10 PATH[a*]\n"
        "        #5 (shared) WSCAN[a](ω=10, β=1)\n"
        "        #11 VERTICES[V](a, b)\n"
        "          #5 (shared) WSCAN[a](ω=10, β=1)\n"
        "          #6 (shared) WSCAN[b](ω=10, β=1)\n"
    )


@pytest.mark.parametrize("text", [NOTIFY, MIXED])
def test_json_ids_agree_with_text(text):
    plan = plan_of(text)
    data = json.loads(explain_json(plan))
    assert data == explain_data(plan)
    ops = data["operators"]
    assert [op["id"] for op in ops] == list(range(1, len(ops) + 1))
    assert len(ops) == len(list(plan.nodes()))
    shown = explain_text(plan)
    for op in ops:
        assert f"#{op['id']} {op['text']}\n" in shown
        assert all(1 <= i <= len(ops) and i != op["id"] for i in op["inputs"])
    assert data["order"] == list(plan.order)
    assert [ops[i - 1]["label"] for i in data["outputs"]] == [r.label for r in plan.outputs]


def test_json_parameters_of_pattern_and_path():
    ops = explain_data(plan_of(NOTIFY))["operators"]
    rl = next(op for op in ops if op["label"] == "RL")
    assert rl["kind"] == "PATTERN"
    assert rl["parameters"]["bindings"] == [["u1", "m1"], ["u1", "u2"], ["u2", "m1"]]
    assert rl["parameters"]["head_refs"] == ["src1", "trg2"]
    fp = next(op for op in ops if op["label"] == "FP")
    assert fp["parameters"] == {"regex": "follows+", "nullable": False}
    scan = next(op for op in ops if op["label"] == "likes")
    assert scan["parameters"] == {"window": 86400, "slide": 3600} and scan["inputs"] == []


def test_json_path_domain_is_referenced():
    ops = explain_data(plan_of(MIXED))["operators"]
    path = next(op for op in ops if op["kind"] == "PATH" and op["parameters"]["nullable"])
    domain = ops[path["domain"] - 1]
    assert domain["kind"] == "VERTICES" and len(domain["inputs"]) == 2


NODE = re.compile(r'^  n(\d+) \[label="((?:[^"\\]|\\.)*)"(, style=bold)?\];$')
EDGE = re.compile(r'^  n(\d+) -> n(\d+)( \[style=dashed, label="ε"\])?;$')


@pytest.mark.parametrize("text", [NOTIFY, MIXED])
def test_dot_is_a_well_formed_digraph(text):
    plan = plan_of(text)
    dot = explain_dot(plan)
    lines = dot.splitlines()
    assert lines[0] == "digraph sga {" and lines[-1] == "}"
    nodes, edges = set(), []
    for line in lines[1:-1]:
        if line.strip().startswith(("rankdir", "node [")):
            continue
        if m := NODE.match(line):
            nodes.add(int(m.group(1)))
        elif m := EDGE.match(line):
            edges.append((int(m.group(1)), int(m.group(2))))
        else:
            pytest.fail(f"unexpected DOT line: {line!r}")
    ops = list(plan.nodes())
    assert nodes == set(range(1, len(ops) + 1))
    expected_edges = sum(len(op.inputs) + (getattr(op, "domain", None) is not None) for op in ops)
    assert len(edges) == expected_edges
    assert all(a in nodes and b in nodes for a, b in edges)


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz not installed")
def test_graphviz_accepts_the_dot():
    dot = explain_dot(plan_of(MIXED))
    subprocess.run(["dot", "-Tsvg"], input=dot, text=True, check=True, capture_output=True)


def test_output_is_deterministic():
    def render():
        plan = plan_of(MIXED)
        return [explain_text(plan), explain_json(plan), explain_dot(plan)]

    assert render() == render()


def test_describe_reversed_rename_and_generated_path_names():
    plan = plan_of("Answer(y, x) :- [a*/b](x, y).")
    (out,) = plan.outputs
    assert describe(out) == "RENAME[trg, src -> Answer]"
    assert describe(out.input) == "PATH[a*/b]"
