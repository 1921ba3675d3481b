"""The re-evaluation baseline's input: a stream file's edges of the labels a program reads,
and the window's snapshot kept as they arrive (specs/semantics.md §1-2).

`read_stream` reads a plain CSV or TSV file (gzipped or not) as a person's program would:
the whole text at once, split on the delimiter, only the lines of the labels wanted turned
into tuples. A file it cannot read so (quotes, spaces around fields, a byte order mark, a
bad field) is read by sgq's own reader instead, which says what is wrong with it.

`Window` keeps, per label, source -> target -> the end of its validity: the latest `exp` of
its inserts (`exp = ⌊t/β⌋·β + ω`), cut to `t` by a `-` at `t`, since a `-` truncates every
valid tuple of its edge to `[ts, t)`. An edge is in the snapshot at `τ` while its end is
after `τ`; `expire` drops those whose end has come at a slide's last instant. The snapshot
is then the window's own index, source -> targets, for `reevaluate.Reevaluation`.

Cost: O(1) per edge; `expire` O(the edges whose validity ends in that slide).
"""

from __future__ import annotations

import gzip

from sgq.base.errors import UserError
from sgq.datalog.checked import CheckedProgram

#: an edge: (src, trg, label, t, op)
Edge = tuple[str, str, str, int, str]

_COLUMNS = ("src", "trg", "label", "ts", "op")


class _Unreadable(Exception):
    """The plain reading does not apply: sgq's reader takes the file."""


def _positions(first: list[str]) -> tuple[tuple, bool]:
    """(positions of src, trg, label, ts, op (None: no op), whether `first` is a header)."""
    if len(first) >= 4 and set(first) <= set(_COLUMNS) and len(set(first)) == len(first):
        if not {"src", "trg", "label", "ts"} <= set(first):
            raise _Unreadable
        return tuple(first.index(c) if c in first else None for c in _COLUMNS), True
    if len(first) in (4, 5) and first[3].isdigit():
        return (0, 1, 2, 3, 4 if len(first) == 5 else None), False
    raise _Unreadable


def _plain(path: str, labels: set) -> tuple[list[Edge], int, int | None, int | None]:
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8", newline="") as handle:
        text = handle.read()
    if '"' in text or " " in text or "\r" in text or text.startswith("\ufeff"):
        raise _Unreadable
    delimiter = "\t" if path.removesuffix(".gz").endswith((".tsv", ".tab")) else ","
    if delimiter == ",":
        if "\t" in text:
            raise _Unreadable
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    lines = [line for line in lines if line and line[0] != "#"]
    if not lines:
        return [], 0, None, None
    (i_src, i_trg, i_label, i_ts, i_op), header = _positions(lines[0].split(delimiter))
    if header:
        del lines[0]
    width = max(i for i in (i_src, i_trg, i_label, i_ts, i_op) if i is not None) + 1
    edges: list[Edge] = []
    append = edges.append
    try:
        for line in lines:
            fields = line.split(delimiter)
            label = fields[i_label]
            if label in labels:
                op = (fields[i_op] or "+") if i_op is not None else "+"
                if op != "+" and op != "-" or not (fields[i_src] and fields[i_trg]):
                    raise _Unreadable
                append((fields[i_src], fields[i_trg], label, int(fields[i_ts]), op))
            elif len(fields) < width or not label:
                raise _Unreadable
        first = int(lines[0].split(delimiter)[i_ts]) if lines else None
        last = int(lines[-1].split(delimiter)[i_ts]) if lines else None
    except (ValueError, IndexError):
        raise _Unreadable from None
    return edges, len(lines), first, last


def read_stream(path: str, labels: set) -> tuple[list[Edge], int, int | None, int | None]:
    """(the edges of `labels` in file order, the number of edges in the file, the first and
    the last edge's time, None for an empty file)."""
    try:
        return _plain(path, labels)
    except _Unreadable:
        pass
    from sgq.stream_io import read_edges  # (sgq's reader, with its messages)

    edges: list[Edge] = []
    count = 0
    first = last = None
    for edge in read_edges(path):
        count += 1
        last = edge[3]
        if first is None:
            first = last
        if edge[2] in labels:
            edges.append(edge[:5])  # (the edge's properties, if any, are not read)
    return edges, count, first, last


def statistics(edges: list[Edge], checked: CheckedProgram) -> dict[str, tuple]:
    """Per input label, `reeval_plan.Statistics` of its inserts in one window, averaged over
    the stream's spans of one window length: the figures a person plans a join with."""
    totals: dict[str, list[float]] = {label: [0.0] * 6 for label in checked.edb}
    spans: dict[str, tuple] = {}

    def close(label: str) -> None:
        _k, sources, targets = spans.pop(label)
        size = sum(sources.values())
        total = totals[label]
        total[0] += size
        total[1] += len(sources)
        total[2] += len(targets)
        total[3] += sum(n * n for n in sources.values()) / size
        total[4] += sum(n * n for n in targets.values()) / size
        total[5] += 1

    for s, t, label, ts, op in edges:
        if op != "+":
            continue
        k = ts // checked.window_of(label)
        span = spans.get(label)
        if span is None or span[0] != k:
            if span is not None:
                close(label)
            span = spans[label] = (k, {}, {})
        sources, targets = span[1], span[2]
        sources[s] = sources.get(s, 0) + 1
        targets[t] = targets.get(t, 0) + 1
    for label in list(spans):
        close(label)
    return {
        label: tuple(x / total[5] for x in total[:5]) if total[5] else (0.0,) * 5
        for label, total in totals.items()
    }


class Window:
    """The snapshot of a program's input labels at the current time, in slide steps."""

    def __init__(self, checked: CheckedProgram, labels) -> None:
        self.slide = checked.slide
        self.sizes = {label: checked.window_of(label) for label in labels}
        #: label -> src -> trg -> the end of its validity
        self.live: dict[str, dict[str, dict[str, int]]] = {label: {} for label in labels}
        self._ends: dict[int, list[tuple[str, str, str]]] = {}  # slide -> edges that may end
        #: `-` edges that matched no valid tuple (counted, specs/semantics.md §2)
        self.unmatched = 0

    def insert(self, src: str, trg: str, label: str, t: int) -> None:
        slide = self.slide
        end = t // slide * slide + self.sizes[label]
        targets = self.live[label].get(src)
        if targets is None:
            targets = self.live[label][src] = {}
        if targets.get(trg, -1) < end:
            targets[trg] = end
            self._ends.setdefault(end // slide, []).append((label, src, trg))

    def delete(self, src: str, trg: str, label: str, t: int) -> None:
        targets = self.live[label].get(src)
        if targets is None or targets.get(trg, t) <= t:
            self.unmatched += 1
            return
        targets[trg] = t
        self._ends.setdefault(t // self.slide, []).append((label, src, trg))

    def expire(self, tau: int) -> None:
        """Drop the edges whose validity ends by `tau`, the last instant of its slide."""
        for label, src, trg in self._ends.pop(tau // self.slide, ()):
            index = self.live[label]
            targets = index.get(src)
            if targets is not None and targets.get(trg, tau + 1) <= tau:
                del targets[trg]
                if not targets:
                    del index[src]

    def apply(self, edge: Edge) -> None:
        src, trg, label, t, op = edge
        if op == "+":
            self.insert(src, trg, label, t)
        else:
            self.delete(src, trg, label, t)


def check_order(previous: int | None, t: int) -> None:
    if previous is not None and t < previous:
        raise UserError(f"edge at time {t} after one at {previous}: the stream is out of order")
