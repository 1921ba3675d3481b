"""The cyclic garbage collector's thresholds for a long evaluation (the `sgq` command and
the benchmark children).

sgq's state is many small long-lived containers (closure rows, coverage entries, index
entries) and its garbage is almost never cyclic: reference counting frees it at once. With
CPython's default thresholds (700, 10, 10) the collector still runs a full collection, which
walks every live container, after every ~70,000 net container allocations: 28 of them in
`sgq run` of `[knows*]` with interval rows over the snb 100k stream, about a fifth of its
CPU. The young count is net (allocations less deallocations), so in a run whose state churns
a young collection comes when one stretch allocates that many more than it frees, and it
walks every container made since the last one that is still alive: at 100,000 that was still
0.6 to 4.6 s of CPU on the shared streams (so Q6's delta run: 94 young collections, 4.6 of
its 41.7 s). At 1,000,000 the runs of 100k to 200k edges measured make none after start-up
but sga-q7's, whose collector time halves, with the same peak RSS: sgq makes almost no cyclic
garbage. A library user's process keeps its own settings: this is called only where sgq
owns the process.
"""

from __future__ import annotations

import gc

#: (young, middle, old) thresholds of `gc.set_threshold` for a long run
LONG_RUN_THRESHOLDS = (1_000_000, 50, 100)


def tune_for_long_run() -> None:
    """Set the collector's thresholds to `LONG_RUN_THRESHOLDS` for the rest of the process."""
    gc.set_threshold(*LONG_RUN_THRESHOLDS)
