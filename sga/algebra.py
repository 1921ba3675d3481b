"""The logical operators of the Streaming Graph Algebra (thesis ch. 5.2, Defs 30-34).

Every operator consumes and produces streaming graphs: streams of `(src, trg, label)` tuples
annotated with a validity interval `[ts, exp)`. Each node here is a frozen attrs class whose
`label` is the label of the stream it produces; its children are other nodes, so a plan is a
DAG in which structurally equal sub-plans are equal objects (a label is scanned once and
shared by every consumer, thesis 5.2.2).

This module knows nothing of the `.dl` AST (`sga/translate.py` is the only bridge); regular
expressions are therefore kept here as small nested tuples (see `Regex`).

Operators:
- WSCAN(ω, β): an input label's edges (or several labels', rule 13), each valid on
  `[t, ⌊t/β⌋·β + ω)`.
- FILTER: keeps the tuples whose endpoints satisfy conditions (constants, `src = trg`, ...).
- RENAME: relabels (optionally reverses) one stream; a one-atom rule.
- UNION: the union of several streams under one label (several rules with one head).
- PATTERN: an n-ary join of its inputs on shared variables, with a conjunctive predicate;
  output `(head src, head trg)`; validity = intersection of the inputs' (specs/semantics.md §6).
- PATH: pairs joined by a path whose label word is in L(regex), arbitrary-path semantics;
  validity of a path = intersection of its edges'; per pair the union over paths.
- VERTICES: the active domain V_τ as `(v, v)` tuples, the ε-pairs of a nullable PATH.
- PATH bound to sources (BoundPath, put there by sga/rewrite/bind_path_sources.py): a PATH
  asked only for the roots that its last input, the *seed* stream, has as sources.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Container, Iterable, Iterator

import attrs

from ..base.property_values import value_text

# ---- regular expressions over stream labels ----------------------------------------------
# ("label", name) | ("concat", r1, r2, ...) | ("alt", r1, r2, ...) | ("star", r) | ("plus", r)
# | ("opt", r). Plain tuples: hashable, cheap, and independent of the datalog AST.
Regex = tuple


def regex_labels(regex: Regex) -> tuple[str, ...]:
    """The labels of `regex` in first-occurrence order, without repeats."""
    seen: dict[str, None] = {}

    def walk(node: Regex) -> None:
        if node[0] == "label":
            seen.setdefault(node[1], None)
        else:
            for child in node[1:]:
                walk(child)

    walk(regex)
    return tuple(seen)


def regex_nullable(regex: Regex) -> bool:
    """Whether ε ∈ L(regex)."""
    kind = regex[0]
    if kind == "label":
        return False
    if kind == "concat":
        return all(regex_nullable(r) for r in regex[1:])
    if kind == "alt":
        return any(regex_nullable(r) for r in regex[1:])
    if kind == "plus":
        return regex_nullable(regex[1])
    return True  # star, opt


_PRECEDENCE = {"alt": 0, "concat": 1, "star": 2, "plus": 2, "opt": 2, "label": 3}


def _quote_label(name: str) -> str:
    if name.isidentifier() or _TESTED.fullmatch(name):
        return name  # (a label with tests, sga/translate.py `tested_label`, as it is)
    return label_text(name)


def label_text(name: str) -> str:
    """A label as a program writes it: bare if an identifier, else quoted."""
    if name.isidentifier():
        return name
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


_TESTED = re.compile(r'(?:[A-Za-z_][A-Za-z0-9_]*|"(?:[^"\\]|\\.)*")\{.*\}', re.DOTALL)


def regex_text(regex: Regex, outer: int = 0) -> str:
    """`regex` in .dl notation, with only the parentheses precedence needs: `a/b*/(c|d)+`."""
    kind = regex[0]
    prec = _PRECEDENCE[kind]
    if kind == "label":
        text = _quote_label(regex[1])
    elif kind == "concat":
        text = "/".join(regex_text(r, prec + 1) for r in regex[1:])
    elif kind == "alt":
        text = "|".join(regex_text(r, prec + 1) for r in regex[1:])
    else:
        text = regex_text(regex[1], prec + 1) + {"star": "*", "plus": "+", "opt": "?"}[kind]
    return f"({text})" if prec < outer else text


# ---- conditions --------------------------------------------------------------------------
# Nodes and conditions are frozen and hash their whole sub-plan, so each caches its hash
# (`cache_hash`; unpickling clears it): the optimizer hashes the same deep nodes millions of
# times (memo groups, the cost model's cache), most of a 6-atom rule's planning otherwise.


@attrs.frozen(cache_hash=True)
class _Condition:
    """`left op right` (op "=" or "!="); `right` is a constant vertex id when `right_const`."""

    left: str
    op: str  # "=" or "!="
    right: str
    right_const: bool = False

    def text(self) -> str:
        right = f'"{self.right}"' if self.right_const else self.right
        return f"{self.left} {self.op} {right}"


@attrs.frozen(cache_hash=True)
class EdgeCondition(_Condition):
    """A FILTER condition on one tuple: `left op right`, each side `"src"`, `"trg"`, or a
    constant vertex id (when `right_const`)."""


@attrs.frozen(cache_hash=True)
class VarCondition(_Condition):
    """A PATTERN condition over the rule's variables: `left op right`; `right` is a variable
    or, when `right_const`, a constant vertex id."""


_ORDER_OPS: dict[str, Callable[[int, int], bool]] = {
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
    "=": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
}


@attrs.frozen(cache_hash=True)
class TimeCondition:
    """A PATTERN condition over time variables (specs/semantics.md §4b): `start(left) op
    start(right) + offset`, each side the start of the validity interval of the tuple bound to
    the atom that names it with `@`."""

    left: str
    op: str  # "<", "<=", ">", ">=", "=", "!="
    right: str
    offset: int = 0

    def holds(self, left: int, right: int) -> bool:
        """Whether the condition holds for the starts `left` and `right`."""
        return _ORDER_OPS[self.op](left, right + self.offset)

    def text(self) -> str:
        shift = (
            f" + {self.offset}" if self.offset > 0 else f" - {-self.offset}" if self.offset else ""
        )
        return f"{self.left} {self.op} {self.right}{shift}"


@attrs.frozen(cache_hash=True)
class PropertyTest:
    """A WSCAN test on an edge's property (specs/semantics.md §4c): `key op value`, or with op
    "has" only that the edge has `key`. A missing property fails every test."""

    key: str
    op: str  # "has", or "=", "!=", "<", "<=", ">", ">="
    value: int | float | str | None = None

    def text(self) -> str:
        key = _quote_label(self.key)
        return f"has {key}" if self.op == "has" else f"{key} {self.op} {value_text(self.value)}"


@attrs.frozen(cache_hash=True)
class PropertyCondition:
    """A PATTERN condition between two property variables: `left op right + offset`, holding
    only on comparable values (base/property_values.py); with `numbers` (the comparison adds
    or takes a number on some side, even if they cancel) only on numbers."""

    left: str
    op: str  # "=", "!=", "<", "<=", ">", ">="
    right: str
    offset: int | float = 0
    numbers: bool = False

    def text(self) -> str:
        shift = (
            f" + {self.offset}" if self.offset > 0 else f" - {-self.offset}" if self.offset else ""
        )
        return f"{self.left} {self.op} {self.right}{shift}"


# ---- operators ---------------------------------------------------------------------------


@attrs.frozen(cache_hash=True)
class WScan:
    """WSCAN(ω, β) over the input stream of `label` (Def 30). With `conditions` (put there by
    thesis rule 12, sga/rewrite/push_filter_into_wscan.py), over that stream's edges that
    satisfy them: W_ω(σ_Φ(S)), a FILTER applied before the window, so that the window keeps
    only the edges that pass. With `labels` (two or more, put there by thesis rule 13,
    sga/rewrite/merge_union_wscans.py), over the union of those labels' input streams,
    relabelled `label`: W_ω(S_a ∪[label] S_b), every label's edges in one window.

    With `properties` or `carries` (specs/semantics.md §4c), over the edges of the input
    label `source` that pass every test, under a label of its own (`flight{delay < 15}`). With `carries`, the stream of the
    edges *reified*: a tuple `(x, e)` per edge `x -> y` and values `vs` of the properties
    `carries` names, `e = (x, y, vs)`, each such tuple valid while some edge with those values
    is (its `Attribute` streams give `y` and each value as tuples of `e`)."""

    label: str
    window: int
    slide: int
    conditions: tuple[EdgeCondition, ...] = ()
    labels: tuple[str, ...] = ()
    properties: tuple[PropertyTest, ...] = ()
    carries: tuple[str, ...] = ()
    source: str = ""

    @property
    def inputs(self) -> tuple[Op, ...]:
        return ()

    @property
    def reads(self) -> tuple[str, ...]:
        """The input labels whose edges this scan reads: `labels`, or `(source,)` for a scan
        with properties, or `(label,)`."""
        return self.labels or (self.source or self.label,)


@attrs.frozen(cache_hash=True)
class Attribute:
    """One attribute of the reified edges of a WSCAN that `carries` properties: from each
    tuple `(x, e)` of `input`, `e = (x, y, vs)`, the tuple `(e, y)` (`part` -1) or `(e,
    vs[part])`. Injective, so validity passes through unchanged; stateless."""

    input: WScan
    part: int
    label: str

    @property
    def inputs(self) -> tuple[Op, ...]:
        return (self.input,)


@attrs.frozen(cache_hash=True)
class Filter:
    """FILTER (Def 31): the tuples of `input` satisfying every condition; stateless."""

    input: Op
    conditions: tuple[EdgeCondition, ...]

    @property
    def label(self) -> str:
        return self.input.label

    @property
    def inputs(self) -> tuple[Op, ...]:
        return (self.input,)


@attrs.frozen(cache_hash=True)
class Rename:
    """Relabel `input` as `label`, swapping src and trg when `reverse` (a one-atom rule)."""

    input: Op
    label: str
    reverse: bool = False

    @property
    def inputs(self) -> tuple[Op, ...]:
        return (self.input,)


@attrs.frozen(cache_hash=True)
class Union:
    """UNION (Def 32): every tuple of every input, relabelled `label`."""

    inputs: tuple[Op, ...]
    label: str


@attrs.frozen(cache_hash=True)
class Pattern:
    """PATTERN (Def 33): join `inputs[i]` bound to variables `bindings[i] = (src, trg)`,
    keep the combinations satisfying `conditions`, output `(head[0], head[1])` as `label`.

    Validity is the intersection of the joined tuples' intervals; empty ones yield nothing.

    With time variables (specs/semantics.md §4b) `times[i]` names the start of input i's
    matched tuple (None: unnamed) and `time_conditions` must hold on those starts; both are
    empty for a PATTERN without them. `property_conditions` compare variables bound to
    property values (through `Attribute` inputs, specs/semantics.md §4c).
    """

    inputs: tuple[Op, ...]
    bindings: tuple[tuple[str, str], ...]
    head: tuple[str, str]
    label: str
    conditions: tuple[VarCondition, ...] = ()
    times: tuple[str | None, ...] = ()
    time_conditions: tuple[TimeCondition, ...] = ()
    property_conditions: tuple[PropertyCondition, ...] = ()

    def fixed(self) -> bool:
        """Whether the join rules leave this PATTERN as written: it has time or property
        conditions (which the rules do not carry over)."""
        return bool(self.time_conditions or self.property_conditions)

    def join_predicate(self) -> tuple[str, ...]:
        """Φ in the thesis's positional notation: `trg1 = src2`, ... (1-based inputs)."""
        first: dict[str, str] = {}
        out = []
        for i, (s, t) in enumerate(self.bindings, start=1):
            for pos, var in (("src", s), ("trg", t)):
                ref = f"{pos}{i}"
                if var in first:
                    out.append(f"{first[var]} = {ref}")
                else:
                    first[var] = ref
        return tuple(out)

    def head_refs(self) -> tuple[str, str]:
        """The output endpoints in positional notation (`src1`, `trg2`)."""
        first: dict[str, str] = {}
        for i, (s, t) in enumerate(self.bindings, start=1):
            first.setdefault(s, f"src{i}")
            first.setdefault(t, f"trg{i}")
        return (first[self.head[0]], first[self.head[1]])


