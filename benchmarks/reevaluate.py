"""The re-evaluation baseline: the one-time query recomputed from scratch on each snapshot.

This is what an engine without incremental maintenance does once per slide (thesis 5.3, the
"re-execution strategy"): take the window's snapshot graph and evaluate the program's
one-time meaning (specs/semantics.md §4), rule by rule in the checked program's order. It is
planned as a person plans it by hand, so that it is the yardstick a user would write instead:

- a relation is an adjacency, source -> its targets (an input label's is the window's own
  index, reverse indexes are built only for the atoms probed by target);
- a body is joined in `reeval_plan.order_body`'s order, as nested index loops over the
  bound arguments (`reeval_plan` says how it picks the order);
- once a rule's head variables are bound, the rest of the body is an existence test that
  stops at its first witness, and a head pair already tried is not tried again;
- a path atom is searched only from the sources (or to the targets) bound before it, each
  once (`reeval_paths`); alone in its body, from every source.

It starts from the checked program (datalog AST), like the oracle, and shares nothing with
the engine but the regex's minimal DFA (base/dfa.py). It evaluates what `sgq bench` runs it
on: rules without time variables and without `simple` paths (a UserError names what it
cannot evaluate).

Cost per slide: the plan's index loops over the snapshot, plus one product search per root
a path atom is searched from.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from sgq.base.errors import UserError
from sgq.datalog.ast import Anon, Atom, Comparison, Const, Rule, Var, regex_prop_labels
from sgq.datalog.checked import CheckedProgram

from .reeval_paths import (
    SearchMemo,
    automaton,
    backward_moves,
    forward_moves,
    full_relation,
    is_nullable,
    literal_regex,
)
from .reeval_plan import Statistics, order_body

#: a relation on one snapshot: source -> its targets (never an empty collection)
Relation = Mapping[str, object]

Step = Callable[[list], bool]


def _true(_vals: list) -> bool:
    return True


def refuse_unsupported(checked: CheckedProgram) -> None:
    """A UserError when the program has what the baseline does not evaluate."""
    for rule in checked.program.rules:
        for lit in rule.body:
            if isinstance(lit, Comparison):
                continue
            if lit.simple:
                raise UserError("the re-evaluation baseline evaluates no simple paths")
            if lit.time not in (None, "_"):
                raise UserError("the re-evaluation baseline evaluates no time variables")
            tested = lit.props if isinstance(lit, Atom) else regex_prop_labels(literal_regex(lit))
            if tested:
                # (the columns after `ts` are left unread: reeval_window.read_stream)
                raise UserError("the re-evaluation baseline evaluates no edge properties")


def reverse(relation: Relation) -> dict[str, list]:
    """target -> its sources."""
    out: dict[str, list] = {}
    for s, targets in relation.items():
        for t in targets:
            have = out.get(t)
            if have is None:
                out[t] = [s]
            else:
                have.append(s)
    return out


def statistics_of(relation: Relation) -> Statistics:
    """`reeval_plan.Statistics` of a relation."""
    by_target: dict = {}
    size = squares = 0
    for ts in relation.values():
        n = len(ts)  # type: ignore[arg-type]
        size += n
        squares += n * n
        for t in ts:  # type: ignore[attr-defined]
            by_target[t] = by_target.get(t, 0) + 1
    if not size:
        return (0.0, 0.0, 0.0, 0.0, 0.0)
    return (
        float(size),
        float(len(relation)),
        float(len(by_target)),
        squares / size,
        sum(n * n for n in by_target.values()) / size,
    )


class _Snapshot:
    """One slide's relations with what is derived from them on first use: reverse indexes,
    the active domain, path searches."""

    def __init__(self, checked: CheckedProgram, relations: dict, dfas: dict) -> None:
        self.checked = checked
        self.relations = relations
        self.dfas = dfas
        self._reverse: dict[str, dict] = {}
        self._domain: set | None = None

    def relation(self, pred: str) -> Relation:
        return self.relations.get(pred) or {}

    def reverse(self, pred: str) -> dict:
        inv = self._reverse.get(pred)
        if inv is None:
            inv = self._reverse[pred] = reverse(self.relation(pred))
        return inv

    def domain(self) -> set:
        """V_τ: the endpoints of the snapshot's edges of input labels used in a body."""
        if self._domain is None:
            dom: set = set()
            for label in self.checked.edb:
                rel = self.relation(label)
                dom.update(rel)
                for targets in rel.values():
                    dom.update(targets)  # type: ignore[arg-type]
            self._domain = dom
        return self._domain


