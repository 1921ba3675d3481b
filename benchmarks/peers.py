"""What other systems do on the shared streams: figures recorded elsewhere, quoted as the
issue gave them. The suite can also measure the same two programs in its own run
(`--systems spath,lmsrpq --peer-program PATH`, peer_programs.py): those are the figures to
set ratios on.

The shared streams (benchmarks/streams/, workloads `shared-*` in workloads.py) are the ones
the C++ S-PATH and C++ LM-SRPQ figures below were measured on, one after another on a machine
of the kind the project runs on (2 cores, shared; figures vary widely between runs), edges
per second over the whole process. Those programs process edge by edge, expire once per slide
and only count result pairs (LM-SRPQ never expires results); `None`: not done in 300 s. The
per-slide recompute program of the same measurements is not quoted: sgq's own re-evaluation
baseline (reevaluate.py) does its job and is measured in the same run instead.
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
