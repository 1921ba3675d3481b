"""Input edges come in non-decreasing time (specs/semantics.md §1): the one test and message for
an edge earlier than one already seen, shared by the engine (`Engine.push`), the reader's
reordering (sgq/reorder.py) and `sgq verify`. Each caller adds where the edge was (a line, an
edge number, its ids); none repeats the wording.
"""

from __future__ import annotations


def out_of_order(t: int, seen: float) -> str | None:
    """Why an edge at time `t` may not come after time `seen`, or None when it may. O(1).

    >>> out_of_order(3, 3) is None
    True
    >>> out_of_order(2, 3)
    'time 2 is earlier than time 3 seen before; edges must come in non-decreasing time'
    """
    if t < seen:
        return (
            f"time {t} is earlier than time {seen} seen before; edges must come in "
            "non-decreasing time"
        )
    return None
