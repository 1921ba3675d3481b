"""SGQ -> SGA: the canonical plan of a checked program (thesis 5.2.2, Algorithm SGQParser).

This is the one bridge between the `.dl` world (`sgq.datalog`) and the algebra (`sgq.sga`):
nothing else imports both (STYLE.md, Soufflé's ast2ram).

Predicates are visited in the checker's topological order and each gets one expression:

- an input label `l` read by some body      -> WSCAN[l](ω_l, β), one node shared by all readers;
- a closure `p+` / `p*` or a path atom `[R]` -> PATH over the streams of R's letters (each an
  input or a derived predicate); named by its `as` alias, else `p+`, `p*`, `[R]` (with
  `simple` before them: a simple PATH, specs/semantics.md §4a); when
  ε ∈ L(R) its `domain` is VERTICES over the WSCANs of every input label (the active domain,
  specs/semantics.md §2, §4);
- each rule                                  -> PATTERN over its body atoms, or RENAME when the
  rule is a single atom with no comparisons whose head is its (src, trg) or (trg, src);
- several rules with one head                -> UNION[head] of the rules' expressions.

Atom arguments are lowered before the join: a constant becomes FILTER[src = "c"] (or trg) on
that input, a variable repeated inside one atom becomes FILTER[src = trg], and `_` becomes a
fresh variable that joins nothing. Comparisons become PATTERN conditions. Equal sub-plans are
equal frozen objects, so a predicate read by several consumers is one shared node. Corner
cases and their reasons: specs/plans.md.

`translate` then runs the rewrite passes of sga/rewrite/pipeline.py on it, those not skipped
by name: a PATH over a finite, ε-free language (`[a/b/c]`) becomes a UNION of chain PATTERNs
(`finite_paths`), then the chains and closing links of PATTERNs become nested PATTERNs
(`shared_chains`).
"""

from __future__ import annotations

from collections.abc import Collection

from ..datalog import ast
from ..datalog.checked import CheckedProgram
from ..datalog.checks.time_variables import is_time_comparison
from . import algebra
from .algebra import (
    Attribute,
    EdgeCondition,
    Filter,
    Op,
    Path,
    Pattern,
    Plan,
    PropertyCondition,
    PropertyTest,
    Rename,
    TimeCondition,
    Union,
    VarCondition,
    Vertices,
    WScan,
)
from .rewrite.pipeline import rewrite


def regex_of(node: ast.Regex) -> algebra.Regex:
    """The algebra's tuple form of a `.dl` regular expression; a label with tests stands for
    the stream of its filtered WSCAN (`label_tests`), named after them."""
    if isinstance(node, ast.Label):
        if node.props:
            return ("label", tested_label(node.name, label_tests(node)))
        return ("label", node.name)
    if isinstance(node, ast.Concat):
        return ("concat", *(regex_of(p) for p in node.parts))
    if isinstance(node, ast.Alt):
        return ("alt", *(regex_of(o) for o in node.options))
    if isinstance(node, ast.Star):
        return ("star", regex_of(node.inner))
    if isinstance(node, ast.Plus):
        return ("plus", regex_of(node.inner))
    return ("opt", regex_of(node.inner))


_FLIPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "=": "=", "!=": "!="}


def label_tests(label: ast.Label) -> tuple[PropertyTest, ...]:
    """The WSCAN tests of a path label's braces, `flight{delay < 15}`."""
    return tuple(PropertyTest(t.key, t.op, ast.property_value(t.value)) for t in label.props)


def tested_label(pred: str, tests: tuple, carries: tuple = ()) -> str:
    """The label of a WSCAN of `pred`'s edges that pass `tests` (and carry `carries`):
    `flight{delay < 15}`, `flight{delay: *}`."""
    parts = [t.text() for t in tests] + [f"{algebra.label_text(k)}: *" for k in carries]
    return f"{algebra.label_text(pred)}{{{', '.join(parts)}}}"