class Reevaluation:
    """A checked program evaluated on one snapshot after another. `statistics` (label ->
    `reeval_plan.Statistics` of a window of the stream) fix the join order of the rules
    over input labels once; without them, and for derived relations, each snapshot's own
    are used."""

    def __init__(
        self, checked: CheckedProgram, statistics: dict[str, Statistics] | None = None
    ) -> None:
        refuse_unsupported(checked)
        self.checked = checked
        self._statistics = statistics or {}
        self._dfas: dict = {}
        self._plans: dict[int, list[int]] = {}
        self._rules: dict[str, list[tuple[int, Rule]]] = {}
        for k, rule in enumerate(checked.program.rules):
            self._rules.setdefault(rule.head.pred, []).append((k, rule))

    def evaluate(self, snapshot: dict[str, Relation]) -> dict[str, Relation]:
        """Every predicate's relation on `snapshot` (input label -> its adjacency)."""
        relations: dict[str, Relation] = {
            label: snapshot.get(label) or {} for label in self.checked.edb
        }
        snap = _Snapshot(self.checked, relations, self._dfas)
        for pred in self.checked.order:
            rules = self._rules.get(pred)
            if not rules:
                continue
            if len(rules) == 1:
                relations[pred] = self._rule(*rules[0], snap)
                continue
            out: dict[str, set] = {}
            for k, rule in rules:
                for s, targets in self._rule(k, rule, snap).items():
                    have = out.get(s)
                    if have is None:
                        out[s] = set(targets)  # type: ignore[arg-type]
                    else:
                        have.update(targets)  # type: ignore[arg-type]
            relations[pred] = out
        return relations

    def _order(self, k: int, rule: Rule, snap: _Snapshot) -> list[int]:
        plan = self._plans.get(k)
        if plan is not None:
            return plan
        preds = {lit.pred for lit in rule.body if isinstance(lit, Atom)}
        # (the whole stream's figures, or the snapshot's for every atom: one scale)
        fixed = all(p in self._statistics for p in preds)

        def stats(pred: str) -> Statistics:
            if fixed:
                return self._statistics[pred]
            return statistics_of(snap.relation(pred))

        plan = order_body(rule.body, stats, frozenset(a.name for a in rule.head.args))  # type: ignore[union-attr]
        if fixed:
            self._plans[k] = plan
        return plan

    def _rule(self, k: int, rule: Rule, snap: _Snapshot) -> dict[str, set]:
        order = self._order(k, rule, snap)
        head = tuple(a.name for a in rule.head.args)  # type: ignore[union-attr]
        comparisons = [lit for lit in rule.body if isinstance(lit, Comparison)]
        if len(order) == 1 and not comparisons:
            lit = rule.body[order[0]]
            names = tuple(a.name if isinstance(a, Var) else None for a in lit.args)  # type: ignore[union-attr]
            if not isinstance(lit, Atom) and names == head and head[0] != head[1]:
                dfa = automaton(literal_regex(lit), snap.dfas)  # type: ignore[arg-type]
                moves = forward_moves(dfa, snap.relation)
                return full_relation(
                    dfa, moves, is_nullable(lit), snap.domain() if is_nullable(lit) else set()
                )  # type: ignore[arg-type]
        return _Join(rule, order, comparisons, head, snap).run()


