"""On-time reachability: which airports can you still reach if you only take flights that
leave less than 15 minutes late?

US domestic flights of January to June 2001 (`sgq data get flights`, docs/data.md: the npm
package vega-datasets, fetched once with `npm pack vega-datasets`), each departure an edge
`origin -> destination` with its departure `delay` in minutes (a property column). Two
programs over one day, with a one-day window: every route flown, and only the on-time ones
(a path label with a test on its edges, specs/semantics.md §4c):

    Any(a, b)    :- flight+(a, b).
    OnTime(a, b) :- [flight{delay < 15}+](a, b).

    npm pack vega-datasets                    # once: writes vega-datasets-VERSION.tgz here
    python examples/real_data/on_time_flights.py --from vega-datasets-*.tgz --out out/ot

It writes the day's stream, the programs, their deltas and `on_time.png` (with matplotlib):
the pairs reachable each way through the day.
"""

# %% The questions as programs
import sys
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import realdata  # noqa: E402

HEADER = ".window 1d\n.slide 1h\n"
ANY = HEADER + ".output Any\nAny(a, b) :- flight+(a, b).\n"
ON_TIME = HEADER + ".output OnTime\nOnTime(a, b) :- [flight{delay < 15}+](a, b).\n"

# %% One day of flights, and the two runs
args, folder, edges, day = realdata.flights_day(__doc__)
runs = {"any": realdata.run(ANY, "any", edges, folder)}
runs["on time"] = realdata.run(ON_TIME, "on_time", edges, folder)

# %% Pairs reachable each way every ten minutes; at the last tick of the day, who loses most
end = realdata.last_time(edges) or day
xs: list = []
ys: dict[str, list] = {}
last: dict[str, set] = {}
for name, out in runs.items():
    times, counts = [], []
    last[name] = set()
    for t, valid in realdata.replay(out, 600):
        if t > end:
            break
        times.append(datetime.fromtimestamp(t, UTC))
        counts.append(len(valid))
        last[name] = set(valid)
    xs = xs if len(xs) >= len(times) else times
    ys[name] = counts
print(
    f"at {xs[-1].strftime('%H:%M') if xs else args.day}: {len(last['any']):,} (origin, "
    "destination) pairs reachable, "
    f"{len(last['on time']):,} of them by on-time flights only"
)
lost = Counter(a for a, _ in last["any"] - last["on time"])
print(f"origins that lose the most destinations: {realdata.top(lost) or 'none'}")

# %% A picture: both counts through the day
realdata.plot(
    folder / "on_time.png",
    xs,
    ys,
    f"airport pairs reachable by the day's flights, {args.day}",
    "(origin, destination) pairs",
    "time of day (as the file gives it)",
)
