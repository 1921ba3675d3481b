"""The golden query cases of tests/cases/queries/: each folder holds `query.dl`, `stream.csv`
(`src,trg,label,ts[,op]`) and `expected.csv`, what `sgq run query.dl --input stream.csv`
prints (interval rows). Read here for tests/cli/test_query_cases.py and the Spark oracle's
hand cases (tests/oracle/test_oracle_hand_cases.py)."""

from __future__ import annotations

import csv
from pathlib import Path

CASES = Path(__file__).resolve().parent / "cases" / "queries"
FOLDERS = sorted(p for p in CASES.iterdir() if (p / "query.dl").is_file())

Key = tuple[str, str, str]


def edges(folder: Path) -> list[tuple[str, str, str, int, str]]:
    """The case's stream as `(src, trg, label, ts, op)`."""
    with open(folder / "stream.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    return [(r["src"], r["trg"], r["label"], int(r["ts"]), r.get("op") or "+") for r in rows]


def expected_validity(folder: Path) -> dict[Key, list[list[int]]]:
    """Per key, its intervals `[ts, exp)`: the expected rows read in emission order as
    starts, widenings and end records (specs/semantics.md §5)."""
    out: dict[Key, list[list[int]]] = {}
    with open(folder / "expected.csv", newline="", encoding="utf-8") as f:
        for r in csv.DictReader(f):
            ts, exp = int(r["ts"]), int(r["exp"])
            intervals = out.setdefault((r["src"], r["trg"], r["label"]), [])
            if intervals and intervals[-1][0] <= ts <= intervals[-1][1]:
                intervals[-1][1] = exp  # a widening, or an end record
            else:
                intervals.append([ts, exp])
    return out


def snapshot(validity: dict[Key, list[list[int]]], tau: int) -> set[Key]:
    """The keys valid at `tau`."""
    return {key for key, ivs in validity.items() if any(a <= tau < b for a, b in ivs)}
