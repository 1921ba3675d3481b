"""Fuzzing the `.dl` front end: random token soup, random text and mutations of the shipped
programs (specs/queries/**/*.dl) through parse + check end in a CheckedProgram or DlErrors
with a rendered `FILE:LINE:COL: error:` message, never another exception (specs/language.md)."""

from __future__ import annotations

import glob
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sgq.datalog.check import check
from sgq.datalog.checked import CheckedProgram
from sgq.datalog.errors import DlErrors
from sgq.datalog.parser import parse

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROGRAMS = sorted(glob.glob(os.path.join(ROOT, "specs", "queries", "**", "*.dl"), recursive=True))
SOURCES = [open(p, encoding="utf-8").read() for p in PROGRAMS]

TOKENS = [
    "A",
    "Answer",
    "RL",
    "a",
    "b",
    "knows",
    '"rdf:type"',
    "x",
    "y",
    "_",
    "42",
    '"alice"',
    "(",
    ")",
    ",",
    ".",
    ":-",
    "+",
    "*",
    "?",
    "/",
    "|",
    "[",
    "]",
    "!=",
    "=",
    "as",
    "P",
    ".window",
    ".slide",
    ".output",
    ".input",
    "for",
    "24h",
    "0s",
    "30d",
    "1",
    "-1",
    "1e9",
    "//c\n",
    "/*",
    "*/",
    "\n",
    " ",
    "\t",
    "é",
    "\x00",
    '"',
    "99999999999999999999999h",
]


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
@given(st.lists(st.sampled_from(TOKENS), max_size=40).map(" ".join))
def test_token_soup(text):
    _outcome(text)


@settings(max_examples=200)
@given(st.text(max_size=120))
def test_random_text(text):
    _outcome(text)


@st.composite
def _mutated_program(draw) -> str:
    text = draw(st.sampled_from(SOURCES))
    for _ in range(draw(st.integers(1, 5))):
        pos = draw(st.integers(0, len(text)))
        action = draw(st.integers(0, 3))
        if action == 0:
            text = text[:pos] + draw(st.sampled_from(TOKENS)) + text[pos:]
        elif action == 1:
            end = min(len(text), pos + draw(st.integers(1, 12)))
            text = text[:pos] + text[end:]
        elif action == 2:
            text = text[:pos] + draw(st.text(max_size=3)) + text[pos:]
        else:
            other = draw(st.sampled_from(SOURCES))
            cut = draw(st.integers(0, len(other)))
            text = text[:pos] + other[cut : cut + 40] + text[pos:]
    return text


def test_shipped_programs_check_or_render():
    assert SOURCES, "no specs/queries/**/*.dl found"
    for path, text in zip(PROGRAMS, SOURCES):
        try:
            check(parse(text, path), filename=path, source=text)
        except DlErrors as exc:  # a shipped program may be an error example; it must render
            assert exc.render()


@settings(max_examples=500)
@given(_mutated_program())
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


@pytest.mark.parametrize("op", ["*", "?", "+", "*+?"])
def test_regression_many_postfix_operators(op):
    _outcome(".window 1h\nAnswer(x, y) :- [a" + op * 5000 + "](x, y).")