@attrs.frozen(cache_hash=True)
class Vertices:
    """The active domain V_τ (specs/semantics.md §2) as `(v, v)` tuples labelled `label`: each input
    tuple `(s, t)` valid on `[ts, exp)` makes `(s, s)` and `(t, t)` valid on it."""

    inputs: tuple[WScan, ...]
    label: str = "V"


@attrs.frozen(cache_hash=True)
class Path:
    """PATH (Def 34): `(u, v)` such that some path from u to v, over the tuples of `inputs`
    (each input's `label` is a letter of `regex`), spells a word of L(regex). Vertices may
    repeat (arbitrary paths) unless `simple`: then only paths that visit no vertex twice count,
    and `(v, v)` only by the empty path (specs/semantics.md §4a). When ε ∈ L(regex), `domain`
    supplies the `(v, v)` pairs. `conflict_free` (set by sga/rewrite/relax_simple_paths.py on a
    simple PATH) says that its automaton can never conflict (RPQ paper §4.1, Definition 15),
    so its arbitrary paths give its simple results, `(v, v)` aside."""

    inputs: tuple[Op, ...]
    regex: Regex
    label: str
    domain: Vertices | None = None
    simple: bool = False
    conflict_free: bool = False


@attrs.frozen(cache_hash=True)
class BoundPath:
    """PATH over `inputs[:-1]` (one input per letter of `regex`, as for Path) asked only for
    the roots `x` that are sources of the last input, the *seed* stream: at every instant its
    snapshot holds every `(x, y)` of PATH's snapshot whose `x` has a seed tuple `(x, z)`
    valid then, and nothing outside PATH's snapshot (it may hold more of PATH's pairs than
    those: a reader joins it with the seed stream on `x`, which drops them). With `pairs`
    (the reader joins on both endpoints), only the PATH pairs `(x, y)` that are seed tuples
    then need to be there. Intervals as for PATH (specs/semantics.md §6). Only
    arbitrary-path, ε-free PATHs are bound (sga/rewrite/bind_path_sources.py says where and
    why)."""

    inputs: tuple[Op, ...]
    regex: Regex
    label: str
    pairs: bool = False

    @property
    def letters(self) -> tuple[Op, ...]:
        """The inputs of the letters of `regex`, in order (without the seed stream)."""
        return self.inputs[:-1]

    @property
    def seeds(self) -> Op:
        """The seed stream: its sources are the roots asked for."""
        return self.inputs[-1]


