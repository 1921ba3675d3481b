"""Helpers for the generator tests: run a stream into memory-light summaries."""

from __future__ import annotations

import io

from sgq.generators import generate, write_csv


def csv_text(kind: str, edges: int, seed, **kw) -> str:
    out = io.StringIO()
    write_csv(generate(kind, edges, seed, **kw), out)
    return out.getvalue()


def check_deletions(rows) -> tuple[int, int]:
    """Assert each '-' deletes a present key inserted strictly earlier; return (+, -) counts."""
    present: dict[tuple, int] = {}
    ins = dels = 0
    for src, trg, label, ts, op in rows:
        key = (src, trg, label)
        if op == "+":
            ins += 1
            present[key] = ts
        else:
            assert op == "-", op
            dels += 1
            assert key in present, f"'-' of {key} at {ts} that is not present"
            assert present[key] < ts, f"'-' of {key} at {ts} at the time of its insert"
            del present[key]
    return ins, dels