class _Properties:
    """How one rule's property predicates lower (specs/semantics.md §4c, specs/plans.md): a
    comparison of a property variable with a constant becomes a WSCAN test of every atom
    that binds it; a variable that two braces bind, that another property variable is
    compared with, or whose atom has a compared time variable, is *reified*: its atom's WSCAN
    carries its value, and the PATTERN joins on it through ATTRIBUTE inputs."""

    def __init__(self, rule: ast.Rule, timed: set[str]) -> None:
        self.names = ast.property_variables(rule)
        count: dict[str, int] = {}
        for lit in rule.body:
            if isinstance(lit, ast.Atom):
                for arg in lit.props:
                    if isinstance(arg.value, ast.Var):
                        count[arg.value.name] = count.get(arg.value.name, 0) + 1
        self.tests: dict[str, list[tuple[str, object]]] = {}  # var -> [(op, constant)]
        self.conditions: list[PropertyCondition] = []
        self.reified = {v for v, n in count.items() if n > 1}
        for lit in rule.body:
            if isinstance(lit, ast.Comparison) and self.concerns(lit):
                self._comparison(lit)
        self.timed = timed  # the time variables compared in the rule

    def concerns(self, lit: ast.Comparison) -> bool:
        return any(isinstance(t, ast.Var) and t.name in self.names for t in (lit.left, lit.right))

    def _comparison(self, lit: ast.Comparison) -> None:
        left, right, op, shift = lit.left, lit.right, lit.op, lit.shift
        if isinstance(left, ast.Const):  # `c op v + shift` -> `v op' c - shift`
            left, right, op, shift = right, left, _FLIPPED[op], -shift
        if isinstance(right, ast.Const):
            value = ast.property_value(right)
            self.tests.setdefault(left.name, []).append((op, value + shift if shift else value))
            return
        self.reified.update((left.name, right.name))
        self.conditions.append(
            PropertyCondition(left.name, op, right.name, shift, numbers=lit.has_offset)
        )

    def scan_of(self, atom: ast.Atom) -> tuple[tuple, tuple, list]:
        """`(tests, carried keys, the variable bound to each carried key or None)` of an
        atom with braces."""
        tests: list[PropertyTest] = []
        carries: list[str] = []
        carried: list[str | None] = []
        timed = atom.time in self.timed
        for arg in atom.props:
            value = arg.value
            if isinstance(value, ast.Const):
                tests.append(PropertyTest(arg.key, "=", ast.property_value(value)))
                continue
            own = self.tests.get(value.name, []) if isinstance(value, ast.Var) else []
            tests += [PropertyTest(arg.key, op, c) for op, c in own]
            var = value.name if isinstance(value, ast.Var) else None
            if var in self.reified or timed:
                if arg.key not in carries:  # (a carried key must be present: no test)
                    carries.append(arg.key)
                    carried.append(var if var in self.reified else None)
            elif not own:
                tests.append(PropertyTest(arg.key, "has"))
        return tuple(dict.fromkeys(tests)), tuple(carries), carried


