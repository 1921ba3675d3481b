"""Every message of datalog/errors.py's table is reachable from its examples (Lark's
GRAMMAR_ERRORS habit), and every error the checker emits comes from the table."""

from __future__ import annotations

import pytest
from sgq.datalog import errors
from sgq.datalog.check import check_text
from sgq.datalog.errors import ERROR_TABLE, DlErrors, message_pattern

ROWS = [(template, example) for template, examples in ERROR_TABLE for example in examples]


def _messages(text: str) -> list[str]:
    with pytest.raises(DlErrors) as info:
        check_text(text, "example.dl")
    return [e.message for e in info.value.errors]


def _from_table(message: str) -> bool:
    return any(message_pattern(t).fullmatch(message) for t, _ in ERROR_TABLE)


@pytest.mark.parametrize(("template", "example"), ROWS, ids=[f"{i}" for i in range(len(ROWS))])
def test_example_triggers_its_message(template, example):
    messages = _messages(example)
    assert any(message_pattern(template).fullmatch(m) for m in messages), messages
    assert all(_from_table(m) for m in messages), messages


def test_every_template_constant_is_in_the_table():
    constants = {
        value
        for name, value in vars(errors).items()
        if name.isupper() and not name.startswith("_") and isinstance(value, str)
    }
    assert constants == {t for t, _ in ERROR_TABLE}


def test_every_row_has_an_example():
    assert all(examples for _, examples in ERROR_TABLE)


def test_message_pattern_is_strict():
    assert message_pattern(errors.UNSAFE_HEAD).fullmatch(
        "head variable 'z' does not appear in any body atom"
    )
    assert not message_pattern(errors.UNSAFE_HEAD).fullmatch(
        "head variable 'z' does not appear in a body atom"
    )
