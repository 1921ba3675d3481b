"""The Python API (sgq.compile / Query / Engine), input errors, witness paths, delta view."""

from __future__ import annotations

import math
import random

import pytest
from incremental_support import compile_text
from sgq.datalog.errors import DlErrors
from sgq.incremental.deltas import DeltaView, delta_rows

import sgq


def test_compile_text_and_path(tmp_path):
    text = ".window 10\nAnswer(x, y) :- a+(x, y).\n"
    q = sgq.compile(text)
    assert q.checked.outputs == ("Answer",)
    assert type(q.plan).__name__ == "Plan"
    f = tmp_path / "q.dl"
    f.write_text(text)
    q2 = sgq.compile(str(f), window=20, slide=5)
    assert q2.checked.window == 20 and q2.checked.slide == 5
    assert "PATH" in q2.explain()
    with pytest.raises(sgq.UserError, match="does not exist"):
        sgq.compile(str(tmp_path / "missing.dl"))
    with pytest.raises(DlErrors):
        sgq.compile(".window 10\nAnswer(x, y) :- Answer(y, x).")


def test_program_files_that_cannot_be_read_are_one_line_errors(tmp_path):
    """sgq.api.read_program, which `sgq check`, `explain`, `run` and `verify` use too."""
    (tmp_path / "latin1.dl").write_bytes(b".window 10\nAnswer(x, y) :- \xe9(x, y).\n")
    with pytest.raises(sgq.UserError, match=r"^program file '.*latin1.dl' is not UTF-8 text$"):
        sgq.compile(str(tmp_path / "latin1.dl"))
    with pytest.raises(sgq.UserError, match=r"^cannot read program file '.*': Is a directory$"):
        sgq.api.read_program(str(tmp_path))


def test_out_of_order_edges_and_advance_name_both_times():
    eng = compile_text(".window 10\nAnswer(x, y) :- a(x, y).").engine()
    eng.push(1, 2, "a", 5)
    with pytest.raises(
        sgq.UserError,
        match=r"^edge 2 -> 3 \(a\): time 4 is earlier than time 5 "
        r"seen before; edges must come in non-decreasing time$",
    ):
        eng.push(2, 3, "a", 4)
    with pytest.raises(sgq.UserError, match=r"^cannot advance: time 3 is earlier than time 5"):
        eng.advance(3)


def test_public_surface():
    assert set(sgq.__all__) >= {"compile", "Query", "Engine", "Result", "UserError"}


def test_out_of_order_input_names_the_times():
    eng = compile_text(".window 10\nAnswer(x, y) :- a(x, y).").engine()
    eng.push(1, 2, "a", 5)
    with pytest.raises(sgq.UserError, match=r"time 3.*time 5"):
        eng.push(1, 2, "a", 3)
    eng.advance(9)
    with pytest.raises(sgq.UserError, match="8"):
        eng.push(1, 2, "a", 8)
    with pytest.raises(sgq.UserError, match="not an integer"):
        eng.push(1, 2, "a", "x")
    with pytest.raises(sgq.UserError, match="unknown op"):
        eng.push(1, 2, "a", 9, "*")


def test_ids_are_strings_and_results_only_outputs():
    q = compile_text(".window 10\nB(x, y) :- a(x, y).\nAnswer(x, y) :- B(x, y), a(y, x).")
    eng = q.engine()
    eng.push(1, "2", "a", 0)
    eng.push("2", 1, "a", 0)
    eng.push(3, 3, "zz", 0)  # a label no rule reads: ignored
    eng.flush()
    got = eng.drain()
    assert {(r.src, r.trg, r.label) for r in got} == {("1", "2", "Answer"), ("2", "1", "Answer")}
    assert eng.drain() == []
    stats = eng.stats()
    assert stats["edges_in"] == 3 and stats["ignored_edges"] == 1 and stats["results_out"] == 2
    assert stats["state"] > 0 and stats["peak_state"] >= stats["state"]
    assert any("PATTERN" in name for name in stats["operators"])


