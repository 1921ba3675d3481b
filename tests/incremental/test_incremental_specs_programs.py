"""Every program under specs/queries/ runs on random small streams over its own labels and
matches the brute-force reference at every change point (windows shrunk to a few units)."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from incremental_support import assert_matches_reference
from sgq.sga.algebra import properties_read

import sgq

SPECS = Path(__file__).resolve().parents[2] / "specs" / "queries"
PROGRAMS = sorted(SPECS.rglob("*.dl"))


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: str(p.relative_to(SPECS)))
def test_spec_program_matches_reference(path):
    text = path.read_text(encoding="utf-8")
    probe = sgq.compile(text, filename=str(path))
    for label, _size in probe.checked.label_windows:  # keep per-label windows, but small
        text = re.sub(
            rf"\.window\s+\S+\s+for\s+{re.escape(label)}\b", f".window 7 for {label}", text
        )
    query = sgq.compile(text, window=4, slide=2, filename=str(path))
    labels = list(query.checked.edb)
    read = properties_read(query.plan)  # (specs/queries/properties/: values to test)
    rng = random.Random(str(path.relative_to(SPECS)))
    for _ in range(12 if read else 4):  # (property tests pass fewer edges: more streams)
        edges, t = [], 0
        for _ in range(rng.randrange(6, 18)):
            t += rng.choice((0, 0, 1, 1, 2, 3))
            edge = (rng.randrange(4), rng.randrange(4), rng.choice(labels), t)
            if read:
                keys = read.get(edge[2], ())
                edge += ("+", {k: rng.choice(VALUES) for k in keys if rng.random() < 0.9})
            edges.append(edge)
        assert_matches_reference(query, edges, check_state=True)


#: property values of the programs that read some: numbers around their constants, strings
VALUES = (5, 14, 40, 2.5, "AA", "UA")
