"""Fuzzing the program side of `sgq` end to end (issue 69; specs/language.md "Limits",
specs/semantics.md §7).

Seeded hypothesis strategies (dl_programs.py) write `.dl` programs: grammar-aware mutations
of the shipped programs (specs/queries/**/*.dl), regular expressions nested past the
grammar's bound and brackets thousands deep, chains of derived predicates past the planner's
bound, concatenations and alternations of up to 1,200 labels, rule bodies past the bound of
64 atoms. Each program goes through `sgq check`, `sgq explain` (without and with statistics,
so with the optimizer) and `sgq run` (optimizer on) over a small edge file, in this process
(`sgq.cli.main`, with the user's parse cache in a directory of the test's own, so that `run`
reads what `check` saved), and the suite checks:

- no traceback: every command returns an exit code (an exception out of `main` fails the
  test with its traceback); `check` gives 0 or 1;
- an answer within a time bound: each command within `BOUND` seconds;
- `check` and `run` agree: a program `check` accepts, `explain` plans and `run` runs (exit
  0); one it rejects, `explain` and `run` reject with exit 1 and the very same stderr;
- messages are short and printable: every line of an error at most `LONGEST` characters,
  without control characters (tabs aside).

`test_*_small` run in the default test command (`python -m pytest`, about 20 s); the
`@pytest.mark.slow` ones run many more cases (CI's slow step).

What the suite and the stress runs beside it found while it was written (each fixed, and
kept as an example below or in tests/sga/test_sga_large_programs.py):
- `[(a|b)*/a/(a|b)/.../(a|b)]` with 11 copies (an automaton of 4,096 states) took 13 to 22 s
  in `sgq run` before the first edge: the closure PATH asked for the automaton's letters on a
  cycle with one search per move (base/dfa.py `cyclic_letters`, now one pass over its
  strongly connected components); with 16 copies its construction alone took minutes (now
  refused past 4,096 states, datalog/checks/automaton_size.py);
- `simple [l0*/l1*/.../l79*]` took 7 s to find the states past which no walk conflicts, one
  containment test per pair of states (base/suffix_languages.py, now one per move);
- `[(l0|l1|...|l999)*]` took minutes to build its one-state automaton (a thousand subsets of
  a thousand moves each; base/dfa.py now keeps a subset by its important states);
- `[l0/l1/.../l999]` took 2 s to minimise its automaton, and took it again for each PATH the
  optimizer priced (Hopcroft refined by every letter of the dead state);
- `[a2q/a2q/.../a2q]` of 30 labels took a minute to plan, of 1,000 a RecursionError: the
  optimizer explored and priced every grouping of the 30-input join (now: operators wider
  than 16 are not explored, and the search stops after 1,000 priced sub-plans);
- a chain of 330 derived predicates crashed the optimizer, of 500 every plan walk, of 300
  closures or path atoms the hash and the comparison of plan nodes (RecursionError); a cycle
  through 2,000 predicates crashed `sgq check` (datalog/dependency_graph.py `find_cycle`),
  and its message named all 2,000;
- an alternation or a union of 1,000 parts crashed the optimizer (`_ranks_summing`
  recursed once per part);
- a program file holding `../fixed.dl` ran that other file, an empty one was "program file
  '' does not exist"; `sgq run` printed a program's errors after `sgq run: error: `;
- `.window 10 for a b` and `.window 1 d` were reported at the next line; a NUL or an ESC in a
  program reached the terminal raw.
"""

from __future__ import annotations

import contextlib
import io
import os
import tempfile
import time
from pathlib import Path

import pytest
from dl_programs import (
    SOURCES,
    blowup_program,
    chain_program,
    deep_program,
    long_path_program,
    mutated_program,
    wide_program,
)
from hypothesis import HealthCheck, example, given, seed, settings
from hypothesis import strategies as st

from sgq.cli import main

BOUND = 10.0  # seconds one command may take (a loaded machine included)
LONGEST = 700  # characters of one line of an error

EDGES = "".join(  # two of each label the programs read, one a chain's next hop
    f"v{i},v{i + 1},{label},{t}\n"
    for t, label in enumerate(
        ["a", "b", "c", "knows", "likes", "hasCreator", "replyOf", "a2q", "c2a", "c2q"] * 2
    )
    for i in (t % 3, t % 3 + 5)
)
#: EDGES with the properties the shipped programs read (specs/queries/properties/), for a
#: program with braces: a program reading a property the input lacks is refused (§1)
PROPERTY_EDGES = (
    "src,trg,label,ts,delay,carrier,amount\n"
    + EDGES.replace("\n", ",,,\n")
    + "".join(
        f"v{i},v{i + 1},{label},{20 + i},{i * 9},AA,{i * 100}\n"
        for i in range(4)
        for label in ("flight", "transfer")
    )
)


@pytest.fixture(scope="module", autouse=True)
def _own_cache():
    """The parse cache in a directory of this module's own (check saves, run loads)."""
    with tempfile.TemporaryDirectory() as where, pytest.MonkeyPatch.context() as mp:
        mp.setenv("SGQ_CACHE_DIR", where)
        yield


class Outcome:
    def __init__(self, rc: int, out: str, err: str, took: float) -> None:
        self.rc, self.out, self.err, self.took = rc, out, err, took

    def __repr__(self) -> str:
        return f"rc={self.rc} ({self.took:.1f}s)\n{self.err}"