class _Join:
    """One rule's body as a chain of steps over a list of variable values (one slot per
    variable, constant and `_`), built back to front; the result `out` (head pairs)."""

    def __init__(self, rule: Rule, order: list[int], comparisons, head, snap: _Snapshot) -> None:
        self.snap = snap
        self.head = head
        self.slots: dict = {}
        self.values: list = []
        self.out: dict[str, set] = {}
        self.deferred: tuple[dict, Step] | None = None
        literals = [rule.body[i] for i in order]
        bound_after: list[set] = []
        bound: set = set()
        for lit in literals:
            bound |= {a.name for a in lit.args if isinstance(a, Var)}  # type: ignore[union-attr]
            bound_after.append(set(bound))
        gate = next(i for i, b in enumerate(bound_after) if set(head) <= b)
        at: dict[int, list] = {}
        for cmp in comparisons:
            names = {t.name for t in (cmp.left, cmp.right) if isinstance(t, Var)}
            where = next((i for i, b in enumerate(bound_after) if names <= b), -1) if names else -1
            at.setdefault(where, []).append(cmp)
        # the slots: the head's first, then each variable as it appears
        for name in head:
            self._slot(("var", name))
        step: Step = _true
        for i in range(len(literals) - 1, -1, -1):
            if i == gate:
                # what the rest of the body reads of the variables bound so far
                rest = {
                    t.name
                    for lit in literals[i + 1 :]
                    for t in lit.args  # type: ignore[union-attr]
                    if isinstance(t, Var)
                }
                rest |= {
                    t.name
                    for c in comparisons
                    if c not in at.get(i, ()) and c not in at.get(-1, ())
                    for t in (c.left, c.right)
                    if isinstance(t, Var)
                }
                extra = sorted((rest & bound_after[i]) - set(head))
                step = self._gate(step, i == len(literals) - 1, extra)
            for cmp in at.get(i, ()):
                step = self._compare(cmp, step)
            before = bound_after[i - 1] if i else set()
            later = set(head) | {
                a.name
                for lit in literals[i + 1 :]
                for a in lit.args  # type: ignore[union-attr]
                if isinstance(a, Var)
            }
            later |= {t.name for c in comparisons for t in (c.left, c.right) if isinstance(t, Var)}
            step = self._literal(literals[i], before, later, step)
        for cmp in at.get(-1, ()):
            step = self._compare(cmp, step)
        self.first = step

    def run(self) -> dict[str, set]:
        vals = list(self.values)
        self.first(vals)
        if self.deferred is not None:
            self._test_candidates(vals, *self.deferred)
        return self.out

    def _test_candidates(self, vals: list, candidates: dict, rest: Step) -> None:
        """The rest of the body on each distinct head pair the loops bound; a last test of
        the head pair itself is one intersection of two sets per source."""
        out = self.out
        h1, h2 = self.slots[("var", self.head[0])], self.slots[("var", self.head[1])]
        test = getattr(rest, "test", None)
        if test is not None and test[1:] == (h1, h2):
            fwd = test[0]
            if isinstance(fwd, SearchMemo):
                fwd.prefetch(candidates)
            for a, bs in candidates.items():
                targets = fwd.get(a)
                if targets is not None:
                    hit = bs.intersection(targets)
                    if hit:
                        out[a] = hit
            return
        for a, bs in candidates.items():
            vals[h1] = a
            hit = set()
            for b in bs:
                vals[h2] = b
                if rest(vals):
                    hit.add(b)
            if hit:
                out[a] = hit

    def _slot(self, key) -> int:
        slot = self.slots.get(key)
        if slot is None:
            slot = self.slots[key] = len(self.values)
            self.values.append(key[1] if key[0] == "const" else None)
        return slot

    def _arg(self, term, before: set, later: set) -> tuple[int, bool, bool]:
        """(slot, known before the step, needed after it) of an argument."""
        if isinstance(term, Const):
            return self._slot(("const", term.value)), True, False
        if isinstance(term, Anon):
            return self._slot(("anon", len(self.values))), False, False
        return self._slot(("var", term.name)), term.name in before, term.name in later

    def _compare(self, cmp: Comparison, nxt: Step) -> Step:
        a = self._arg(cmp.left, set(), set())[0]
        b = self._arg(cmp.right, set(), set())[0]
        if cmp.op == "=":
            return lambda vals: vals[a] == vals[b] and nxt(vals)
        return lambda vals: vals[a] != vals[b] and nxt(vals)

    def _gate(self, rest: Step, last: bool, extra: list[str]) -> Step:
        """The point where the head is bound: the pair is added once the rest of the body
        holds (an existence test that stops at its first witness), and not tested again
        once it holds, nor for the bindings of the variables the rest reads (`extra`, with
        the head's) it failed for; the loops before always go on."""
        h1, h2 = self.slots[("var", self.head[0])], self.slots[("var", self.head[1])]
        out = self.out
        if last:
            return _pair_adder(out, h1, h2)
        if not extra:
            # the rest reads the head pair only: test each distinct pair once, after the loops
            candidates: dict[str, set] = {}
            self.deferred = (candidates, rest)
            return _pair_adder(candidates, h1, h2)
        keys = [self.slots[("var", name)] for name in extra]
        failed: set = set()

        def gate(vals: list) -> bool:
            a, b = vals[h1], vals[h2]
            got = out.get(a)
            if got is not None and b in got:
                return False
            key = (a, b, *[vals[k] for k in keys]) if keys else (a, b)
            if key in failed:
                return False
            if rest(vals):
                if got is None:
                    out[a] = {b}
                else:
                    got.add(b)
            else:
                failed.add(key)
            return False

        return gate

    def _access(self, lit):
        """(forward, backward, full) of a literal: source -> targets, target -> sources and
        every pair, each a function built on first use."""
        snap = self.snap
        if isinstance(lit, Atom):
            return (
                lambda: snap.relation(lit.pred),
                lambda: snap.reverse(lit.pred),
                lambda: snap.relation(lit.pred),
            )
        dfa = automaton(literal_regex(lit), snap.dfas)
        nullable = is_nullable(lit)
        return (
            lambda: SearchMemo(dfa, forward_moves(dfa, snap.relation), True, nullable, snap.domain),
            lambda: SearchMemo(
                dfa, backward_moves(dfa, snap.reverse), False, nullable, snap.domain
            ),
            lambda: full_relation(
                dfa,
                forward_moves(dfa, snap.relation),
                nullable,
                snap.domain() if nullable else set(),
            ),
        )

    def _literal(self, lit, before: set, later: set, nxt: Step) -> Step:
        forward, backward, full = self._access(lit)
        sa, ka, na = self._arg(lit.args[0], before, later)
        sb, kb, nb = self._arg(lit.args[1], before, later)
        if sa == sb:  # p(x, x)
            if ka:
                fwd = forward()

                def same_known(vals: list) -> bool:
                    v = vals[sa]
                    targets = fwd.get(v)
                    return targets is not None and v in targets and nxt(vals)

                return same_known
            rel = full()

            def same_free(vals: list) -> bool:
                for v, targets in rel.items():
                    if v in targets:
                        vals[sa] = v
                        if nxt(vals):
                            return True
                return False

            return same_free
        if ka and kb:
            fwd = forward()

            def both_known(vals: list) -> bool:
                targets = fwd.get(vals[sa])
                return targets is not None and vals[sb] in targets and nxt(vals)

            if nxt is _true:  # the body's last test: a probe before it may take it in
                both_known.test = (fwd, sa, sb)  # type: ignore[attr-defined]
            return both_known
        if ka or kb:
            index = forward() if ka else backward()
            key, slot = (sa, sb) if ka else (sb, sa)
            if not (nb if ka else na):
                return lambda vals: vals[key] in index and nxt(vals)
            test = getattr(nxt, "test", None)
            if test is not None and slot in test[1:]:
                return _probe_then_test(index, key, slot, test)
            meets = getattr(nxt, "meets", None)
            if meets is not None and meets[1] == slot and meets[3] != slot:
                return _probe_then_meet(index, key, meets)

            def probe(vals: list) -> bool:
                for w in index.get(vals[key], ()):
                    vals[slot] = w
                    if nxt(vals):
                        return True
                return False

            return probe
        rel = full()
        if na and nb:

            def scan(vals: list) -> bool:
                for v, targets in rel.items():
                    vals[sa] = v
                    for w in targets:
                        vals[sb] = w
                        if nxt(vals):
                            return True
                return False

            return scan
        if na or nb:
            column = list(rel) if na else list(set().union(*rel.values()))
            slot = sa if na else sb

            def scan_one(vals: list) -> bool:
                for v in column:
                    vals[slot] = v
                    if nxt(vals):
                        return True
                return False

            return scan_one
        nonempty = bool(rel)
        return lambda vals: nonempty and nxt(vals)


