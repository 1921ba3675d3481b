"""The oracle's entry points: evaluate checked programs on many streams in few Spark jobs.

Every case (a program and one stream) gets a case id `cid` and every distinct program a
program id `pid`; all of them go through the same Spark jobs. Steps:
1. input snapshots at every change point of every case (`windows.py`), one checkpoint (a
   second when a program reads properties: the tuples with their properties, specs §4c);
2. each program walks its predicates in the checked topological order, each rule a join of
   its body atoms on `(cid, tau)` and shared variables (`rules.py`);
3. whenever programs need closures or path atoms, they hand them over and all pending ones of
   all programs run as ONE semi-naive fixpoint (`recursion.py`, keyed by a request id; the
   simple ones as one expansion of simple paths, `simple_paths.py`) — the
   programs are Python generators advanced in lockstep, so the number of Spark jobs grows with
   the depth of the programs, not their number;
4. one collect of every output predicate and every change point.
Starts from the checked datalog program only, never the SGA plan (independence rule).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from sgq.datalog.ast import Atom, Closure, PathAtom, regex_prop_labels
from sgq.datalog.checked import CheckedProgram
from sgq.datalog.printer import regex_text

from .automaton import build_automaton
from .properties import passes, value_of
from .recursion import (
    closure_edges,
    closure_pairs,
    identity_pairs,
    joint_closure,
    path_pairs,
    product_edges,
)
from .result import OracleResult
from .rules import KEY, evaluate_rule, seen_keys
from .run_starts import numbered_points, with_starts
from .session import spark_session
from .simple_paths import simple_expansion
from .windows import change_points_frame, events_frame, intervals_frame, snapshot_frame

#: `(src, trg, label, t, op)`, or with a sixth field: the dict of its present properties
Edge = tuple

#: programs evaluated in one pass: bounds the size of Spark's query plans.
PROGRAMS_PER_PASS = 16


class _ProgramEvaluation:
    """The relations of one program over all its cases, as lazy DataFrames `(cid, tau, a, b)`."""

    def __init__(self, spark, pid: int, checked: CheckedProgram, snapshots, numbered: DataFrame):
        self.spark, self.checked = spark, checked
        self.numbered = numbered  # (cid, tau, k): change points in order, for run starts
        snapshot, tuples = snapshots  # pairs `(pid, cid, tau, src, trg, label)`; with props
        self.snapshot = snapshot.filter(F.col("pid") == pid).drop("pid")
        self.tuples = tuples.filter(F.col("pid") == pid).drop("pid") if tuples else None
        self.relations: dict[str, DataFrame] = {}
        self.derived: dict[object, DataFrame] = {}
        edb = list(checked.edb)
        dom = self.snapshot.filter(F.col("label").isin(edb)) if edb else self.snapshot.limit(0)
        self.domain = (
            dom.select(*KEY, F.col("src").alias("v"))
            .unionByName(dom.select(*KEY, F.col("trg").alias("v")))
            .distinct()
        )

    def relation(self, pred: str) -> DataFrame:
        if pred not in self.relations:
            if pred in self.checked.idb:
                raise RuntimeError(f"{pred} used before it was evaluated (order)")
            self.relations[pred] = self.snapshot.filter(F.col("label") == F.lit(pred)).select(
                *KEY, F.col("src").alias("a"), F.col("trg").alias("b")
            )
        return self.relations[pred]

    def _tuples(self, pred: str) -> DataFrame:
        """The input tuples of `pred` at every change point, properties included."""
        return self.tuples.filter(F.col("label") == F.lit(pred))

    def braced(self, atom: Atom) -> DataFrame:
        """`(cid, tau, a, b, pk0, ...)`: the tuples an atom with braces sees, the values of
        the properties its braces name (oracle/rules.py `seen_keys`) for the tuples that
        have them all (specs/semantics.md §4c); its constants filter later (`bindings`)."""
        values = [
            value_of(F.col("props"), key).alias(f"pk{j}")
            for j, key in enumerate(seen_keys(atom.props))
        ]
        rows = self._tuples(atom.pred).select(
            *KEY, F.col("src").alias("a"), F.col("trg").alias("b"), *values
        )
        for j in range(len(values)):
            rows = rows.filter(F.col(f"pk{j}").isNotNull())
        return rows.distinct()

    def letter_relation(self, auto):
        """What each letter of a path automaton reads: a label's pairs, or for a label with
        tests the pairs of its edges that pass them."""

        def relation(letter: str) -> DataFrame:
            label = auto.tested.get(letter)
            if label is None:
                return self.relation(letter)
            return (
                self._tuples(label.name)
                .filter(passes(F.col("props"), label.props))
                .select(*KEY, F.col("src").alias("a"), F.col("trg").alias("b"))
                .distinct()
            )

        return relation

    def atom(self, lit) -> DataFrame:
        if isinstance(lit, Atom) and lit.props:
            return self.braced(lit)
        if isinstance(lit, Atom):
            return self.relation(lit.pred)
        if isinstance(lit, Closure):
            plus = self.derived[("closure", lit.pred, lit.simple)]
            if lit.op == "+":
                return plus
            return plus.unionByName(identity_pairs(self.domain)).distinct()
        if isinstance(lit, PathAtom):
            return self.derived[("path", regex_text(lit.regex), lit.simple)]
        raise TypeError(f"not a body atom: {lit!r}")

    def starts(self, rel: DataFrame) -> DataFrame:
        """`rel` with the start of each pair's run (oracle/run_starts.py)."""
        return with_starts(rel, self.numbered)

    def _requests(self, rules) -> list:
        """The closures and path atoms `rules` need that are not computed yet:
        `(key, kind, closure input edges, finish(closed) -> pairs)`; kind "closure", or
        "simple" for a simple closure or path atom (expanded by `simple_paths.py`)."""
        out, keys = [], set()
        for rule in rules:
            for lit in rule.body:
                if isinstance(lit, Closure):
                    key = ("closure", lit.pred, lit.simple)
                    edges, finish = closure_edges(self.relation(lit.pred)), closure_pairs
                elif isinstance(lit, PathAtom):
                    key = ("path", regex_text(lit.regex), lit.simple)
                    auto = build_automaton(lit.regex)
                    edges = product_edges(self.spark, auto, self.letter_relation(auto))
                    finish = self._path_finisher(auto)
                else:
                    continue
                if key not in self.derived and key not in keys:
                    keys.add(key)
                    out.append((key, "simple" if lit.simple else "closure", edges, finish))
        return out

    def _path_finisher(self, auto):
        def finish(closed: DataFrame) -> DataFrame:
            pairs = path_pairs(auto, closed)
            if auto.nullable:
                pairs = pairs.unionByName(identity_pairs(self.domain))
            return pairs.distinct()

        return finish

    def run(self):
        """A generator: yields lists of requests `(kind, frame)` — kind "closure" (edges of a
        graph to close) or "keep" (a relation to materialise, so later plans stay small) —
        and receives their results in the same order."""
        rules = self.checked.program.rules
        for pred in self.checked.order:
            if pred not in self.checked.idb:
                continue
            mine = [r for r in rules if r.head.pred == pred]
            requests = self._requests(mine)
            if requests:
                closed = yield [(kind, edges) for _key, kind, edges, _finish in requests]
                for (key, _kind, _edges, finish), result in zip(requests, closed):
                    self.derived[key] = finish(result)
            frame = None
            for rule in mine:
                part = evaluate_rule(rule, self.atom, self.starts)
                frame = part if frame is None else frame.unionByName(part)
            (kept,) = yield [("keep", closure_edges(frame.distinct()))]
            self.relations[pred] = closure_pairs(kept)


