"""Explicit deletions end to end (specs/semantics.md §2, §5; specs/semantics.md "Deletions"): each
kind of deletion by hand, with its exact end records, the reference at every change point,
state invariants, batching, witnesses and what `sgq run` writes."""

from __future__ import annotations

import random

import pytest
import snapshot_reference as ref
from hypothesis import given, settings
from hypothesis import strategies as st
from incremental_support import assert_matches_reference, compile_text, edge_streams, norm, timed
from sgq.incremental.deltas import delta_rows
from test_engine_reference import PROGRAMS, program_labels

from sgq import PlanOptions


def rows(results):
    return [(r.src, r.trg, r.label, r.ts, r.exp) for r in results]


def by_key(rows: list) -> list:
    """Rows grouped by key `(src, trg)`, each key's rows in emission order (the order of one
    instant's rows across keys is unspecified: specs/semantics.md §7)."""
    return sorted(rows, key=lambda r: (r[0], r[1]))


def run_checked(text, edges, **kw):
    """The engine against the reference at every change point (state checked each time);
    returns (engine, its results)."""
    return assert_matches_reference(compile_text(text, **kw), edges, check_state=True)


# ---- PATH: tree edges, non-tree edges, alternative paths (thesis 4.3.2) ----------------------

PLUS = ".window 10\nAnswer(x, y) :- a+(x, y)."
SPATH = PlanOptions(path_operator="spath")  # S-PATH's trees, from the first edge on


def test_tree_edge_without_alternative_ends_its_subtree():
    # T_1: 1 -> 2 -> 3; deleting 1 -> 2 ends (1, 2) and (1, 3), (2, 3) stays
    edges = [(1, 2, "a", 0), (2, 3, "a", 1), (1, 2, "a", 4, "-")]
    eng, out = run_checked(PLUS, edges)
    assert by_key(rows(out)) == by_key(
        [
            ("1", "2", "Answer", 0, 10),
            ("2", "3", "Answer", 1, 11),
            ("1", "3", "Answer", 1, 10),
            ("1", "2", "Answer", 0, 4),
            ("1", "3", "Answer", 1, 4),
        ]
    )
    assert eng.snapshot(4) == {("2", "3", "Answer")}
    eng = compile_text(PLUS, options=SPATH).engine()
    eng.push_batch(edges)
    tree = eng.dataflow.ops[1].delta_path.trees["1"]
    assert [key for key, node in tree.items() if node[1] > 4] == [("1", 0)]  # the root only


def test_tree_edge_with_alternative_path_reconnects_with_largest_expiry():
    # (1, 3) is reached through 2 (exp 12); the direct edge (exp 10) is the alternative.
    edges = [(1, 3, "a", 0), (1, 2, "a", 2), (2, 3, "a", 3), (2, 3, "a", 5, "-")]
    _, out = run_checked(PLUS, edges)
    # the round's end records, in any order
    assert sorted(rows(out)[-2:]) == [("1", "3", "Answer", 0, 10), ("2", "3", "Answer", 3, 5)]
    eng = compile_text(PLUS, options=SPATH).engine()
    eng.push_batch(edges)
    node = eng.dataflow.ops[1].delta_path.trees["1"][("3", 1)]
    assert node[1] == 10 and node[2] == ("1", 0)  # reattached to the root by the direct edge
    assert delta_rows(out)[-2:] == [(10, "-", "1", "3", "Answer"), (12, "-", "1", "2", "Answer")]


def test_alternative_path_longer_than_the_deleted_one():
    # two paths 1 -> 2 -> 4 and 1 -> 3 -> 4 expiring at 12 and 13: deleting the tree edge of the
    # later one leaves (1, 4) until 12, found among several candidates by the max-heap search
    edges = [
        (1, 2, "a", 2),
        (2, 4, "a", 2),
        (1, 3, "a", 3),
        (3, 4, "a", 3),
        (4, 5, "a", 3),
        (3, 4, "a", 6, "-"),
    ]
    _, out = run_checked(PLUS, edges)
    assert [r for r in rows(out) if r[3:] != (3, 13) and r[0] == "1"][-2:] == [
        ("1", "4", "Answer", 2, 12),
        ("1", "5", "Answer", 3, 12),
    ]


def test_non_tree_edge_only_changes_the_window_graph():
    edges = [(1, 3, "a", 0), (1, 2, "a", 2), (2, 3, "a", 3)]
    q = compile_text(PLUS, options=SPATH)
    eng = q.engine()
    eng.push_batch(edges)
    tree = eng.dataflow.ops[1].delta_path.trees["1"]
    before = {k: list(v) for k, v in tree.items()}
    eng.push_batch([(1, 3, "a", 5, "-")])  # (1, 3) in T_1 hangs off 2, not off this edge
    assert {k: list(v) for k, v in tree.items()} == before
    assert rows(eng.drain())[-1] == ("1", "3", "Answer", 0, 12)  # nothing was cut
    run_checked(PLUS, edges + [(1, 3, "a", 5, "-")], options=SPATH)


