"""Print a plan: text (the papers' notation), JSON (for tools) and Graphviz DOT.

Every operator gets an id `#n`, numbered in pre-order from the outputs (children in input
order, a PATH's domain last), so the three formats agree and the output is deterministic.
In the text tree a shared node (a WSCAN read by two PATTERNs, a derived predicate read twice)
is printed in full once and referenced by id afterwards: the plan is a DAG (thesis 5.2.2).

Operator lines follow thesis 5.2.1: `WSCAN[likes](ω=86400, β=3600)` (over several labels,
rule 13: `WSCAN[likes, hasCreator -> LH](...)`), `FILTER[trg = "x"]`,
`PATTERN[src1, trg2 -> RL](trg1 = src2, ...)`, `PATH[follows+ as FP]`, `UNION[Ans]`,
`RENAME[trg, src -> A]`, `VERTICES[V](likes, posts)`.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from .algebra import (
    Attribute,
    BoundPath,
    Filter,
    Op,
    Path,
    Pattern,
    Plan,
    Rename,
    Union,
    Vertices,
    WScan,
    children,
    op_kind,
    regex_text,
)


def number(plan: Plan) -> dict[Op, int]:
    """Each distinct node -> its id: pre-order from the outputs, first visit wins."""
    ids: dict[Op, int] = {}
    todo = list(reversed(plan.outputs))  # (a stack: iterative, for plans of any depth)
    while todo:
        op = todo.pop()
        if op not in ids:
            ids[op] = len(ids) + 1
            todo.extend(reversed(children(op)))
    return ids


def _pattern_refs(op: Pattern) -> dict[str, str]:
    """Each variable -> its first position, `src1`, `trg2`, ... (thesis Def 33 notation)."""
    refs: dict[str, str] = {}
    for i, (s, t) in enumerate(op.bindings, start=1):
        refs.setdefault(s, f"src{i}")
        refs.setdefault(t, f"trg{i}")
    return refs


def _quote(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def predicate_terms(op: Pattern) -> list[str]:
    """Φ of a PATTERN: the join equalities, then its comparisons, then its time conditions
    over the inputs' starts `ts1`, `ts2`, ... (specs/semantics.md §4b), positionally."""
    refs = _pattern_refs(op)
    terms = list(op.join_predicate())
    for cond in op.conditions:
        right = _quote(cond.right) if cond.right_const else refs.get(cond.right, cond.right)
        terms.append(f"{refs.get(cond.left, cond.left)} {cond.op} {right}")
    starts = {name: f"ts{i}" for i, name in enumerate(op.times, start=1) if name is not None}
    for cond in op.time_conditions:
        shift = abs(cond.offset)  # in time units, as WSCAN's ω
        offset = f" + {shift}" if cond.offset > 0 else f" - {shift}" if cond.offset else ""
        terms.append(f"{starts[cond.left]} {cond.op} {starts[cond.right]}{offset}")
    for cond in op.property_conditions:  # property values, bound through ATTRIBUTE inputs
        shift = abs(cond.offset)
        offset = f" + {shift}" if cond.offset > 0 else f" - {shift}" if cond.offset else ""
        terms.append(f"{refs[cond.left]} {cond.op} {refs[cond.right]}{offset}")
    return terms


def _conditions(conditions) -> list[dict]:
    return [
        {"left": c.left, "op": c.op, "right": c.right, "right_const": c.right_const}
        for c in conditions
    ]


def parameters(op: Op) -> dict:
    """The operator's own parameters (not its inputs), as plain JSON-able values."""
    if isinstance(op, WScan):
        out: dict = {"window": op.window, "slide": op.slide}
        if op.labels:  # thesis rule 13: several labels' streams in one window
            out["labels"] = list(op.labels)
        if op.conditions:  # thesis rule 12: a FILTER before the window
            out["conditions"] = _conditions(op.conditions)
        if op.source:  # specs/semantics.md §4c: the edges of `source` that pass the tests
            out["source"] = op.source
            out["properties"] = [t.text() for t in op.properties]
            out["carries"] = list(op.carries)
        return out
    if isinstance(op, Attribute):
        return {"part": "trg" if op.part < 0 else op.input.carries[op.part]}
    if isinstance(op, Filter):
        return {"conditions": _conditions(op.conditions)}
    if isinstance(op, Rename):
        return {"reverse": op.reverse}
    if isinstance(op, Pattern):
        return {
            "bindings": [list(b) for b in op.bindings],
            "head": list(op.head),
            "head_refs": list(op.head_refs()),
            "predicate": predicate_terms(op),
            "conditions": [
                {"left": c.left, "op": c.op, "right": c.right, "right_const": c.right_const}
                for c in op.conditions
            ],
            "times": list(op.times),
            "time_conditions": [
                {"left": c.left, "op": c.op, "right": c.right, "offset": c.offset}
                for c in op.time_conditions
            ],
            **(
                {"property_conditions": [c.text() for c in op.property_conditions]}
                if op.property_conditions
                else {}
            ),
        }
    if isinstance(op, BoundPath):  # sga/rewrite/bind_path_sources.py
        return {
            "regex": regex_text(op.regex),
            "nullable": False,
            "seeds": op.seeds.label,
            "pairs": op.pairs,
        }
    if isinstance(op, Path):
        params: dict = {"regex": regex_text(op.regex), "nullable": op.domain is not None}
        if op.simple:  # specs/semantics.md §4a; arbitrary-path PATHs keep their old form
            params.update(simple=True, conflict_free=op.conflict_free)
        return params
    return {}


def _condition_text(conditions) -> str:
    return ", ".join(
        f"{c.left} {c.op} {_quote(c.right) if c.right_const else c.right}" for c in conditions
    )