def _run_lockstep(evaluations: dict[int, _ProgramEvaluation]) -> None:
    """Advance every program; each round materialises every pending request of every program
    in one checkpoint, then runs all pending closures as one fixpoint."""
    generators = {pid: ev.run() for pid, ev in evaluations.items()}
    pending: dict[int, list[DataFrame]] = {}
    for pid, gen in generators.items():
        try:
            pending[pid] = next(gen)
        except StopIteration:
            pass
    while pending:
        union, slots, closures, simples, rid = None, {}, [], [], 0
        for pid, requests in pending.items():
            for i, (kind, edges) in enumerate(requests):
                part = edges.withColumn("rid", F.lit(rid))
                union = part if union is None else union.unionByName(part)
                slots[(pid, i)] = rid
                if kind == "closure":
                    closures.append(rid)
                elif kind == "simple":
                    simples.append(rid)
                rid += 1
        base = union.distinct().localCheckpoint(eager=True)
        closed = expanded = base
        if closures:
            closed = joint_closure(base.filter(F.col("rid").isin(closures)), materialized=True)
        if simples:
            expanded = simple_expansion(base.filter(F.col("rid").isin(simples)))
        outcome = {"closure": closed, "simple": expanded, "keep": base}
        nxt: dict[int, list] = {}
        for pid, requests in pending.items():
            results = [
                outcome[kind].filter(F.col("rid") == slots[(pid, i)]).drop("rid")
                for i, (kind, _edges) in enumerate(requests)
            ]
            try:
                nxt[pid] = generators[pid].send(results)
            except StopIteration:
                pass
        pending = nxt