def test_deleting_a_cycle_edge_and_nullable_domain():
    text = ".window 10\nAnswer(x, y) :- a*(x, y)."
    edges = [
        (1, 2, "a", 0),
        (2, 1, "a", 1),
        (3, 3, "a", 1),
        (2, 1, "a", 3, "-"),
        (3, 3, "a", 4, "-"),
        (1, 2, "a", 6, "-"),
    ]
    eng, out = run_checked(text, edges)
    assert eng.snapshot(6) == set()
    assert ("3", "3", "Answer", 1, 4) in rows(out)  # the ε-pair ends with its only edge


def test_derived_path_input_cut_short_by_an_alternative():
    # PATH over a PATTERN: the pattern's key survives with a shorter interval (an end record
    # with exp > now), and PATH re-derives through it
    text = ".window 10\nRL(x, y) :- a(x, z), b(z, y).\nAnswer(x, y) :- RL+(x, y)."
    edges = [
        (1, 5, "a", 0),
        (5, 2, "b", 0),
        (1, 6, "a", 3),
        (6, 2, "b", 3),
        (2, 3, "a", 3),
        (3, 4, "b", 3),
        (6, 2, "b", 5, "-"),
    ]
    _, out = run_checked(text, edges)
    assert ("1", "4", "Answer", 3, 10) in rows(out) and ("1", "2", "Answer", 0, 10) in rows(out)


# ---- WSCAN, ties, re-insertion, unmatched ----------------------------------------------------


def test_delete_and_reinsert_at_one_instant_keeps_results_without_a_break():
    edges = [(1, 2, "a", 0), (2, 3, "a", 1), (1, 2, "a", 3, "-"), (1, 2, "a", 3)]
    eng, out = run_checked(PLUS, edges)
    # no end record: (1, 2) and (1, 3) only widen (the re-insertion expires later)
    assert by_key(rows(out)) == by_key(
        [("1", "2", "Answer", 0, 10), ("2", "3", "Answer", 1, 11), ("1", "3", "Answer", 1, 10)]
        + [("1", "2", "Answer", 0, 13), ("1", "3", "Answer", 1, 11)]
    )
    assert delta_rows(out) == [
        (0, "+", "1", "2", "Answer"),
        (1, "+", "1", "3", "Answer"),
        (1, "+", "2", "3", "Answer"),
        (11, "-", "1", "3", "Answer"),
        (11, "-", "2", "3", "Answer"),
        (13, "-", "1", "2", "Answer"),
    ]
    assert eng.stats()["deletions"] == 1


def test_insert_then_delete_at_one_instant_is_never_visible():
    edges = [(1, 2, "a", 0), (2, 3, "a", 2), (2, 3, "a", 2, "-"), (2, 3, "a", 2)]
    edges += [(3, 4, "a", 4), (3, 4, "a", 4, "-")]
    eng, out = run_checked(PLUS, edges)
    assert not any("4" in r[:2] for r in rows(out))
    assert eng.stats()["deletions"] == 2 and eng.stats()["unmatched_deletions"] == 0


def test_reinsertion_in_a_later_bucket_starts_a_new_interval():
    text = ".window 10\n.slide 5\nAnswer(x, y) :- a+(x, y)."
    edges = [(1, 2, "a", 1), (1, 2, "a", 3, "-"), (1, 2, "a", 7)]
    eng, out = run_checked(text, edges)
    assert rows(out) == [
        ("1", "2", "Answer", 1, 10),
        ("1", "2", "Answer", 1, 3),
        ("1", "2", "Answer", 7, 15),
    ]
    assert eng.history[("1", "2", "Answer")] == [(1, 3), (7, 15)]


def test_unmatched_deletions_are_counted_never_fatal():
    edges = [
        (1, 2, "a", 0),
        (7, 8, "a", 1, "-"),
        (1, 2, "a", 2, "-"),
        (1, 2, "a", 3, "-"),
        (2, 3, "a", 4),
        (2, 3, "a", 20, "-"),
        (1, 2, "zz", 21, "-"),
    ]
    eng, _ = run_checked(PLUS, edges)
    stats = eng.stats()
    # never inserted, deleted twice, expired; a label the program does not read is ignored
    assert (stats["deletions"], stats["unmatched_deletions"], stats["ignored_edges"]) == (1, 3, 1)


# ---- PATTERN, UNION, FILTER ------------------------------------------------------------------