class _Translator:
    """Algorithm SGQParser's `exp` mapping, filled in topological order."""

    def __init__(self, checked: CheckedProgram):
        self.checked = checked
        self.program = checked.program
        self.exp: dict[str, Op] = {}
        self.made: dict[Op, Op] = {}  # the nodes of property scans, one object each

    # -- leaves
    def wscan(self, label: str) -> WScan:
        return WScan(label, self.checked.window_of(label), self.checked.slide)

    def domain(self) -> Vertices:
        """VERTICES over every input label read by a body: V_τ (specs/semantics.md §2)."""
        return Vertices(tuple(self.wscan(label) for label in self.checked.edb))

    def tested_scan(self, pred: str, tests: tuple, carries: tuple = ()) -> WScan:
        """WSCAN over the edges of input label `pred` that pass `tests` (§4c)."""
        label = tested_label(pred, tests, carries)
        window = self.checked.window_of(pred)
        return self.shared(WScan(label, window, self.checked.slide, (), (), tests, carries, pred))

    def shared(self, node: Op) -> Op:
        """`node`, or the equal node made before (one object per sub-plan: a rewrite pass
        tells what it changed by identity, sga/algebra.py `map_plan`)."""
        return self.made.setdefault(node, node)

    def path(self, regex: algebra.Regex, name: str, simple: bool) -> Op:
        letters = algebra.regex_labels(regex)
        domain = self.domain() if algebra.regex_nullable(regex) else None
        inputs = tuple(self.exp[letter] for letter in letters)
        return Path(inputs, regex, name, domain, simple=simple)

    def note_tested_labels(self, regex: ast.Regex) -> None:
        """Give each label with tests in `regex` its WSCAN, under the name `regex_of` uses."""
        for label in ast.regex_prop_labels(regex):
            tests = label_tests(label)
            self.exp.setdefault(
                tested_label(label.name, tests), self.tested_scan(label.name, tests)
            )

    # -- one body atom -> (input node, (src var, trg var))
    def body_input(self, literal: ast.BodyAtom) -> Op:
        if isinstance(literal, ast.Atom):
            if literal.simple:
                raise _unchecked("'simple' on a plain atom")
            return self.exp[literal.pred]
        prefix = "simple " if literal.simple else ""
        if isinstance(literal, ast.Closure):
            regex = ("plus" if literal.op == "+" else "star", ("label", literal.pred))
            name = literal.alias or prefix + algebra.regex_text(regex)
            return self.path(regex, name, literal.simple)
        self.note_tested_labels(literal.regex)
        regex = regex_of(literal.regex)
        name = literal.alias or f"{prefix}[{algebra.regex_text(regex)}]"
        return self.path(regex, name, literal.simple)

    def bind(self, literal: ast.BodyAtom, fresh, node: Op | None = None, ends=("src", "trg")):
        """The atom's stream (`node`, else its predicate's) with its constants and repeated
        variable filtered out, and the variables its src and trg positions bind; `ends` says
        which of the atom's arguments stand at src and trg (another name: that variable)."""
        node = self.body_input(literal) if node is None else node
        conditions: list[EdgeCondition] = []
        names: list[str] = []
        for pos, end in zip(("src", "trg"), ends):
            if end not in ("src", "trg"):
                names.append(end)
                continue
            term = literal.args[0 if end == "src" else 1]
            if isinstance(term, ast.Var):
                names.append(term.name)
            elif isinstance(term, ast.Const):
                conditions.append(EdgeCondition(pos, "=", term.value, right_const=True))
                names.append(fresh())
            else:
                names.append(fresh())
        if names[0] == names[1]:
            conditions.append(EdgeCondition("src", "=", "trg"))
        if conditions:
            node = Filter(node, tuple(conditions))
        return node, (names[0], names[1])

    # -- one rule -> PATTERN or RENAME labelled with the head
    def rule(self, rule: ast.Rule) -> Op:
        head = rule.head
        if len(head.args) != 2 or any(
            len(lit.args) != 2 for lit in rule.body if not isinstance(lit, ast.Comparison)
        ):
            raise _unchecked("an atom that is not binary")
        used = {t.name for lit in (head, *rule.body) for t in _terms(lit) if isinstance(t, ast.Var)}
        counter = [0]

        def fresh() -> str:
            while True:
                counter[0] += 1
                name = f"_{counter[0]}"
                if name not in used:
                    return name

        inputs: list[Op] = []
        bindings: list[tuple[str, str]] = []
        conditions: list[VarCondition] = []
        times_of = ast.time_variables(rule)
        time_conditions: list[TimeCondition] = []
        times: list[str | None] = []
        props = _Properties(rule, self.compared_times(rule, times_of))
        for lit in rule.body:
            if isinstance(lit, ast.Comparison):
                if props.concerns(lit):
                    continue  # (lowered by `props`)
                if is_time_comparison(lit, times_of):
                    time_conditions.append(self.time_comparison(lit, times_of))
                else:
                    conditions.append(self.comparison(lit))
                continue
            time = lit.time if lit.time in times_of else None
            for node, binding, own_time in self.bind_atom(lit, fresh, props):
                inputs.append(node)
                bindings.append(binding)
                times.append(time if own_time else None)
        bound = {v for b in bindings for v in b}
        head_vars: list[str] = []
        for term in head.args:
            if not isinstance(term, ast.Var) or term.name not in bound:
                raise _unchecked("a head term that is not a variable bound in the body")
            head_vars.append(term.name)
        for cond in conditions:
            for var in (cond.left,) if cond.right_const else (cond.left, cond.right):
                if var not in bound:
                    raise _unchecked(f"a compared variable '{var}' that no body atom binds")
        out = (head_vars[0], head_vars[1])
        if len(inputs) == 1 and not conditions and not time_conditions and not props.conditions:
            if out == bindings[0]:
                return Rename(inputs[0], head.pred, reverse=False)
            if out == (bindings[0][1], bindings[0][0]):
                return Rename(inputs[0], head.pred, reverse=True)
        if not time_conditions:
            times = []  # time variables nobody compares: a plain PATTERN
        return Pattern(
            tuple(inputs),
            tuple(bindings),
            out,
            head.pred,
            tuple(conditions),
            tuple(times),
            tuple(time_conditions),
            tuple(props.conditions),
        )

    def compared_times(self, rule: ast.Rule, times_of) -> set[str]:
        """The time variables some comparison of `rule` reads."""
        out: set[str] = set()
        for lit in rule.body:
            if isinstance(lit, ast.Comparison) and is_time_comparison(lit, times_of):
                out.update(t.name for t in (lit.left, lit.right) if isinstance(t, ast.Var))
        return out

    def bind_atom(self, lit: ast.BodyAtom, fresh, props: _Properties) -> list[tuple]:
        """The PATTERN inputs of one body atom, `(node, binding, whether the atom's @t names
        its start)`: one, or for an atom whose WSCAN carries property values, the reified edge
        `(x, e)`, then `(e, y)` and `(e, value)` for each reified variable (ATTRIBUTE)."""
        if not isinstance(lit, ast.Atom) or not lit.props:
            node, binding = self.bind(lit, fresh)
            return [(node, binding, True)]
        tests, carries, carried = props.scan_of(lit)
        scan = self.tested_scan(lit.pred, tests, carries)
        if not carries:
            node, binding = self.bind(lit, fresh, scan)
            return [(node, binding, True)]
        edge = fresh()
        out = [(*self.bind(lit, fresh, scan, ("src", edge)), True)]
        trg = self.shared(Attribute(scan, -1, f"{scan.label}.trg"))
        out.append((*self.bind(lit, fresh, trg, (edge, "trg")), False))
        for part, var in enumerate(carried):
            if var is not None:
                value = self.shared(Attribute(scan, part, f"{scan.label}.{carries[part]}"))
                out.append((value, (edge, var), False))
        return out

    def time_comparison(self, lit: ast.Comparison, times_of) -> TimeCondition:
        """`t2 <= t1 + 1h` -> TimeCondition("t2", "<=", "t1", 3600); an offset on the left moves
        to the right, `t1 + 2 < t2` -> TimeCondition("t1", "<", "t2", -2) (the comparison's
        normal form, `ast.Comparison.shift`), so the operators see one form."""
        left, right = lit.left, lit.right
        if not (
            isinstance(left, ast.Var)
            and isinstance(right, ast.Var)
            and left.name in times_of
            and right.name in times_of
        ):
            raise _unchecked("a time comparison of something other than two time variables")
        return TimeCondition(left.name, lit.op, right.name, lit.shift)

    def comparison(self, lit: ast.Comparison) -> VarCondition:
        left, right = lit.left, lit.right
        if (
            isinstance(left, ast.Anon)
            or isinstance(right, ast.Anon)
            or isinstance(left, ast.Const)
            and isinstance(right, ast.Const)
        ):
            raise _unchecked("a comparison with '_' or of two constants")
        if isinstance(left, ast.Const):
            left, right = right, left
        if isinstance(right, ast.Const):
            return VarCondition(left.name, lit.op, right.value, right_const=True)
        return VarCondition(left.name, lit.op, right.name)

    # -- the algorithm
    def run(self) -> Plan:
        if self.checked.window is None and any(
            label not in dict(self.checked.label_windows) for label in self.checked.edb
        ):
            raise _unchecked("an input label without a window")
        rules_of: dict[str, list[ast.Rule]] = {}
        for rule in self.program.rules:
            rules_of.setdefault(rule.head.pred, []).append(rule)
        edb = set(self.checked.edb)
        for pred in self.checked.order:
            if pred in edb:
                self.exp[pred] = self.wscan(pred)
            elif pred in rules_of:
                parts: list[Op] = []
                for rule in rules_of[pred]:
                    node = self.rule(rule)
                    if node not in parts:
                        parts.append(node)
                self.exp[pred] = parts[0] if len(parts) == 1 else Union(tuple(parts), pred)
            # hashed now, its inputs' hashes known (a first hash recurses through the inputs
            # not hashed before: on a long chain of predicates, deeper than Python's stack)
            if pred in self.exp:
                hash(self.exp[pred])
        if not self.checked.outputs or any(n not in self.exp for n in self.checked.outputs):
            raise _unchecked("no output, or an output that is no rule's head")
        return Plan(
            outputs=tuple(self.exp[n] for n in self.checked.outputs), order=self.checked.order
        )