def _reads_properties(checked: CheckedProgram) -> bool:
    return any(
        isinstance(lit, Atom)
        and lit.props
        or isinstance(lit, PathAtom)
        and regex_prop_labels(lit.regex)
        for rule in checked.program.rules
        for lit in rule.body
    )


def _snapshots(tuples: DataFrame, programs) -> tuple[DataFrame, DataFrame | None]:
    """The input snapshot as pairs `(pid, cid, tau, src, trg, label)` and, when some program
    reads properties, as tuples with their `props`: each materialised once (a checkpoint)."""
    if not any(_reads_properties(checked) for checked in programs):
        return tuples.drop("props").distinct().localCheckpoint(eager=True), None
    tuples = tuples.localCheckpoint(eager=True)
    return tuples.drop("props").distinct().localCheckpoint(eager=True), tuples


def _evaluate_pass(
    programs: dict[int, CheckedProgram], streams: dict[int, list], program_of: dict[int, int]
) -> dict[int, OracleResult]:
    spark = spark_session()
    events = events_frame(spark, streams, program_of)
    intervals = intervals_frame(programs, events)
    points = change_points_frame(events, intervals)
    snapshots = _snapshots(snapshot_frame(intervals, points), programs.values())
    numbered = numbered_points(points)
    evaluations = {
        pid: _ProgramEvaluation(spark, pid, checked, snapshots, numbered)
        for pid, checked in programs.items()
    }
    _run_lockstep(evaluations)
    # one collect: the output facts, and the change points as rows with pred = NULL
    union = points.select(
        *KEY,
        F.lit(None).cast("string").alias("a"),
        F.lit(None).cast("string").alias("b"),
        F.lit(None).cast("string").alias("pred"),
    )
    for pid, ev in evaluations.items():
        for pred in programs[pid].outputs:
            union = union.unionByName(ev.relations[pred].withColumn("pred", F.lit(pred)))
    facts: dict[int, dict[str, set]] = {cid: defaultdict(set) for cid in streams}
    case_points: dict[int, list[int]] = {cid: [] for cid in streams}
    for cid, tau, a, b, pred in union.collect():
        if pred is None:
            case_points[cid].append(tau)
        else:
            facts[cid][pred].add((tau, a, b))
    return {
        cid: OracleResult(case_points[cid], facts[cid], programs[program_of[cid]].outputs)
        for cid in streams
    }


def evaluate_many(
    cases: Sequence[tuple[CheckedProgram, Sequence[Edge]]],
    programs_per_pass: int = PROGRAMS_PER_PASS,
) -> list[OracleResult]:
    """Evaluate `(program, stream)` cases; returns one OracleResult per case, in order.
    Cases are grouped by program; `programs_per_pass` distinct programs share each pass."""
    pids: dict[CheckedProgram, int] = {}
    for checked, _edges in cases:
        pids.setdefault(checked, len(pids))
    by_pid = {pid: checked for checked, pid in pids.items()}
    out: dict[int, OracleResult] = {}
    order = sorted(by_pid)
    for start in range(0, len(order), max(1, programs_per_pass)):
        chunk = set(order[start : start + programs_per_pass])
        streams, program_of = {}, {}
        for cid, (checked, edges) in enumerate(cases):
            if pids[checked] in chunk:
                streams[cid] = [tuple(e) for e in edges]
                program_of[cid] = pids[checked]
        out.update(_evaluate_pass({p: by_pid[p] for p in chunk}, streams, program_of))
    return [out[i] for i in range(len(cases))]


def evaluate_cases(
    checked: CheckedProgram, streams: dict[int, Sequence[Edge]] | Sequence[Sequence[Edge]]
) -> dict[int, OracleResult]:
    """Evaluate one program on many streams (a dict `case id -> edges`, or a list whose
    positions are the case ids). Returns case id -> OracleResult."""
    if not isinstance(streams, dict):
        streams = dict(enumerate(streams))
    ids = list(streams)
    results = evaluate_many([(checked, streams[cid]) for cid in ids])
    return dict(zip(ids, results))


def evaluate(checked: CheckedProgram, edges: Iterable[Edge]) -> OracleResult:
    """Evaluate `checked` on one stream."""
    return evaluate_many([(checked, list(edges))])[0]
