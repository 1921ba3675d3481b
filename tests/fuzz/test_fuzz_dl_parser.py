"""Fuzzing the `.dl` front end: random token soup, random text, grammar-aware mutations of the
shipped programs (specs/queries/**/*.dl), deep nesting and long chains (the strategies of
dl_programs.py) through parse + check end in a CheckedProgram or DlErrors with a rendered
`FILE:LINE:COL: error:` message, never another exception (specs/language.md). The commands
end to end, `sgq check` against `sgq run`: test_fuzz_programs.py."""

from __future__ import annotations

import pytest
from dl_programs import PROGRAMS, SOURCES, chain_program, deep_program, mutated_program
from dl_programs import token_soup as soup
from hypothesis import given, settings
from hypothesis import strategies as st
from sgq.datalog.check import check
from sgq.datalog.checked import CheckedProgram
from sgq.datalog.errors import DlErrors
from sgq.datalog.parser import parse


def _outcome(text: str) -> None:
    try:
        program = parse(text, "fuzz.dl")
        result = check(program, filename="fuzz.dl", source=text)
    except DlErrors as exc:
        rendered = exc.render()
        assert exc.errors and rendered
        for err in exc.errors:
            assert err.render().startswith("fuzz.dl:"), err.render()
            assert ": error: " in err.render()
        return
    assert isinstance(result, CheckedProgram)


@settings(max_examples=400)
@given(soup())
def test_token_soup(text):
    _outcome(text)


@settings(max_examples=200)
@given(st.text(max_size=120))
def test_random_text(text):
    _outcome(text)


def test_shipped_programs_check_or_render():
    assert SOURCES, "no specs/queries/**/*.dl found"
    for path, text in zip(PROGRAMS, SOURCES):
        try:
            check(parse(text, path), filename=path, source=text)
        except DlErrors as exc:  # a shipped program may be an error example; it must render
            assert exc.render()


@settings(max_examples=500)
@given(mutated_program())
def test_mutated_programs(text):
    _outcome(text)


@settings(max_examples=100)
@given(st.integers(1, 3000))
def test_deep_nesting(depth):
    _outcome(".window 1h\nAnswer(x, y) :- [" + "(" * depth + "a" + ")" * depth + "](x, y).")


@settings(max_examples=50)
@given(st.integers(1, 300), st.sampled_from("*+?"))
def test_stacked_postfix_operators(n, op):
    _outcome(".window 1h\nAnswer(x, y) :- [a" + op * n + "](x, y).")


@settings(max_examples=50)
@given(deep_program())
def test_deep_programs(text):
    _outcome(text)


@settings(max_examples=8)
@given(chain_program())
def test_long_chains(text):
    _outcome(text)


@pytest.mark.parametrize("op", ["*", "?", "+", "*+?"])
def test_regression_many_postfix_operators(op):
    _outcome(".window 1h\nAnswer(x, y) :- [a" + op * 5000 + "](x, y).")
