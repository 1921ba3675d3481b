"""One-stop flight connections through a day: where can you get with one change of plane?

US domestic flights of January to June 2001 (`sgq data get flights`, docs/data.md: the npm
package vega-datasets, fetched once with `npm pack vega-datasets`). An edge is a departure
`origin -> destination` at its (local, read as UTC) minute. `Connection(a, c)` holds while a
flight `a -> b` and a later flight `b -> c` left within the last three hours, the second at
most three hours after the first (timing order, specs/semantics.md §4b):

    Connection(a, c) :- flight(a, b)@t1, flight(b, c)@t2, t1 < t2, t2 <= t1 + 3h, a != c.

A time variable binds the start of the edge's unbroken validity: a route flown again within
the window keeps its first departure's time, so on busy routes `t1` is the first flight of a
run. The file has departures only (no arrival times), so this is timing order between
departures, not a check that the first flight landed in time.

    npm pack vega-datasets                    # once: writes vega-datasets-VERSION.tgz here
    python examples/real_data/flight_connections.py --from vega-datasets-*.tgz --out out/fl

It writes the day's stream, the program, the deltas and `connections.png` (with matplotlib).
"""

# %% The question as a program
import sys
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import realdata  # noqa: E402

PROGRAM = """\
.window 3h
.output Connection
Connection(a, c) :- flight(a, b)@t1, flight(b, c)@t2, t1 < t2, t2 <= t1 + 3h, a != c.
"""

# %% One day of flights, and the run
args, folder, edges, day = realdata.flights_day(__doc__)
out = realdata.run(PROGRAM, "connections", edges, folder)

# %% One-stop pairs through the day; at the busiest minute, the airports with most choices
xs, ys = [], []
best, best_at, choices = -1, None, Counter()
for t, valid in realdata.replay(out, 600):
    xs.append(datetime.fromtimestamp(t, UTC))
    ys.append(len(valid))
    if len(valid) > best:
        best, best_at, choices = len(valid), t, Counter(a for a, _ in valid)
if best_at is not None:
    at = datetime.fromtimestamp(best_at, UTC).strftime("%H:%M")
    print(f"most one-stop (origin, destination) pairs: {best:,} at {at}")
    print(f"origins with the most one-stop destinations then: {realdata.top(choices)}")

# %% A picture: one-stop pairs every ten minutes
realdata.plot(
    folder / "connections.png",
    xs,
    ys,
    f"one-stop connections (second flight within 3h of the first), {args.day}",
    "(origin, destination) pairs",
    "time of day (as the file gives it)",
)
