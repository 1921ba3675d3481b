"""US flights, January to June 2001, from the npm package vega-datasets: `data/flights-3m.parquet`
(columns `date` a timestamp without zone, `delay` and `distance` integers, `origin` and
`destination` airport codes). No Python package ships this file, so a documented step fetches
the npm tarball first (`npm pack vega-datasets`, docs/data.md) and `sgq data get flights --from
TARBALL_OR_DIR` reads it: the `.tgz` itself, the folder it unpacks to, or the `.parquet`.

One flight is one edge `origin -> destination` labelled `flight`. `date` has minutes and no
zone (US carriers report local times): it is read as UTC and written as Unix seconds, so two
airports' clocks are compared as they read. Reading needs pyarrow, which sgq already depends on.
"""

from __future__ import annotations

import io
import tarfile
from collections.abc import Iterator
from pathlib import Path

from ..base.errors import UserError

LABEL = "flight"
PROPERTIES = ("delay", "distance")
MEMBER = "data/flights-3m.parquet"
_COLUMNS = ("date", "origin", "destination", "delay", "distance")
_BATCH = 65536


def parquet_source(path: Path):
    """What pyarrow can read for `path`: the parquet file, found in a folder or a tarball."""
    if path.is_dir():
        for candidate in (path / MEMBER, path / "package" / MEMBER, path / Path(MEMBER).name):
            if candidate.is_file():
                return candidate
        raise UserError(f"{path}: no {MEMBER} inside (is it the unpacked vega-datasets package?)")
    if path.name.endswith((".tgz", ".tar.gz", ".tar")):
        try:
            with tarfile.open(path) as tar:
                member = next((m for m in tar.getmembers() if m.name.endswith(MEMBER)), None)
                if member is None:
                    raise UserError(f"{path}: no {MEMBER} inside (is it vega-datasets' tarball?)")
                return io.BytesIO(tar.extractfile(member).read())
        except tarfile.TarError as exc:
            raise UserError(f"{path}: not a readable tarball ({exc})") from None
    return path


def read_table(table) -> Iterator[tuple]:
    """Rows of an arrow table with the columns of flights-3m, sorted by `date` (stably: the
    file's order within one minute)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    missing = [c for c in _COLUMNS if c not in table.column_names]
    if missing:
        raise UserError(f"flights: no column {', '.join(missing)} (is it flights-3m.parquet?)")
    try:  # (a safe cast: a date with seconds' fractions is refused, never rounded)
        seconds = table.column("date").cast(pa.timestamp("s")).cast(pa.int64())
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
        raise UserError(f"flights: 'date' is not a whole-second timestamp ({exc})") from None
    order = pc.sort_indices(seconds)
    table = table.select(list(_COLUMNS)).take(order)
    seconds = seconds.take(order)
    for start in range(0, table.num_rows, _BATCH):
        part = table.slice(start, _BATCH)
        yield from zip(
            part.column("origin").to_pylist(),
            part.column("destination").to_pylist(),
            [LABEL] * part.num_rows,
            seconds.slice(start, _BATCH).to_pylist(),
            part.column("delay").to_pylist(),
            part.column("distance").to_pylist(),
        )


def rows(path: Path) -> Iterator[tuple]:
    import pyarrow.parquet as pq

    source = parquet_source(path)
    try:
        table = pq.read_table(source, columns=list(_COLUMNS))
    except (OSError, ValueError) as exc:  # pyarrow's ArrowInvalid is a ValueError
        raise UserError(f"{path}: cannot read the flights parquet ({exc})") from None
    yield from read_table(table)
