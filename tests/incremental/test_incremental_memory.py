"""State stays bounded: 20 windows' worth of edges over ever-new vertices; the state must stop
growing once the window is full (expired state is purged, no history kept)."""

from __future__ import annotations

import random

import pytest
from incremental_support import compile_text

PROGRAMS = {
    "path": "Answer(x, y) :- [a/b*](x, y).",
    "q7": "RL(x, y) :- a+(x, y), b(x, m), c(m, y).\nAnswer(x, m) :- RL+(x, y), c(m, y).",
    "star": "Answer(x, y) :- a*(x, y).",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_state_stops_growing(name):
    window, slide = 50, 10
    q = compile_text(".window 1\n" + PROGRAMS[name], window=window, slide=slide)
    eng = q.engine(history=False)
    rng = random.Random(7)
    sizes = []
    for t in range(20 * window):
        batch = []
        for _ in range(3):
            # vertices drawn from a band that moves with time: old ones never come back
            s, d = (f"v{t // 10 + rng.randrange(8)}" for _ in range(2))
            batch.append((s, d, rng.choice("abc"), t))
        eng.push_batch(batch)
        eng.drain()
        if t % window == window - 1:
            sizes.append(eng.stats()["state"])
    eng.dataflow._check()
    assert sizes[2] > 0
    # after the first windows the state plateaus: no growth with the stream's length
    assert max(sizes[10:]) <= 1.5 * max(sizes[2:10]), sizes
    eng.close()
    assert eng.stats()["state"] == 0