def test_pattern_key_survives_through_another_combination():
    text = ".window 10\nAnswer(x, z) :- a(x, y), b(y, z)."
    edges = [
        (1, 2, "a", 0),
        (2, 9, "b", 0),
        (1, 3, "a", 2),
        (3, 9, "b", 2),
        (1, 3, "a", 4, "-"),
        (2, 9, "b", 6, "-"),
    ]
    _, out = run_checked(text, edges)
    assert rows(out) == [
        ("1", "9", "Answer", 0, 10),
        ("1", "9", "Answer", 0, 12),
        ("1", "9", "Answer", 0, 10),
        ("1", "9", "Answer", 0, 6),
    ]


@pytest.mark.parametrize(
    "text",
    [
        "Answer(x, x) :- a(x, y), a(y, x).",  # a self-join: one edge on both sides
        "Answer(x, y) :- a(x, y), a(y, z), b(z, x).",
        "Answer(x, x) :- a(x, x).",
    ],
)
def test_self_join_deleting_an_edge_used_twice(text):
    edges = [
        (1, 1, "a", 0),
        (1, 2, "a", 0),
        (2, 1, "a", 1),
        (2, 1, "b", 1),
        (1, 1, "b", 1),
        (1, 1, "a", 3, "-"),
        (2, 1, "a", 4, "-"),
    ]
    run_checked(".window 10\n" + text, edges)


def test_union_cuts_a_key_only_when_no_other_input_covers_it():
    text = ".window 10\nAnswer(x, y) :- a(x, y).\nAnswer(x, y) :- b(x, y), x != y."
    edges = [
        (1, 2, "a", 0),
        (1, 2, "b", 3),
        (1, 1, "a", 3),
        (1, 1, "b", 3),
        (1, 2, "a", 5, "-"),
        (1, 1, "a", 5, "-"),
        (1, 2, "b", 6, "-"),
    ]
    _, out = run_checked(text, edges)
    # at 5 (1, 2) keeps b's interval, (1, 1) (b's is filtered out) ends; at 6 (1, 2) ends too
    assert rows(out) == [
        ("1", "2", "Answer", 0, 10),
        ("1", "1", "Answer", 3, 13),
        ("1", "2", "Answer", 0, 13),
        ("1", "1", "Answer", 3, 5),
        ("1", "2", "Answer", 0, 6),
    ]


# ---- output: rows as a file reader sees them, witnesses, batching ----------------------------


def test_history_and_delta_view_read_only_the_rows():
    """What is judged is what a user reads: rebuild snapshots from the plain rows."""
    text = ".window 10\nAnswer(x, y) :- [a/b*](x, y)."
    edges = norm(
        [
            (1, 2, "a", 0),
            (2, 3, "b", 1),
            (3, 4, "b", 2),
            (2, 3, "b", 4, "-"),
            (2, 3, "b", 4),
            (3, 4, "b", 5, "-"),
            (1, 2, "a", 6, "-"),
            (1, 2, "a", 7),
        ]
    )
    q = compile_text(text)
    eng = q.engine()
    for e in edges:
        eng.push(*e)
    eng.close()
    out = eng.drain()
    intervals: dict = {}
    for s, t, label, ts, exp in rows(out):  # the rule of specs/semantics.md, by hand
        ivs = intervals.setdefault((s, t, label), [])
        if ivs and ts <= ivs[-1][1] and ts >= ivs[-1][0]:
            ivs[-1][1] = exp
        elif exp > ts:
            ivs.append([ts, exp])
    for tau in ref.change_points(q.checked, edges):
        want = ref.output_snapshot(q.checked, edges, tau)
        assert {k for k, ivs in intervals.items() if any(a <= tau < b for a, b in ivs)} == want
    assert delta_rows(out) == ref.delta_view(q.checked, edges)


def test_end_records_carry_a_valid_witness():
    text = ".window 10\nAnswer(x, y) :- a+(x, y)."
    edges = [(1, 3, "a", 0), (1, 2, "a", 2), (2, 3, "a", 3), (2, 3, "a", 5, "-")]
    eng = compile_text(text).engine(paths=True)
    eng.push_batch(edges)
    cut = eng.drain()[-1]
    assert (cut.src, cut.trg, cut.ts, cut.exp, cut.path) == ("1", "3", 0, 10, (("1", "3", "a"),))


deletion_streams = st.lists(
    st.tuples(
        st.integers(0, 3),
        st.integers(0, 3),
        st.sampled_from("abc"),
        st.integers(0, 2),
        st.sampled_from("++-"),
    ),
    min_size=1,
    max_size=25,
).map(timed)


