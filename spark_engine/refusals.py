"""What the Spark engine does not run yet, refused with a message before any work (first
phase of issue 15): the rest of the language runs as in the single-process engine.

- `simple` path atoms: the search for simple paths (incremental/operators/simple_path.py)
  is a budgeted depth-first search per root with conflict marking, not a join program;
- property predicates (specs/semantics.md §4c): its batches read `src, trg, label, ts`;
- a slide finer than `1/MAX_BATCHES_PER_WINDOW` of the window: every batch costs a few Spark
  jobs (tenths of a second each, whatever its size), so a window cut into thousands of
  batches spends its time launching jobs; the single-process engine is the tool then.

Explicit deletions (`-` lines) and witness paths (`--paths`) are refused where they are
seen: the input reader and the command line.
"""

from __future__ import annotations

from ..base.errors import UserError
from ..sga.algebra import Path, Plan, WScan

#: the finest slide the Spark engine takes: the window cut into at most this many batches
MAX_BATCHES_PER_WINDOW = 1000


def check_supported(plan: Plan) -> None:
    """A UserError naming the first thing in `plan` the Spark engine does not run."""
    for node in plan.nodes():
        if isinstance(node, Path) and node.simple:
            raise UserError(
                f"the Spark engine does not evaluate simple path atoms yet ({node.label}): "
                "run this program with the single-process engine (--engine incremental)"
            )
        if isinstance(node, WScan) and node.source:
            raise UserError(
                f"the Spark engine does not evaluate property predicates yet ({node.label}): "
                "run this program with the single-process engine (--engine incremental)"
            )
        if isinstance(node, WScan) and node.window > MAX_BATCHES_PER_WINDOW * node.slide:
            raise UserError(
                f"the Spark engine needs a slide of at least 1/{MAX_BATCHES_PER_WINDOW} of the "
                f"window (label {node.label}: window {node.window}, slide {node.slide}); each "
                "batch costs a few Spark jobs whatever its size. Give a coarser --slide, or "
                "run with the single-process engine (--engine incremental)"
            )


def deletion_refused(where: str) -> UserError:
    """The error for a `-` line at `where` (a file and line, or a batch)."""
    return UserError(
        f"{where}: a deletion ('-' line); the Spark engine takes insert-only streams for "
        "now: run this stream with the single-process engine (--engine incremental)"
    )