def test_timeliness_frontier_and_subscribe():
    q = compile_text(".window 10\nAnswer(x, y) :- a+(x, y).")
    eng = q.engine()
    seen = []
    eng.subscribe(seen.append)
    eng.push(1, 2, "a", 0)
    assert eng.drain() == [] and eng.time == -math.inf  # time 0 may still get ties
    eng.push(2, 3, "a", 4)  # a later time: 0 is complete
    assert eng.time == 4
    assert [(r.src, r.trg) for r in eng.drain()] == [("1", "2")]
    eng.advance(6)
    assert {(r.src, r.trg) for r in eng.drain()} == {("2", "3"), ("1", "3")}
    assert eng.snapshot(5) == {("1", "2", "Answer"), ("2", "3", "Answer"), ("1", "3", "Answer")}
    eng.close()
    assert eng.time == math.inf
    assert len(seen) == 3


def test_delta_view_incremental_release():
    q = compile_text(".window 10\nAnswer(x, y) :- a(x, y).")
    eng = q.engine()
    view = eng.delta_view()
    rows = []
    for t in (0, 3, 12):
        eng.push(1, 2, "a", t)
        eng.flush()
        rows += view.feed(eng.drain(), eng.time)
        assert all(r[0] < eng.time for r in rows)
    eng.close()
    rows += view.feed(eng.drain(), eng.time) + view.close()
    # [0, 10) widened to [0, 13) at 3; [12, 22) overlaps: one segment
    assert rows == [(0, "+", "1", "2", "Answer"), (22, "-", "1", "2", "Answer")]


def test_delta_view_gap_and_order():
    from sgq.incremental.engine import Result

    rs = [
        Result("b", "c", "A", 0, 5),
        Result("a", "c", "A", 0, 5),
        Result("a", "c", "A", 5, 9),
        Result("a", "c", "A", 10, 12),
    ]
    assert delta_rows(rs) == [
        (0, "+", "a", "c", "A"),
        (0, "+", "b", "c", "A"),
        (5, "-", "b", "c", "A"),
        (9, "-", "a", "c", "A"),
        (10, "+", "a", "c", "A"),
        (12, "-", "a", "c", "A"),
    ]
    assert DeltaView().close() == []


@pytest.mark.parametrize(
    "text,regex",
    [
        ("Answer(x, y) :- [a/b*](x, y).", r"ab*"),
        ("Answer(x, y) :- [(a/b)+](x, y).", r"(ab)+"),
        ("Answer(x, y) :- a+(x, y).", r"a+"),
    ],
)
def test_witness_paths_are_real_paths(text, regex):
    import re

    q = compile_text(".window 6\n" + text)
    rng = random.Random(3)
    edges = []
    for t in range(60):
        edges.append((rng.randrange(5), rng.randrange(5), rng.choice("ab"), t))
    eng = q.engine(paths=True)
    eng.push_batch(edges)
    eng.close()
    results = eng.drain()
    assert results
    valid: dict = {}
    for s, d, l, t in edges:
        valid.setdefault((str(s), str(d), l), []).append((t, t + 6))
    for r in results:
        path = r.path
        assert path, r
        assert path[0][0] == r.src and path[-1][1] == r.trg
        assert all(path[i][1] == path[i + 1][0] for i in range(len(path) - 1))
        assert re.fullmatch(regex, "".join(e[2] for e in path)), r
        # some instant of the result's interval has every witness edge valid
        candidates = {r.ts} | {ts for e in path for ts, _ in valid[e]}
        assert any(
            r.ts <= tau < r.exp and all(any(ts <= tau < exp for ts, exp in valid[e]) for e in path)
            for tau in candidates
        ), r


def test_closed_engine_rejects_input():
    eng = compile_text(".window 10\nAnswer(x, y) :- a(x, y).").engine()
    eng.close()
    with pytest.raises(sgq.UserError, match="closed"):
        eng.push(1, 2, "a", 0)
