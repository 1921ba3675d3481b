"""The re-evaluation baseline over a whole stream (benchmarks/reeval_run.py): at every slide's
last instant its output is the engine's output snapshot there (the engine's deltas replayed)
and the reference's, `-` edges included; the delta rows it writes replay to the same
snapshots; and `sgq bench` times it from its process's start."""

from __future__ import annotations

import random

import pytest
import snapshot_reference as ref
from sgq.benchmarks import reeval_run, suite
from sgq.benchmarks.reevaluate import pairs
from sgq.benchmarks.workloads import Workload

import sgq

PROGRAMS = [
    "Answer(x, y) :- [a*](x, y).",
    "Answer(x, y) :- [a/b*](x, y).",
    "Answer(x, y) :- [(a|b|c)*](x, y), b(y, _).",
    "Answer(x, y) :- a+(x, y), b(x, m), c(m, y).",
    "Answer(m1, m2) :- a(x, y), b(m1, x), b(m2, y), c(m2, m1).",
    "R(x, y) :- a(x, m), b(m, y).\nAnswer(x, z) :- R+(x, y), c(y, z), x != z.",
    'Answer(y, x) :- [a+/b](x, y), c(y, "1").',
]


def _stream(seed: int) -> list[tuple]:
    """Edges over five vertices with ties and `-` edges of earlier inserts."""
    rnd = random.Random(seed)
    edges: list[tuple] = []
    inserted: list[tuple] = []
    t = 0
    for _ in range(70):
        t += rnd.choice((0, 0, 1, 2))
        if inserted and rnd.random() < 0.2:
            s, d, label = rnd.choice(inserted)
            edges.append((s, d, label, t, "-"))
        else:
            s, d = str(rnd.randrange(5)), str(rnd.randrange(5))
            label = rnd.choice("abc")
            inserted.append((s, d, label))
            edges.append((s, d, label, t, "+"))
    return edges


def _write(path, edges) -> None:
    path.write_text(
        "src,trg,label,ts,op\n" + "".join(f"{s},{d},{l},{t},{o}\n" for s, d, l, t, o in edges)
    )


def _replayed(rows, taus) -> dict[int, set]:
    """The snapshot at each of `taus` of delta rows (time, op, src, trg, label)."""
    rows = sorted(rows, key=lambda r: r[0])
    state: set = set()
    out, k = {}, 0
    for tau in taus:
        while k < len(rows) and rows[k][0] <= tau:
            time, op, s, d, label = rows[k]
            (state.add if op == "+" else state.discard)((s, d, label))
            k += 1
        out[tau] = set(state)
    return out


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("text", PROGRAMS)
def test_slide_end_snapshots_are_the_engines(text, seed, tmp_path):
    program = ".window 6\n.slide 2\n" + text
    edges = _stream(seed)
    stream = tmp_path / "s.csv"
    _write(stream, edges)
    checked = sgq.compile(text=program).checked
    seen: dict[int, set] = {}

    def keep(tau, outputs):
        seen[tau] = {(s, d, label) for label, rel in outputs.items() for s, d in pairs(rel)}

    deltas = tmp_path / "d.csv"
    figures = reeval_run.run(checked, str(stream), str(deltas), on_slide=keep)
    assert figures["slides"] == len(seen) == edges[-1][3] // 2 - edges[0][3] // 2 + 1
    assert figures["unmatched_deletions"] >= 0
    engine = [tuple(d) for d in sgq.compile(text=program).run(edges)]
    taus = sorted(seen)
    replayed = _replayed(engine, taus)
    lines = deltas.read_text().splitlines()
    assert lines[0] == "time,op,src,trg,label"
    assert figures["slide_deltas"] == len(lines) - 1
    written = [
        (int(t), op, s, d, label) for t, op, s, d, label in (x.split(",") for x in lines[1:])
    ]
    mine = _replayed(written, taus)
    for tau in taus:
        want = ref.output_snapshot(checked, edges, tau)
        assert seen[tau] == replayed[tau] == want, tau
        assert mine[tau] == seen[tau], tau
    # after the stream every result leaves
    assert _replayed(written, [10**9])[10**9] == set()


