"""A live monitor: `sgq run --follow` on a file that grows, watched through its metrics.

A generated SNB-like stream (`sgq gen snb`) is appended to `live.csv` in chunks, as a
collector would write it; `sgq run --follow` reads it as it grows with a checkpoint, an idle
flush and Prometheus metrics on a loopback port, which this script scrapes after each chunk
like a dashboard would (docs/metrics.md). Half way through the file is rotated (renamed, a new
one started); at the end the run is stopped with SIGTERM (a final checkpoint) and its summary
line compared with the last scrape. Run it as a script (`python examples/live_monitor.py
--edges 3000`) or cell by cell (`# %%`).
"""

# %% Set-up: a working folder, the query, the stream
import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--edges", type=int, default=20000, help="edges to generate")
parser.add_argument("--chunks", type=int, default=8, help="appends to the live file")
parser.add_argument("--folder", default=None, help="working folder (default: a temporary one)")
args = parser.parse_args()

work = Path(args.folder or tempfile.mkdtemp(prefix="sgq-monitor-"))
work.mkdir(parents=True, exist_ok=True)
SGQ = [sys.executable, "-m", "sgq"]

# people who like a message of someone they reach through knows edges of the last day
program = work / "monitor.dl"
program.write_text(
    ".window 1d\n.slide 1h\n"
    "Reach(x, y) :- knows+(x, y).\n"
    "Answer(x, m) :- Reach(x, y), hasCreator(m, y), likes(x, m).\n"
)
stream = work / "stream.csv"
subprocess.run(
    [*SGQ, "gen", "snb", "--edges", str(args.edges), "--seed", "3", "--days", "20"]
    + ["--output", str(stream), "--no-progress"],
    check=True,
)
header, *lines = stream.read_text().splitlines(keepends=True)
print(f"{len(lines):,} edges generated in {stream}")

# %% Start the service on an empty file
live, out, ckpt = work / "live.csv", work / "out.csv", work / "ckpt"
live.write_text(header)
log = open(work / "sgq.log", "w")
service = subprocess.Popen(
    [*SGQ, "run", str(program), "--input", str(live), "--follow", "--emit", "deltas"]
    + ["--output", str(out), "--checkpoint", str(ckpt), "--idle-flush", "300ms"]
    + ["--metrics-port", "127.0.0.1:0", "--metrics-file", str(work / "metrics.jsonl")]
    + ["--metrics-interval", "1s", "--no-progress"],
    stderr=log,
)


def wait_for(condition, what, timeout=60.0):
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        if service.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"gave up waiting for {what}: {(work / 'sgq.log').read_text()}")
        time.sleep(0.05)
    return value


found = wait_for(
    lambda: re.search(r"metrics on (http://\S+)", (work / "sgq.log").read_text()), "metrics"
)
url = found[1]
print("metrics at", url)


# %% A dashboard's view: scrape and pick a few series
def scrape() -> dict[str, float]:
    text = urllib.request.urlopen(url, timeout=5).read().decode()
    values = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            values[name] = float(value)
    return values


def p99(m: dict[str, float]) -> float:
    """The 99th percentile batch time, read off the cumulative histogram buckets."""
    total = m.get("sgq_batch_seconds_count", 0.0)
    for key, count in sorted(
        ((k, v) for k, v in m.items() if k.startswith("sgq_batch_seconds_bucket")),
        key=lambda kv: float(kv[0].split('"')[1]),
    ):
        if total and count >= 0.99 * total:
            return float(key.split('"')[1])
    return float("nan")


def show(m: dict[str, float]) -> None:
    print(
        f"edges {m['sgq_edges_in_total']:>8,.0f}  results {m['sgq_results_out_total']:>8,.0f}  "
        f"state {m['sgq_state_entries']:>7,.0f}  p99 batch {p99(m) * 1000:6.1f} ms  "
        f"stream time {m['sgq_event_time']:,.0f}"
    )


# %% Feed the file chunk by chunk, rotating it half way; watch the metrics after each chunk.
# A chunk ends where the time changes: the idle flush takes a quiet stream as complete up to
# its last time, so a later edge at that time would come too late (dropped and reported).
def time_of(line: str) -> int:
    return int(line.split(",")[3])


cuts = [0]
for k in range(1, args.chunks):
    cut = k * len(lines) // args.chunks
    while 0 < cut < len(lines) and time_of(lines[cut]) == time_of(lines[cut - 1]):
        cut += 1
    cuts.append(max(cut, cuts[-1]))
cuts.append(len(lines))
for i in range(args.chunks):
    if i == args.chunks // 2:
        os.rename(live, work / "live.csv.1")  # logrotate's way: rename, start a new file
        live.write_text(header)
    with open(live, "a") as handle:
        handle.writelines(lines[cuts[i] : cuts[i + 1]])
    fed = cuts[i + 1]
    wait_for(
        lambda fed=fed: scrape().get("sgq_edges_in_total", 0) >= fed, f"chunk {i + 1}"
    )  # the idle flush hands over each chunk's last instant too
    show(scrape())

# %% Stop it: SIGTERM, a final checkpoint; the summary line agrees with the last scrape
last = scrape()
service.send_signal(signal.SIGTERM)
service.wait(timeout=60)
log.close()
summary = [x for x in (work / "sgq.log").read_text().splitlines() if " edges, " in x][-1]
print(summary)
numbers = re.match(r"sgq run: ([\d,]+) edges, ([\d,]+) deltas", summary)
edges, rows = (int(x.replace(",", "")) for x in numbers.groups())
assert (edges, rows) == (last["sgq_edges_in_total"], last["sgq_results_out_total"]), summary
assert edges == len(lines), f"{edges} edges read of {len(lines)}"
print(f"{rows:,} deltas in {out}; checkpoint in {ckpt}: run the same command to go on")
