"""The latency of `sgq run --engine spark --follow` (docs/scaling.md, "Following a landing
directory"): a generated snb stream cut into one `sgq prepare` output per day, landed one
at a time (written beside the landing directory, then renamed into it) while the run
follows; for each, the wall time from the rename to the progress line of the batch it
completes, and that line's seconds. Stopped with SIGTERM, as a user would.

    python -m benchmarks.follow_latency WORKDIR [--edges 3000] [--days 6] [--pause 8]

The outputs are written in prepare's layout by pyarrow, so that Spark's prepare job is not
in the timing. Prints one row per batch and the medians over batches 1 on (batch 0 warms
the JVM).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

from sgq.generators import generate
from sgq.parquet_input import MANIFEST

DAY = 86400
Q7 = Path(__file__).resolve().parents[1] / "specs" / "queries" / "sga" / "snb" / "q7.dl"


def _write_output(root: Path, rows: list) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    (root / "edges").mkdir(parents=True)
    cols = list(zip(*rows))
    names = ("src", "trg", "label", "ts", "op")
    types = (pa.string(), pa.string(), pa.string(), pa.int64(), pa.string())
    table = pa.table({n: pa.array(c, t) for n, c, t in zip(names, cols, types)})
    pq.write_table(table, root / "edges" / "part-00000.parquet")
    manifest = {"format": "sgq-prepared-1", "edges": ["edges/part-00000.parquet"]}
    (root / MANIFEST).write_text(json.dumps({**manifest, "written": len(rows)}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workdir", type=Path)
    parser.add_argument("--edges", type=int, default=3000)
    parser.add_argument("--days", type=int, default=6)
    parser.add_argument("--pause", type=float, default=8.0, help="seconds between landings")
    args = parser.parse_args()
    work, days = args.workdir, args.days
    landing, staging = work / "landing", work / "staging"
    landing.mkdir(parents=True)
    edges = [tuple(e) for e in generate("snb", args.edges, seed=1, days=days)]
    for d in range(days):
        _write_output(staging / f"day{d}", [e for e in edges if d * DAY <= e[3] < (d + 1) * DAY])
    log = work / "stderr.txt"
    command = [sys.executable, "-m", "sgq", "run", str(Q7), "--engine", "spark", "--follow"]
    command += ["-i", str(landing), "-o", str(work / "out.csv"), "--window", "2d"]
    command += ["--slide", "1d", "--checkpoint", str(work / "ckpt")]
    with open(log, "w") as err:
        proc = subprocess.Popen(command, stderr=err)

    def lines() -> list[str]:
        return log.read_text().splitlines()

    while not any(" following " in line for line in lines()):
        time.sleep(0.1)
    waited = []
    for d in range(days):
        began = time.monotonic()
        os.rename(staging / f"day{d}", landing / f"day{d}")
        if d:
            while not any(line.startswith(f"batch {d - 1} ") for line in lines()):
                time.sleep(0.05)
            waited.append(time.monotonic() - began)
        time.sleep(args.pause)
    proc.send_signal(signal.SIGTERM)
    code = proc.wait()
    seconds = [
        float(re.search(r" ([0-9.]+)s, state", line).group(1))
        for line in lines()
        if line.startswith("batch ")
    ]
    print("batch  s/batch  landing-to-written s")
    for n, (s, w) in enumerate(zip(seconds, waited)):
        print(f"{n:5}  {s:7.2f}  {w:7.2f}")
    print(
        f"median over batches 1-: {statistics.median(seconds[1:]):.2f} s/batch, "
        f"{statistics.median(waited[1:]):.2f} s landing to written; exit code {code}"
    )


if __name__ == "__main__":
    main()