Op = WScan | Attribute | Filter | Rename | Union | Pattern | Vertices | Path | BoundPath
OPERATORS: tuple[type, ...] = (
    WScan,
    Attribute,
    Filter,
    Rename,
    Union,
    Pattern,
    Vertices,
    Path,
    BoundPath,
)


def op_kind(op: Op) -> str:
    """The operator's name as the papers write it: WSCAN, FILTER, ... (a BoundPath is a
    PATH)."""
    if isinstance(op, BoundPath):
        return "PATH"
    return type(op).__name__.upper()


def children(op: Op) -> tuple[Op, ...]:
    """Every node `op` reads from, PATH's domain included."""
    if isinstance(op, Path) and op.domain is not None:
        return op.inputs + (op.domain,)
    return op.inputs


@attrs.frozen(cache_hash=True)
class Plan:
    """A query's plan: the DAG whose roots are the output predicates' operators.

    `order` is the topological order of predicates the translation followed (the planner's);
    `rewrites` names the rewrite passes (sga/rewrite/pipeline.py) that changed the plan, in
    the order they ran.
    """

    outputs: tuple[Op, ...]
    order: tuple[str, ...] = ()
    rewrites: tuple[str, ...] = ()

    def nodes(self) -> Iterator[Op]:
        """Every distinct node once, children before parents (a topological order)."""
        return iter(postorder(self.outputs))


