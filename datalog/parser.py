"""Text to AST: `parse`, and the durations of directives (`30d`, `24h`).

A program read from a file is kept, parsed, in the user's cache (datalog/parser_cache.py
`saved_program`): a later process that reads the same text takes it from there without
importing lark, whose import and tables are most of what parsing costs (a large part of a
`sgq run` start, against little to load a saved program). Anything else, and any text not
seen before, goes to the grammar (datalog/grammar.py).
"""

from __future__ import annotations

from . import ast, errors
from .parser_cache import save_program, saved_program

UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def parse_duration(text: str) -> int:
    """`24h` -> 86400, `10` -> 10. Raises ValueError with a reason for anything else.

    >>> parse_duration("30d"), parse_duration("90")
    (2592000, 90)
    """

    def bad(reason: str) -> ValueError:
        return ValueError(errors.BAD_DURATION.format(text=text, reason=reason))

    if text.startswith("-"):
        raise bad("a duration must be a positive integer")
    digits = len(text) - len(text.lstrip("0123456789"))
    number, unit = text[:digits], text[digits:]
    if not number:
        raise bad("expected an integer with an optional unit (s, m, h, d, w)")
    if unit and unit not in UNITS:
        raise bad(f"unknown unit '{unit}' (units: s, m, h, d, w)")
    value = int(number) * UNITS.get(unit, 1)
    if value < 1:
        raise bad("a duration must be at least 1")
    return value


def format_duration(value: int) -> str:
    """The shortest exact spelling: 2592000 -> `30d`, 90 -> `90`, 120 -> `2m`.

    >>> format_duration(2592000), format_duration(90), format_duration(604800)
    ('30d', '90', '1w')
    """
    for unit in ("w", "d", "h", "m"):
        size = UNITS[unit]
        if value >= size and value % size == 0:
            return f"{value // size}{unit}"
    return str(value)


def parse(text: str, filename: str = "<string>") -> ast.Program:
    """Parse `.dl` text into a Program (syntax only). Raises DlErrors on a syntax error.

    Durations are kept as written; invalid ones (value 0) are reported by `check`, together
    with every other error of the file. `filename` names the text in errors; a program read
    from a file (a name not in angle brackets, such as `<string>`) is kept in the cache.

    >>> parse("A(x, y) :- a(x, y).").rules[0].head.pred
    'A'
    """
    from_file = not filename.startswith("<")
    if from_file:
        program = saved_program(text)
        if program is not None:
            return program
    from .grammar import parse_text

    program = parse_text(text, filename)
    if from_file:
        save_program(text, program)
    return program
