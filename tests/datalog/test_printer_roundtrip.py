"""print -> parse gives an equal AST (datalog/printer.py), for free-form and valid programs;
the valid ones also pass the checker, before and after the round trip."""

from __future__ import annotations

from dl_strategies import programs, valid_programs
from hypothesis import given
from sgq.datalog.check import check, check_text
from sgq.datalog.parser import parse
from sgq.datalog.printer import print_program


@given(programs())
def test_any_program_round_trips(program):
    text = print_program(program)
    assert parse(text, "printed.dl") == program, text


@given(valid_programs())
def test_valid_program_round_trips_and_checks(program):
    text = print_program(program)
    assert parse(text, "printed.dl") == program, text
    checked = check(program)
    again = check_text(text, "printed.dl")
    assert (
        again.edb,
        again.idb,
        again.outputs,
        again.order,
        again.window,
        again.slide,
        again.label_windows,
    ) == (
        checked.edb,
        checked.idb,
        checked.outputs,
        checked.order,
        checked.window,
        checked.slide,
        checked.label_windows,
    )


@given(valid_programs())
def test_printing_is_a_fixed_point(program):
    text = print_program(program)
    assert print_program(parse(text)) == text