def sgq(*args: str) -> Outcome:
    """`sgq ARGS` in this process; an exception other than argparse's exit propagates."""
    out, err = io.StringIO(), io.StringIO()
    started = time.monotonic()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(list(args))
        except SystemExit as exc:  # (argparse)
            rc = exc.code if isinstance(exc.code, int) else 2
    took = time.monotonic() - started
    outcome = Outcome(rc, out.getvalue(), err.getvalue(), took)
    assert took < BOUND, f"sgq {args[0]} took {took:.1f}s: {outcome!r}"
    return outcome


def _short_and_printable(text: str) -> None:
    for line in text.splitlines():
        assert len(line) <= LONGEST, line[:200] + "..."
        assert line.replace("\t", " ").isprintable(), repr(line[:200])


def check_program(text: str) -> None:
    """The properties of the module docstring for the program `text`."""
    with tempfile.TemporaryDirectory() as where:
        work = Path(where)
        program, edges, out = work / "q.dl", work / "edges.csv", work / "out.csv"
        program.write_text(text, encoding="utf-8")
        edges.write_text(PROPERTY_EDGES if "{" in text else EDGES, encoding="utf-8")
        q = str(program)
        checked = sgq("check", q)
        assert checked.rc in (0, 1), checked
        explained = sgq("explain", q)
        ran = sgq("run", q, "-i", str(edges), "-o", str(out), "--no-progress")
        if checked.rc == 0:
            assert explained.rc == 0, (checked, explained)
            assert ran.rc == 0, (checked, ran)
            assert "sgq run: " in ran.err and " results in " in ran.err, ran
            optimized = sgq("explain", q, "-i", str(edges))
            assert optimized.rc == 0, optimized
            assert optimized.out.startswith("optimizer: "), optimized
        else:
            assert checked.err and not checked.out, checked
            _short_and_printable(checked.err)
            assert (explained.rc, explained.out, explained.err) == (1, "", checked.err)
            assert (ran.rc, ran.err) == (1, checked.err), (checked, ran)
            assert not out.exists() or out.stat().st_size == 0


SIZES = st.one_of(
    deep_program(), chain_program(), long_path_program(), wide_program(), blowup_program()
)
_SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)


@settings(max_examples=40, **_SETTINGS)
@given(mutated_program())
@example("../fixed.dl")  # a program file holding a path is a program, not that path
@example("")  # an empty program: "the program has no rules", as check says
@example(".window 1 d\n.slide 1\nAnswer(x, y) :- a(x, y).\n")  # the error on the 'd'
@example('.window 10\nAnswer(x, y) :- "\x00\x1b[2J"(x, y), b(x, y).\n.input b\n')
@example(".window 10\n" + "".join(f"P{i}(x, y) :- P{(i + 1) % 2000}(x, y).\n" for i in range(2000)))
def test_mutated_programs_small(text):
    check_program(text)


@settings(max_examples=6, **_SETTINGS)
@given(SIZES)
@example(".window 10\nAnswer(x, y) :- [" + "/".join(f"l{i}" for i in range(1000)) + "](x, y).\n")
@example(".window 10\nAnswer(x, y) :- [" + "|".join(f"l{i}" for i in range(1000)) + "](x, y).\n")
@example(".window 10\nAnswer(x, y) :- [(a|b)*/a" + "/(a|b)" * 11 + "](x, y).\n")
@example(
    ".window 10\nAnswer(x, y) :- simple [" + "/".join(f"l{i}*" for i in range(60)) + "](x, y).\n"
)
@example(".window 10\nAnswer(x, y) :- [(" + "|".join(f"l{i}" for i in range(1000)) + ")*](x, y).\n")
@example(
    ".window 10\nP0(x, y) :- a(x, y).\n"
    + "".join(f"P{i}(x, y) :- P{i - 1}+(x, y).\n" for i in range(1, 240))
    + ".output P239\n"
)
def test_sizes_small(text):
    check_program(text)


def test_shipped_programs_agree():
    """Every shipped program passes check, explain and run alike (or fails them alike)."""
    assert SOURCES
    for text in SOURCES:
        check_program(text)


@pytest.mark.slow
@seed(69)
@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_program(max_mutations=8))
def test_mutated_programs_long(text):
    check_program(text)


@pytest.mark.slow
@seed(69)
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(SIZES)
def test_sizes_long(text):
    check_program(text)


def test_a_program_file_is_never_a_path(tmp_path):
    """The issue's case: a program file holding `../fixed.dl` ran that other file."""
    (tmp_path / "fixed.dl").write_text(".window 10\nAnswer(x, y) :- a(x, y).\n")
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "q.dl").write_text("../fixed.dl")
    (tmp_path / "edges.csv").write_text(EDGES)
    cwd = os.getcwd()
    os.chdir(sub)
    try:
        checked = sgq("check", "q.dl")
        ran = sgq("run", "q.dl", "-i", "../edges.csv", "-o", "out.csv", "--no-progress")
    finally:
        os.chdir(cwd)
    assert checked.rc == ran.rc == 1
    assert ran.err == checked.err and checked.err.startswith("q.dl:1:1: error: ")