def _unchecked(problem: str) -> ValueError:
    """A program that cannot have passed datalog/checks/ (which give users the errors for these
    shapes): a caller's mistake, reported in one line."""
    return ValueError(f"translate() needs a program that passed datalog.check: it has {problem}")


def _terms(literal) -> tuple:
    if isinstance(literal, ast.Comparison):
        return (literal.left, literal.right)
    return literal.args


def translate(
    checked: CheckedProgram,
    *,
    canonical: bool = False,
    skip: Collection[str] = (),
    enable: Collection[str] = (),
) -> Plan:
    """The SGA plan of `checked`: the canonical plan (thesis Algorithm SGQParser), then the
    rewrite passes of sga/rewrite/pipeline.py except those named in `skip`, the opt-in ones
    only when named in `enable` (`Plan.rewrites` names those that changed it). `canonical` skips `shared_chains` and `bind_path_sources` too:
    the plan before its PATTERN chains are shared (`sgq explain --canonical`).

    `checked` comes from `datalog.check`, whose checks reject every shape the algebra cannot
    express (a non-binary atom, a constant or `_` in a head, an unbound head or compared
    variable, a comparison of two constants, no window, no output) with the user's errors;
    given such a shape anyway, translate raises a one-line ValueError.

    >>> from sgq.datalog.check import check_text
    >>> plan = translate(check_text(".window 10\\nAnswer(x, y) :- a+(x, y)."))
    >>> [type(op).__name__ for op in plan.nodes()]
    ['WScan', 'Path', 'Rename']
    """
    plan = _Translator(checked).run()
    skipped = {*skip, "shared_chains", "bind_path_sources"} if canonical else skip
    return rewrite(plan, skipped, enable)
