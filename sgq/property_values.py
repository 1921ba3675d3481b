"""The value of an edge property as the readers type it (specs/semantics.md §1).

A field of a CSV/TSV line is an **integer** when it is written as a time is (ASCII digits
with an optional `-`: `15`, `-3`), a **float** when Python's `float` reads it to a finite
number (`1.5`, `2e3`; not `nan`, `inf` or `1e999`), and a **string** otherwise, taken as
written once stripped of the blanks around it. An empty field is *missing* (None here: the
edge lacks the property). A quoted field is a string whatever it holds, `""` the empty
string, so `"15"` stays text. A JSON value is typed by JSON itself: a number or a string
(an integral JSON number is an integer), `null` missing; anything else is refused.
"""

from __future__ import annotations

import math
from itertools import compress

#: what a property value may be
Value = int | float | str


def typed(text: str) -> Value | None:
    """The value of an unquoted field: int, float or str, None when it is empty. O(len).

    >>> [typed(x) for x in ("15", " -3 ", "1.5", "2e3", "nan", "abc", " ")]
    [15, -3, 1.5, 2000.0, 'nan', 'abc', None]
    """
    text = text.strip()
    if not text:
        return None
    digits = text[1:] if text[0] == "-" else text
    if digits.isdigit() and digits.isascii():
        return int(text)
    try:
        number = float(text)
    except ValueError:
        return text
    return number if math.isfinite(number) else text


def typed_column(texts: list[str]) -> list:
    """`typed` of each of a column's fields (a plain chunk's: no blanks, no quotes), a
    column of integers in one `map(int, ...)`."""
    joined = "".join(texts)
    if joined.isdigit() and joined.isascii() and "" not in texts:
        return list(map(int, texts))
    return [typed(text) for text in texts]


def quoted_fields(line: str, delimiter: str) -> list[bool]:
    """Which fields of a CSV/TSV line open with a quote, as the csv module (its default
    dialect) splits it: a field is quoted when its first character is `"`; inside quotes a
    delimiter is text and `""` a quote; after the closing quote the field goes on unquoted
    to the next delimiter. O(len(line))."""
    flags = []
    i, n = 0, len(line)
    while True:
        quoted = line[i : i + 1] == '"'
        flags.append(quoted)
        if quoted:
            i += 1
            while i < n:
                if line[i] == '"':
                    if line[i + 1 : i + 2] != '"':
                        break
                    i += 1
                i += 1
        cut = line.find(delimiter, i)
        if cut < 0:
            return flags
        i = cut + 1


def field_values(fields: list[str], at: tuple, quoted: list[bool] | None) -> list:
    """The values of a line's property fields at positions `at`; `quoted`: which fields were
    quoted (None: none was)."""
    if quoted is None:
        return [typed(fields[i]) for i in at]
    return [fields[i] if quoted[i] else typed(fields[i]) for i in at]


def present(names: tuple[str, ...], values) -> dict:
    """The properties an edge has: `names` paired with `values`, the missing ones (None)
    left out, in `names` order."""
    if None not in values:
        return dict(zip(names, values))
    keep = [v is not None for v in values]
    return dict(zip(compress(names, keep), compress(values, keep)))


def json_value(value) -> Value | None:
    """A JSON property value: int, float or str as JSON gives it, None for null; a
    ValueError saying what it is for anything else (true, an array, an object, NaN)."""
    kind = type(value)
    if kind is int or kind is str or value is None:
        return value
    if kind is float and math.isfinite(value):
        return value
    raise ValueError("a property is a number, a string or null")
