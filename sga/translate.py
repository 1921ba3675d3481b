"""SGQ -> SGA: the canonical plan of a checked program (thesis 5.2.2, Algorithm SGQParser).

This is the one bridge between the `.dl` world (`sgq.datalog`) and the algebra (`sgq.sga`):
nothing else imports both (STYLE.md, Soufflé's ast2ram).

Predicates are visited in the checker's topological order and each gets one expression:

- an input label `l` read by some body      -> WSCAN[l](ω_l, β), one node shared by all readers;
- a closure `p+` / `p*` or a path atom `[R]` -> PATH over the streams of R's letters (each an
  input or a derived predicate); named by its `as` alias, else `p+`, `p*`, `[R]`; when
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

from typing import Collection

from ..datalog import ast
from ..datalog.checked import CheckedProgram
from ..datalog.errors import DlError, DlErrors
from . import algebra
from .rewrite.pipeline import rewrite
from .algebra import (
    EdgeCondition,
    Filter,
    Op,
    Path,
    Pattern,
    Plan,
    Rename,
    Union,
    VarCondition,
    Vertices,
    WScan,
)


def regex_of(node: ast.Regex) -> algebra.Regex:
    """The algebra's tuple form of a `.dl` regular expression."""
    if isinstance(node, ast.Label):
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


class _Translator:
    """Algorithm SGQParser's `exp` mapping, filled in topological order."""

    def __init__(self, checked: CheckedProgram, source: str | None):
        self.checked = checked
        self.program = checked.program
        self.source = source
        self.exp: dict[str, Op] = {}
        self.errors: list[DlError] = []

    def error(self, message: str, loc: ast.Loc | None) -> None:
        self.errors.append(DlError(message, loc, self.checked.filename, self.source))

    # -- leaves
    def wscan(self, label: str) -> WScan:
        return WScan(label, self.checked.window_of(label), self.checked.slide)

    def domain(self) -> Vertices:
        """VERTICES over every input label read by a body: V_τ (specs/semantics.md §2)."""
        return Vertices(tuple(self.wscan(label) for label in self.checked.edb))

    def path(self, regex: algebra.Regex, name: str) -> Op:
        letters = algebra.regex_labels(regex)
        domain = self.domain() if algebra.regex_nullable(regex) else None
        return Path(tuple(self.exp[letter] for letter in letters), regex, name, domain)

    # -- one body atom -> (input node, (src var, trg var))
    def body_input(self, literal: ast.BodyAtom) -> Op:
        if isinstance(literal, ast.Atom):
            return self.exp[literal.pred]
        if isinstance(literal, ast.Closure):
            regex = ("plus" if literal.op == "+" else "star", ("label", literal.pred))
            return self.path(regex, literal.alias or algebra.regex_text(regex))
        regex = regex_of(literal.regex)
        return self.path(regex, literal.alias or f"[{algebra.regex_text(regex)}]")

    def bind(self, literal: ast.BodyAtom, fresh) -> tuple[Op, tuple[str, str]]:
        """The atom's stream with its constants and repeated variable filtered out, and the
        variables its src and trg positions bind."""
        node = self.body_input(literal)
        conditions: list[EdgeCondition] = []
        names: list[str] = []
        for pos, term in zip(("src", "trg"), literal.args):
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
    def rule(self, rule: ast.Rule) -> Op | None:
        head = rule.head
        if len(head.args) != 2 or any(len(lit.args) != 2 for lit in rule.body
                                      if not isinstance(lit, ast.Comparison)):
            self.error("only binary predicates can be translated", rule.loc)
            return None
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
        for lit in rule.body:
            if isinstance(lit, ast.Comparison):
                cond = self.comparison(lit)
                if cond is not None:
                    conditions.append(cond)
                continue
            node, binding = self.bind(lit, fresh)
            inputs.append(node)
            bindings.append(binding)
        bound = {v for b in bindings for v in b}
        head_vars: list[str] = []
        for term in head.args:
            if not isinstance(term, ast.Var):
                what = "a constant" if isinstance(term, ast.Const) else "'_'"
                self.error(f"the head of a rule cannot hold {what}; "
                           "use a variable bound in the body", term.loc or head.loc)
                return None
            if term.name not in bound:
                self.error(f"head variable '{term.name}' does not appear in a body atom",
                           term.loc or head.loc)
                return None
            head_vars.append(term.name)
        for cond in conditions:
            for var in (cond.left,) if cond.right_const else (cond.left, cond.right):
                if var not in bound:
                    self.error(f"variable '{var}' of a comparison does not appear in a body "
                               "atom", rule.loc)
                    return None
        out = (head_vars[0], head_vars[1])
        if len(inputs) == 1 and not conditions:
            if out == bindings[0]:
                return Rename(inputs[0], head.pred, reverse=False)
            if out == (bindings[0][1], bindings[0][0]):
                return Rename(inputs[0], head.pred, reverse=True)
        return Pattern(tuple(inputs), tuple(bindings), out, head.pred, tuple(conditions))

    def comparison(self, lit: ast.Comparison) -> VarCondition | None:
        left, right = lit.left, lit.right
        if isinstance(left, ast.Anon) or isinstance(right, ast.Anon):
            self.error("'_' cannot be compared; name the variable", lit.loc)
            return None
        if isinstance(left, ast.Const) and isinstance(right, ast.Const):
            self.error("a comparison of two constants is always true or always false; "
                       "remove it", lit.loc)
            return None
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
            raise DlErrors([DlError(
                "no window size: add `.window DURATION` to the program or pass --window",
                None, self.checked.filename, self.source)])
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
                    if node is not None and node not in parts:
                        parts.append(node)
                if self.errors:
                    raise DlErrors(self.errors)
                self.exp[pred] = parts[0] if len(parts) == 1 else Union(tuple(parts), pred)
        if self.errors:
            raise DlErrors(self.errors)
        outputs = []
        for name in self.checked.outputs:
            if name not in self.exp:
                self.error(f"output '{name}' is neither defined by a rule nor read as an "
                           "input label", None)
            else:
                outputs.append(self.exp[name])
        if not self.checked.outputs:
            self.error("the program has no output: add `.output NAME` or define `Answer`", None)
        if self.errors:
            raise DlErrors(self.errors)
        return Plan(outputs=tuple(outputs), order=self.checked.order)


def _terms(literal) -> tuple:
    if isinstance(literal, ast.Comparison):
        return (literal.left, literal.right)
    return literal.args


def translate(checked: CheckedProgram, *, source: str | None = None,
              canonical: bool = False, skip: Collection[str] = ()) -> Plan:
    """The SGA plan of `checked`: the canonical plan (thesis Algorithm SGQParser), then the
    rewrite passes of sga/rewrite/pipeline.py except those named in `skip` (`Plan.rewrites`
    names those that changed it). `canonical` skips `shared_chains` too: the plan before its
    PATTERN chains are shared (`sgq explain --canonical`).

    `source` (the program text) only serves error messages: their line and caret.

    Raises DlErrors for the few shapes the algebra cannot express and the checker has not
    rejected (a constant or `_` in a head, a comparison of two constants, no window, no output).

    >>> from sgq.datalog.check import check_text
    >>> plan = translate(check_text(".window 10\\nAnswer(x, y) :- a+(x, y)."))
    >>> [type(op).__name__ for op in plan.nodes()]
    ['WScan', 'Path', 'Rename']
    """
    plan = _Translator(checked, source).run()
    return rewrite(plan, {*skip, "shared_chains"} if canonical else skip)