def describe(op: Op) -> str:
    """One operator on one line, in the papers' notation (without its inputs)."""
    if isinstance(op, WScan):
        tests = [_condition_text(op.conditions)] if op.conditions else []
        tests += [t.text() for t in op.properties]
        where = f"; {', '.join(tests)}" if tests else ""
        read = f"{', '.join(op.reads)} -> {op.label}" if op.labels or op.source else op.label
        carries = f"; carries {', '.join(op.carries)}" if op.carries else ""
        return f"WSCAN[{read}](ω={op.window}, β={op.slide}{where}{carries})"
    if isinstance(op, Attribute):
        part = "trg" if op.part < 0 else op.input.carries[op.part]
        return f"ATTRIBUTE[{part} -> {op.label}]"
    if isinstance(op, Filter):
        return f"FILTER[{_condition_text(op.conditions)}]"
    if isinstance(op, Rename):
        ends = "trg, src" if op.reverse else "src, trg"
        return f"RENAME[{ends} -> {op.label}]"
    if isinstance(op, Union):
        return f"UNION[{op.label}]"
    if isinstance(op, Pattern):
        src, trg = op.head_refs()
        return f"PATTERN[{src}, {trg} -> {op.label}]({', '.join(predicate_terms(op))})"
    if isinstance(op, Path):
        text = regex_text(op.regex)
        prefix = "simple " if op.simple else ""
        generated = op.label in (prefix + text, f"{prefix}[{text}]")
        named = f"{prefix}{text}" if generated else f"{prefix}{text} as {op.label}"
        if op.simple:
            named += "; conflict-free: arbitrary-path cost" if op.conflict_free else "; RSPQ"
        return f"PATH[{named}]"
    if isinstance(op, BoundPath):  # its last input's sources are its roots
        text = regex_text(op.regex)
        named = text if op.label in (text, f"[{text}]") else f"{text} as {op.label}"
        bound = "pairs" if op.pairs else "sources"
        return f"PATH[{named}; {bound} from {op.seeds.label}]"
    if isinstance(op, Vertices):
        return f"VERTICES[{op.label}]({', '.join(i.label for i in op.inputs)})"
    return op_kind(op)  # pragma: no cover - every operator is listed above


def explain_text(plan: Plan, annotate: Callable[[Op], str] | None = None) -> str:
    """The order line, then each output's tree; a node already printed shows as `#n (shared)`.
    `annotate(op)`, when given, is appended to each operator's first line (estimated costs)."""
    ids = number(plan)
    lines = ["order: " + ", ".join(plan.order)]
    printed: set[Op] = set()

    for root in plan.outputs:
        lines.append(f"output {root.label}:")
        todo = [(root, 1)]  # (a stack: iterative, for plans of any depth)
        while todo:
            op, depth = todo.pop()
            pad = "  " * depth
            if op in printed:
                lines.append(f"{pad}#{ids[op]} (shared) {describe(op)}")
                continue
            printed.add(op)
            note = f"  {annotate(op)}" if annotate is not None else ""
            lines.append(f"{pad}#{ids[op]} {describe(op)}{note}")
            todo.extend((child, depth + 1) for child in reversed(children(op)))
    return "\n".join(lines) + "\n"


def explain_data(plan: Plan, extra: Callable[[Op], dict] | None = None) -> dict:
    """The plan as plain data: order, output ids, operators by id; `extra(op)`, when given,
    adds keys to each operator's entry (estimated costs)."""
    ids = number(plan)
    operators = []
    for op, ident in sorted(ids.items(), key=lambda item: item[1]):
        entry = {
            "id": ident,
            "kind": op_kind(op),
            "label": op.label,
            "inputs": [ids[i] for i in op.inputs],
            "parameters": parameters(op),
            "text": describe(op),
        }
        if isinstance(op, Path) and op.domain is not None:
            entry["domain"] = ids[op.domain]
        if extra is not None:
            entry.update(extra(op))
        operators.append(entry)
    return {
        "order": list(plan.order),
        "outputs": [ids[root] for root in plan.outputs],
        "operators": operators,
    }


def explain_json(plan: Plan) -> str:
    """`explain_data` as indented JSON (stable key order)."""
    return json.dumps(explain_data(plan), indent=2, ensure_ascii=False) + "\n"


def _dot_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def dot_nodes(
    plan: Plan, prefix: str = "n", annotate: Callable[[Op], str] | None = None, indent: str = "  "
) -> list[str]:
    """The Graphviz node and edge lines of `plan`, node ids `prefix` + number (so that several
    plans can share one digraph), each label followed by `annotate(op)` when given."""
    ids = number(plan)
    outputs = set(plan.outputs)
    lines = []
    for op, ident in sorted(ids.items(), key=lambda item: item[1]):
        style = ", style=bold" if op in outputs else ""
        text = f"#{ident} " + describe(op) + (f"\n{annotate(op)}" if annotate else "")
        lines.append(f"{indent}{prefix}{ident} [label={_dot_string(text)}{style}];")
    for op, ident in sorted(ids.items(), key=lambda item: item[1]):
        for child in op.inputs:
            lines.append(f"{indent}{prefix}{ids[child]} -> {prefix}{ident};")
        if isinstance(op, Path) and op.domain is not None:
            lines.append(
                f'{indent}{prefix}{ids[op.domain]} -> {prefix}{ident} [style=dashed, label="ε"];'
            )
    return lines


DOT_HEADER = ["  rankdir=BT;", '  node [shape=box, fontname="monospace"];']


def explain_dot(plan: Plan) -> str:
    """A Graphviz digraph; edges follow the data, from an input up to its consumer."""
    lines = ["digraph sga {", *DOT_HEADER, *dot_nodes(plan), "}"]
    return "\n".join(lines) + "\n"
