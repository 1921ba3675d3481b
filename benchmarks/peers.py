"""What other systems did on the shared streams, as issue 14 quoted them: figures recorded
elsewhere, on another machine and day. They are kept for the record only: no table of
`sgq bench` shows them and no ratio is ever formed with them (docs/benchmarks.md, caveats).
The suite measures the same two programs in its own run (`--systems spath,lmsrpq
--peer-program PATH`, peer_programs.py): those are the figures a ratio may use.

Edges per second over the whole process of the C++ S-PATH and C++ LM-SRPQ; `None`: not done
in 300 s.
"""

from __future__ import annotations

#: workload name -> (C++ S-PATH e/s, C++ LM-SRPQ e/s, C++ S-PATH peak RSS MB)
RECORDED: dict[str, tuple[float | None, float | None, float | None]] = {
    "shared-snb-q1": (26_437, 82_752, 21),
    "shared-snb-q2": (104_469, 48_808, 19),
    "shared-snb-rpq8": (1_141, 3_938, 167),
    "shared-snb-rpq10": (718, 2_048, 221),
    "shared-so-q1": (933, 3_182, 88),
    "shared-so-q2": (554, 1_018, 96),
    "shared-so-rpq8": (345, 1_122, 216),
    "shared-so-rpq10": (None, None, None),
}

#: the time limit behind a `None` above
RECORDED_LIMIT_S = 300