def postorder(roots: Iterable[Op], known: Container[Op] = ()) -> list[Op]:
    """Every distinct node under `roots` once, children before parents, in the order of a
    depth-first walk (children in `children` order, first visit wins); nodes in `known` are
    neither listed nor walked into. Iterative, so a deep plan costs no Python stack beyond
    the hash of a node: a node caches its hash, but its first hash recurses through every
    input not hashed before, so whoever builds a plan hashes each node as it is made
    (sga/translate.py, `map_plan`), and how deep a plan may nest at all is bounded by
    datalog/checks/nesting_depth.py (specs/language.md, "Limits")."""
    done: dict[Op, None] = {}
    for root in roots:
        if root in done or root in known:
            continue
        work = [(root, iter(children(root)))]
        while work:
            op, todo = work[-1]
            for child in todo:
                if child not in done and child not in known:
                    work.append((child, iter(children(child))))
                    break
            else:
                work.pop()
                done[op] = None
    return list(done)


def properties_read(plan: Plan) -> dict[str, tuple[str, ...]]:
    """The properties each input label's edges must offer the plan (specs/semantics.md §4c):
    every key a WSCAN of it tests or carries, in first-seen order."""
    out: dict[str, dict[str, None]] = {}
    for op in plan.nodes():
        if isinstance(op, WScan) and op.source:
            keys = out.setdefault(op.source, {})
            keys.update(dict.fromkeys(t.key for t in op.properties))
            keys.update(dict.fromkeys(op.carries))
    return {label: tuple(keys) for label, keys in out.items()}