def _probe_then_test(index, key: int, slot: int, test) -> Step:
    """A probe whose every row goes to the body's last test, a membership of a pair that
    holds the probed value: the test in the probe's loop, or, when the probed value is the
    pair's target, one disjointness test of two sets (no call per row)."""
    fwd, ta, tb = test
    if tb == slot and ta != slot:

        def probe_targets(vals: list) -> bool:
            targets = fwd.get(vals[ta])
            if targets is None:
                return False
            found = index.get(vals[key])
            if found is None:
                return False
            view = targets.keys() if type(targets) is dict else targets
            return not view.isdisjoint(found)

        probe_targets.meets = (index, key, fwd, ta)  # type: ignore[attr-defined]
        return probe_targets

    def probe_tested(vals: list) -> bool:
        for w in index.get(vals[key], ()):
            vals[slot] = w
            targets = fwd.get(vals[ta])
            if targets is not None and vals[tb] in targets:
                return True
        return False

    return probe_tested


def _probe_then_meet(index, key: int, meets) -> Step:
    """A probe whose every value `w` goes to a `_probe_then_test` of `w`'s targets against
    a set fixed before it: one loop, no call per value."""
    inner, _slot, fwd, ta = meets

    def probe_meets(vals: list) -> bool:
        targets = fwd.get(vals[ta])
        if targets is None:
            return False
        view = targets.keys() if type(targets) is dict else targets
        get = inner.get
        for w in index.get(vals[key], ()):
            found = get(w)
            if found is not None and not view.isdisjoint(found):
                return True
        return False

    return probe_meets


def adjacency(pairs) -> dict[str, set]:
    """A set of pairs as a relation (source -> targets)."""
    out: dict[str, set] = {}
    for s, t in pairs:
        out.setdefault(s, set()).add(t)
    return out


def pairs(relation: Relation) -> set[tuple[str, str]]:
    """A relation as its set of pairs."""
    return {(s, t) for s, targets in relation.items() for t in targets}  # type: ignore[attr-defined]


def evaluate(checked: CheckedProgram, snapshot: dict[str, set]) -> dict[str, set]:
    """Every predicate's pairs on one snapshot (`label -> pairs`): `Reevaluation` on it."""
    got = Reevaluation(checked).evaluate({k: adjacency(v) for k, v in snapshot.items()})
    return {pred: pairs(rel) for pred, rel in got.items()}


def _pair_adder(pairs: dict, h1: int, h2: int):
    """A binding's head pair `(vals[h1], vals[h2])` into `pairs` ({src: {trg}}); never stops
    the loops (returns False)."""

    def add(vals: list) -> bool:
        got = pairs.get(vals[h1])
        if got is None:
            pairs[vals[h1]] = {vals[h2]}
        else:
            got.add(vals[h2])
        return False

    return add
