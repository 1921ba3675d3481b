"""Streaming graph tuples (sgts) as the engine moves them around (thesis ch. 3, Def 10-11).

Inside the dataflow a stream carries one label, so an sgt is a plain 5-tuple

    (src, trg, ts, exp, wit)

valid on the half-open interval `[ts, exp)`; `wit` is None, or (when witness paths are on)
the tuple of input edges `(src, trg, label)` that derive it (the thesis's payload D).

Invariant of every sgt pushed at processing time `now` (specs/semantics.md §5-6): `ts <= now < exp`.
A WSCAN tuple starts at its own time; PATTERN and PATH intersect intervals that all hold `now`,
so their results hold `now` too; coalescing only ever widens an interval that holds `now`.

End records (negative tuples, specs/semantics.md §2 and §5). An explicit deletion can make a key's
coverage end earlier than its producer said. The producer then sends, on a second channel
(`retract` in operators/base.py), an end record with the same 5-tuple shape: the key's live
coverage is now `[ts, exp)` with `now <= exp` smaller than before (`exp == now`: it ends at
`now`); `wit` is the witness of what still derives it. Every operator's output stays coalesced:
per key one live interval, widened by sgts and shortened by end records.
"""

from __future__ import annotations

Sgt = tuple  # (src: str, trg: str, ts: int, exp: int, wit: tuple | None)

# Just outside int64, the range of every input time and expiry (sgq's reader refuses an edge
# whose window would end past it, specs/semantics.md §7): no real time reaches them
NEVER = -(1 << 63) - 1  # ts of a PATH root node: valid since forever
FOREVER = 1 << 63  # exp of a PATH root node: valid for ever


def wscan_expiry(t: int, window: int, slide: int) -> int:
    """`⌊t/β⌋·β + ω`: the exclusive end of an edge inserted at `t` (specs/semantics.md §2).

    >>> wscan_expiry(7, 10, 5)
    15
    """
    return (t // slide) * slide + window
