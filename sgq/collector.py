"""The cyclic garbage collector's thresholds for a long evaluation (the `sgq` command and
the benchmark children).

sgq's state is many small long-lived containers (closure rows, coverage entries, index
entries) and its garbage is almost never cyclic: reference counting frees it at once. With
CPython's default thresholds (700, 10, 10) the collector still runs a full collection, which
walks every live container, after every ~70,000 net container allocations: 28 of them in
`sgq run` of `[knows*]` with interval rows over the snb 100k stream, about a fifth of its
CPU. A young generation of 100,000 keeps cycles collected and makes full collections rare
(none on that run). A library user's process keeps its own settings: this is called only
where sgq owns the process.
"""

from __future__ import annotations

import gc

#: (young, middle, old) thresholds of `gc.set_threshold` for a long run
LONG_RUN_THRESHOLDS = (100_000, 50, 100)


def tune_for_long_run() -> None:
    """Set the collector's thresholds to `LONG_RUN_THRESHOLDS` for the rest of the process."""
    gc.set_threshold(*LONG_RUN_THRESHOLDS)