@pytest.mark.parametrize(
    "text",
    [
        "Answer(x, y) :- [a/b*](x, y).",
        "RL(x, y) :- a+(x, y), b(x, m), c(m, y).\nAnswer(x, m) :- RL+(x, y), c(m, y).",
        "Answer(x, z) :- a(x, y), b(y, z), x != z.\nAnswer(x, y) :- c*(x, y).",
    ],
)
@settings(max_examples=40)
@given(edges=deletion_streams, window=st.integers(2, 6), slide=st.integers(1, 2))
def test_batch_equals_one_by_one_with_deletions(text, edges, window, slide):
    q = compile_text(".window 1\n" + text, window=window, slide=slide)
    single = q.engine(paths=True)  # every edge its own round, ties too
    for e in edges:
        single.push(*e)
        single.flush()
        single.dataflow._check()
    single.close()
    batch = q.engine()
    batch.push_batch(edges)
    batch.close()
    a, b = single.drain(), batch.drain()
    assert single.history == batch.history
    assert delta_rows(a) == delta_rows(b) == ref.delta_view(q.checked, norm(edges))
    assert single.stats()["unmatched_deletions"] == batch.stats()["unmatched_deletions"]


def streams_with_deletions(labels, max_size=14, vertices=3):
    """Like test_engine_reference.streams, with '-' edges: mostly of earlier inserts (the
    latest, a random one, or deleted and re-inserted at once), sometimes of absent edges."""
    return edge_streams(labels, max_size, vertices)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
@settings(max_examples=30)
@given(data=st.data(), window=st.integers(1, 6), slide=st.integers(1, 3))
def test_engine_matches_reference_with_deletions(name, data, window, slide):
    edges = data.draw(streams_with_deletions(program_labels(name)))
    slide = min(slide, window, 2 if name == "per_label" else 3)
    query = compile_text(".window 1\n" + PROGRAMS[name], window=window, slide=slide)
    assert_matches_reference(query, edges, check_state=True)


def test_sgq_run_writes_end_records_and_deltas(tmp_path, capsys):
    from sgq.cli import main

    program = tmp_path / "q.dl"
    program.write_text(PLUS + "\n")
    stream = tmp_path / "in.csv"
    stream.write_text("src,trg,label,ts,op\n1,2,a,0,+\n2,3,a,1,+\n1,2,a,4,-\n5,6,a,5,-\n")
    out = tmp_path / "out.csv"
    assert main(["run", str(program), "-i", str(stream), "-o", str(out), "--no-progress"]) == 0
    assert "1 deletions matched nothing" in capsys.readouterr().err
    header, *lines = out.read_text().splitlines()
    assert header == "src,trg,label,ts,exp"
    assert by_key([line.split(",") for line in lines]) == by_key(
        [
            ["1", "2", "Answer", "0", "10"],
            ["2", "3", "Answer", "1", "11"],
            ["1", "3", "Answer", "1", "10"],
            ["1", "2", "Answer", "0", "4"],
            ["1", "3", "Answer", "1", "4"],
        ]
    )
    deltas = tmp_path / "deltas.csv"
    assert (
        main(
            [
                "run",
                str(program),
                "-i",
                str(stream),
                "-o",
                str(deltas),
                "--no-progress",
                "--emit",
                "deltas",
            ]
        )
        == 0
    )
    assert deltas.read_text().splitlines() == [
        "time,op,src,trg,label",
        "0,+,1,2,Answer",
        "1,+,1,3,Answer",
        "1,+,2,3,Answer",
        "4,-,1,2,Answer",
        "4,-,1,3,Answer",
        "11,-,2,3,Answer",
    ]


JOINS = {
    "chain3": "Answer(x, y) :- a(x, m), b(m, n), c(n, y).",
    "chain_cond": 'Answer(x, y) :- a(x, m), b(m, y), x != y.\nAnswer(x, y) :- c(x, y), a(y, "1").',
    "star": "Answer(x, y) :- a(x, m), b(x, y), c(m, y).",
}


def _dense_stream(seed: int, n: int = 300) -> list:
    """`n` edges on 3 vertices over labels a, b, c, ties and unit gaps, about one in ten a
    `-` of an earlier insert: many head keys per endpoint are touched by one deletion."""
    rng = random.Random(seed)
    edges, inserted, t = [], [], 0
    for _ in range(n):
        t += rng.choice((0, 1))
        if inserted and rng.random() < 0.1:
            s, d, label = rng.choice(inserted)
            edges.append((s, d, label, t, "-"))
        else:
            e = (str(rng.randrange(3)), str(rng.randrange(3)), rng.choice("abc"))
            inserted.append(e)
            edges.append((*e, t, "+"))
    return edges


@pytest.mark.parametrize("name", sorted(JOINS))
@pytest.mark.parametrize("seed", range(4))
def test_pattern_rederivation_dense(name, seed):
    """PATTERN re-derives the keys a deletion touched key by key (both head variables bound):
    against the reference on dense streams (many keys per endpoint)."""
    text = ".window 1\n" + JOINS[name]
    query = compile_text(text, window=8 + seed, slide=1 + seed % 2)
    assert_matches_reference(query, _dense_stream(seed), check_state=True)
