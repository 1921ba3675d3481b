"""What the real-data examples share: get a dataset as a stream (`sgq data get`), run a program
over it (`sgq run --emit deltas`), read the deltas back as counts over time, and draw a PNG
beside the output when matplotlib is installed (`pip install -e '.[bench]'`).

Each step is the `sgq` command a user would type, run with this interpreter, and printed first.
"""

from __future__ import annotations

import argparse
import csv
import subprocess
import sys
from collections import Counter
from pathlib import Path


def arguments(doc: str, dataset: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument(
        "--out", default="sgq-examples", help="folder for the stream, results and plot"
    )
    parser.add_argument(
        "--stream",
        metavar="CSV",
        help=f"an sgq stream to use instead of `sgq data get {dataset}` (e.g. a small sample)",
    )
    return parser


def sgq(*args: str) -> None:
    """Run `sgq ARGS` as a user would, echoing the command; stop the example if it fails."""
    print("$ sgq " + " ".join(args), flush=True)
    proc = subprocess.run([sys.executable, "-m", "sgq", *args])
    if proc.returncode != 0:
        sys.exit(proc.returncode)


def stream(args: argparse.Namespace, dataset: str, *extra: str) -> Path:
    """The dataset as a stream file in `--out`: `--stream` if given, else `sgq data get`."""
    if args.stream:
        return Path(args.stream)
    out = Path(args.out) / f"{dataset}.csv"
    if not out.exists():
        sgq("data", "get", dataset, "-o", str(out), *extra)
    return out


def flights_day(doc: str):
    """The flights examples' start: their arguments (`--from` the npm tarball, `--day`), the
    `--out` folder, and that day's departures as a stream there. Returns `(args, folder,
    edges, day)`, `day` the day's first second."""
    from datetime import UTC, datetime

    parser = arguments(doc, "flights")
    parser.add_argument(
        "--from", dest="source", help="vega-datasets' tarball from `npm pack vega-datasets`"
    )
    parser.add_argument("--day", default="2001-01-15", help="the day to look at (UTC date)")
    args = parser.parse_args()
    folder = Path(args.out)
    folder.mkdir(parents=True, exist_ok=True)
    whole = stream(args, "flights", *(["--from", args.source] if args.source else []))
    day = int(datetime.fromisoformat(args.day).replace(tzinfo=UTC).timestamp())
    edges = folder / f"flights-{args.day}.csv"
    kept = head_by_time(whole, edges, day + 86400, since=day)
    print(f"{kept:,} departures on {args.day}")
    return args, folder, edges, day


def head_by_time(path: Path, out: Path, until: int, since: int | None = None) -> int:
    """Copy the rows of stream `path` with `since <= ts < until` to `out` as they are (their
    property columns and quoting included); return how many."""
    n = 0
    with open(path, newline="") as src, open(out, "w", newline="") as dst:
        dst.write(src.readline())
        for line in src:
            t = int(next(csv.reader([line]))[3])
            if t >= until:
                break
            if since is None or t >= since:
                dst.write(line)
                n += 1
    return n


def first_time(path: Path) -> int:
    with open(path, newline="") as src:
        reader = csv.reader(src)
        next(reader)
        return int(next(reader)[3])


def last_time(path: Path) -> int:
    """The time of the last row of stream `path`."""
    with open(path, newline="") as src:
        reader = csv.reader(src)
        next(reader)
        last = None
        for row in reader:
            last = row
        return int(last[3]) if last else 0


def run(program: str, name: str, edges: Path, folder: Path) -> Path:
    """Write `program` to FOLDER/NAME.dl, run it over `edges` with `--emit deltas`; the
    deltas' path."""
    query = folder / f"{name}.dl"
    query.write_text(program)
    out = folder / f"{name}.deltas.csv"
    sgq("run", str(query), "-i", str(edges), "-o", str(out), "--emit", "deltas", "--no-progress")
    return out


def deltas(path: Path):
    """`(time, op, src, trg)` of a delta file, in its order (time order)."""
    with open(path, newline="") as fh:
        reader = csv.reader(fh)
        next(reader)
        for time, op, src, trg, _label in reader:
            yield int(time), op, src, trg


def replay(path: Path, step: int):
    """Walk the deltas: yields `(t, valid)` at every multiple of `step` between the first and
    last delta, `valid` the set of pairs in the output snapshot at `t` (shared, do not keep)."""
    valid: set[tuple[str, str]] = set()
    tick = None
    for time, op, src, trg in deltas(path):
        if tick is None:
            tick = time - time % step
        while tick < time:
            yield tick, valid
            tick += step
        if op == "+":
            valid.add((src, trg))
        else:
            valid.discard((src, trg))
    if tick is not None:
        yield tick, valid


def top(counter: Counter, k: int = 5) -> str:
    """The `k` largest counts, ties by key (so the same run prints the same line)."""
    best = sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))[:k]
    return ", ".join(f"{key} ({n:,})" for key, n in best)


def plot(png: Path, xs: list, ys, title: str, ylabel: str, xlabel: str) -> None:
    """A line plot written to `png` (`ys` one series, or several by name: a legend), or a
    message when matplotlib is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"no plot: matplotlib is not installed (pip install -e '.[bench]'); {png} skipped")
        return
    fig, ax = plt.subplots(figsize=(9, 3.5))
    for name, series in ys.items() if isinstance(ys, dict) else [(None, ys)]:
        ax.plot(xs[: len(series)], series, drawstyle="steps-post", label=name)
    if isinstance(ys, dict):
        ax.legend()
    ax.set_title(title)
    ax.set_ylabel(ylabel)
    ax.set_xlabel(xlabel)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(png, dpi=100)
    plt.close(fig)
    print(f"plot: {png}")