def map_plan(plan: Plan, rewrite: Callable[[Op], Op]) -> Plan:
    """`plan` with `rewrite` applied to every node once its inputs have been rewritten
    (children first); equal nodes stay one node. A node whose inputs did not change is kept
    as it is, and `plan` itself comes back when nothing changed, so a rewrite pass can tell
    whether it did anything (`result is not plan`). O(nodes) calls of `rewrite`."""
    done: dict[Op, Op] = {}

    def same(new: tuple, old: tuple) -> bool:
        return all(a is b for a, b in zip(new, old))

    for op in postorder(plan.outputs):  # (children first: each input is rewritten before)
        new: Op = op
        if isinstance(op, (Filter, Rename, Attribute)):
            inner = done[op.input]
            if inner is not op.input:
                new = attrs.evolve(op, input=inner)
        elif isinstance(op, Path):
            inputs = tuple(done[i] for i in op.inputs)
            domain = None if op.domain is None else done[op.domain]
            if not same(inputs, op.inputs) or domain is not op.domain:
                new = attrs.evolve(op, inputs=inputs, domain=domain)
        elif op.inputs:
            inputs = tuple(done[i] for i in op.inputs)
            if not same(inputs, op.inputs):
                new = attrs.evolve(op, inputs=inputs)
        done[op] = new = rewrite(new)
        hash(new)  # (now, its inputs' hashes known: a first hash recurses, see `postorder`)

    outputs = tuple(done[root] for root in plan.outputs)
    return plan if same(outputs, plan.outputs) else attrs.evolve(plan, outputs=outputs)
