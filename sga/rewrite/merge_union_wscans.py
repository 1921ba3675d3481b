"""Rule 13 of the thesis (6.2.2), distributivity of WSCAN over UNION:
W_ω(S1 ∪[d] S2) ≡ W_ω(S1) ∪[d] W_ω(S2), both ways.

    UNION[d]                              ->   WSCAN[a, b -> d](ω=10, β=1)
      RENAME[src, trg -> d]
        WSCAN[a](ω=10, β=1)
      WSCAN[b](ω=10, β=1)

WSCAN sets validity intervals only and UNION relabels tuples only (thesis 6.2.2), so one window
over the union of the labels' input streams holds, at every instant, the union of the two
windows' snapshots. The inputs merged are the UNION's WSCANs, and its RENAMEs of a WSCAN that
do not reverse it (a relabelling the UNION does anyway), with one window, slide and set of
conditions (rule 12); other inputs stay beside the merged scan. Under explicit deletions the
equivalence needs the merged scan to keep each label's coverage apart: a `-` edge of `a`
deletes the `a` edge only, and the key stays while `b` covers it
(incremental/operators/union_wscan.py), as UNION's end records do. It pays one operator per
merged input and the UNION: one scan and one coalescing per edge instead of two scans, their
indexes and the UNION's coalescing.
"""

from __future__ import annotations

from ..algebra import Op, Rename, Union, WScan

NAME = "merge_union_wscans"
THESIS_RULE = 13


def _scan_of(op: Op) -> WScan | None:
    """The WSCAN `op` reads its tuples from unchanged (a relabelling aside), or None."""
    if isinstance(op, Rename) and not op.reverse:
        op = op.input
    if not isinstance(op, WScan) or op.source:
        return None  # (a scan of properties has a window over its own edges only)
    return op


def merge_union_wscans(op: Op) -> tuple[Op, ...]:
    """For a UNION, per window (ω, β, conditions) that two or more of its inputs' scans
    share, the UNION with those inputs as one WSCAN over their labels (the WSCAN itself when
    nothing else is left); for a WSCAN over several labels, the UNION of one WSCAN per
    label; `()` otherwise."""
    if isinstance(op, WScan) and op.labels:
        parts = tuple(WScan(name, op.window, op.slide, op.conditions) for name in op.labels)
        return (Union(parts, op.label),)
    if not isinstance(op, Union):
        return ()
    groups: dict[tuple, list[int]] = {}
    for i, inp in enumerate(op.inputs):
        scan = _scan_of(inp)
        if scan is not None:
            groups.setdefault((scan.window, scan.slide, scan.conditions), []).append(i)
    out: list[Op] = []
    for (window, slide, conditions), members in groups.items():
        labels = tuple(
            dict.fromkeys(name for i in members for name in _scan_of(op.inputs[i]).reads)
        )
        if len(members) < 2 or len(labels) < 2:
            continue
        merged = WScan(op.label, window, slide, conditions, labels)
        rest = [inp for i, inp in enumerate(op.inputs) if i not in members]
        if not rest:
            out.append(merged)
            continue
        rest.insert(min(members), merged)
        out.append(Union(tuple(rest), op.label))
    return tuple(out)