def test_a_delete_truncates_and_a_reinsert_restores(tmp_path):
    """`+` then `-` of one edge at one instant leaves it out; `-` then `+` leaves it in."""
    program = ".window 10\n.slide 5\nAnswer(x, y) :- a(x, y)."
    checked = sgq.compile(text=program).checked
    edges = [
        ("1", "2", "a", 0, "+"),
        ("1", "3", "a", 1, "+"),
        ("1", "2", "a", 3, "-"),
        ("1", "3", "a", 6, "-"),
        ("1", "3", "a", 6, "+"),
        ("4", "5", "a", 7, "+"),
        ("4", "5", "a", 7, "-"),
        ("9", "9", "a", 8, "-"),
    ]
    seen = {}

    def keep(tau, outputs):
        seen[tau] = pairs(outputs["Answer"])

    stream = tmp_path / "s.csv"
    stream.write_text("".join(f"{s},{d},{l},{t},{o}\n" for s, d, l, t, o in edges))
    figures = reeval_run.run(checked, str(stream), on_slide=keep)
    assert seen == {4: {("1", "3")}, 9: {("1", "3")}}
    assert figures["unmatched_deletions"] == 1


def test_the_whole_process_timing_includes_the_start(tmp_path):
    """The suite times the baseline's own process from its start to its exit: more than its
    loop, and its CPU includes the interpreter's start and the imports."""
    edges = _stream(7)
    stream = tmp_path / "s.csv"
    _write(stream, edges)
    query = tmp_path / "q.dl"
    query.write_text("Answer(x, y) :- a+(x, y), b(x, m), c(m, y).\n")
    w = Workload("t", str(query), "snb", len(edges), 1, 6, 2, stream="s.csv")
    got = suite.run_child("reeval", w, stream, 120.0, whole=True)
    assert got["edges"] == len(edges) and got["slides"] > 1, got
    assert got["process_seconds"] > got["seconds"] > 0
    assert got["process_cpu_seconds"] > got["cpu_seconds"]
    assert got["process_throughput"] == len(edges) / got["process_seconds"]


def test_the_joins_are_planned_as_a_person_plans_them(tmp_path):
    """On the shared snb stream's first edges: SGA Q5 starts from `replyOf` and follows each
    message's one creator; Q6 joins `likes` and `hasCreator` first and searches `knows+`
    last, from the sources they bind."""
    import gzip

    from sgq.benchmarks import workloads
    from sgq.benchmarks.reeval_plan import order_body
    from sgq.benchmarks.reeval_window import read_stream, statistics

    prefix = tmp_path / "snb.csv"
    with gzip.open(workloads.STREAMS / "snb-100k.csv.gz", "rt", encoding="utf-8") as src:
        prefix.write_text("".join(next(src) for _ in range(20_001)))
    for name, first, last in (("q5", "replyOf", None), ("q6", None, "knows")):
        path = workloads.specs_dir() / "bench" / "snb" / f"{name}.dl"
        checked = sgq.compile(path=path).checked
        edges = read_stream(str(prefix), set(checked.edb))[0]
        stats = statistics(edges, checked)
        (rule,) = checked.program.rules
        head = frozenset(a.name for a in rule.head.args)
        order = [rule.body[i] for i in order_body(rule.body, stats.__getitem__, head)]
        assert first is None or [a.pred for a in order[:2]] == [first, "hasCreator"], order
        assert last is None or order[-1].pred == last, order


def test_what_the_baseline_does_not_evaluate_is_a_message():
    from sgq.base.errors import UserError
    from sgq.benchmarks.reevaluate import Reevaluation

    for text in (
        "A(x, y) :- simple [a*](x, y).",
        "A(x, z) :- a(x, y)@t, b(y, z)@u, t < u.",
        "A(x, y) :- a(x, y){k: 1}.",
        "A(x, y) :- [a{k < 2}+](x, y).",
    ):
        checked = sgq.compile(text=".window 5\n.output A\n" + text).checked
        with pytest.raises(UserError, match="re-evaluation baseline"):
            Reevaluation(checked)


def test_property_columns_are_left_unread(tmp_path):
    """A stream with property columns after `ts` (what `sgq data get` writes) gives the same
    slide ends as the same stream without them, on the plain and the quoted route."""
    program = sgq.compile(text=".window 10\n.slide 5\nAnswer(x, y) :- a+(x, y).").checked
    plain, props, quoted = (tmp_path / f"{n}.csv" for n in ("plain", "props", "quoted"))
    plain.write_text("src,trg,label,ts\n1,2,a,0\n2,3,a,6\n")
    props.write_text("src,trg,label,ts,k\n1,2,a,0,7\n2,3,a,6,\n")
    quoted.write_text('src,trg,label,ts,k\n1,2,a,0,"x,y"\n2,3,a,6,\n')
    seen = []
    for stream in (plain, props, quoted):
        got: dict = {}

        def keep(tau, outputs, got=got):
            got[tau] = pairs(outputs["Answer"])

        reeval_run.run(program, str(stream), on_slide=keep)
        seen.append(got)
    assert seen[0] == seen[1] == seen[2] and seen[0][9] == {("1", "2"), ("2", "3"), ("1", "3")}
