"""Recommendation via `follows+`, in a notebook's steps: compile a query, stream edges through
it with the library, look at the results as deltas and as a pandas DataFrame, and check one
snapshot against a brute-force evaluation.

A user is recommended the products bought, in the last 30 days, by anyone they reach through
follows edges of the last 7 days (thesis Example 5's idea with a transitive closure). Run it
as a script (`python examples/recommendation.py --edges 3000`) or cell by cell (`# %%`) in an
editor that knows the marker. It needs pandas (`pip install pandas`).
"""

# %% The query
import argparse
import itertools
import random
from collections import defaultdict

import sgq

PROGRAM = """
.window 7d
.window 30d for purchase
.slide 1h
.output Recommend
Reach(u, v)     :- follows+(u, v).
Recommend(u, p) :- Reach(u, v), purchase(v, p), u != v.
"""
WINDOWS = {"follows": 7 * 86400, "purchase": 30 * 86400}
SLIDE = 3600

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--edges", type=int, default=5000, help="edges to generate")
parser.add_argument("--seed", type=int, default=7)
args = parser.parse_args()

query = sgq.compile(text=PROGRAM)
print(query.explain())


# %% A generated stream: users follow users (a few are popular), some buy products
def social_stream(n: int, seed: int) -> list[tuple]:
    """`n` edges `(src, trg, label, ts)` over about 60 days, in time order."""
    rng = random.Random(seed)
    users = max(20, n // 25)
    products = max(5, n // 100)
    t = 0
    out = []
    for _ in range(n):
        t += rng.randint(0, 2 * 60 * 86400 // n)
        u = f"u{rng.randrange(users)}"
        if rng.random() < 0.7:
            v = f"u{min(rng.randrange(users), rng.randrange(users))}"  # skewed to low ids
            out.append((u, v, "follows", t))
        else:
            out.append((u, f"p{rng.randrange(products)}", "purchase", t))
    return out


edges = social_stream(args.edges, args.seed)
print(f"{len(edges):,} edges from t=0 to t={edges[-1][3]:,}")

# %% Changes as they become final: Delta(time, op, src, trg, label); run is a generator, so
# the first ones come after reading only the first instants of the stream
for change in itertools.islice(query.run(edges), 5):
    print(change)

# %% The whole run as a DataFrame
frame = query.to_pandas(edges)
print(frame.groupby("op").size())

# %% The recommendations valid at one instant: each key's last change up to then is a '+'
tau = edges[len(edges) * 2 // 3][3]
upto = frame[frame.time <= tau]
last_op = upto.groupby(["src", "trg"]).op.last()
now = last_op[last_op == "+"].reset_index()
print(f"{len(now):,} recommendations valid at t={tau:,}; the most recommended products:")
print(now.trg.value_counts().head(5))


# %% The same snapshot by brute force: the edges valid at tau, their closure, the purchases
def brute_force(edges: list[tuple], tau: int) -> set[tuple[str, str]]:
    follows, bought = defaultdict(set), defaultdict(set)
    for s, t, label, ts in edges:
        exp = ts // SLIDE * SLIDE + WINDOWS[label]
        if ts <= tau < exp:
            (follows if label == "follows" else bought)[s].add(t)
    out = set()
    for u in list(follows):
        seen, todo = set(), [u]
        while todo:
            for v in follows.get(todo.pop(), ()):
                if v not in seen:
                    seen.add(v)
                    todo.append(v)
        out.update((u, p) for v in seen if v != u for p in bought.get(v, ()))
    return out


expected = brute_force(edges, tau)
assert set(zip(now.src, now.trg)) == expected, "the engine and the brute force disagree"
print(f"matches a brute-force evaluation at t={tau:,} ({len(expected):,} pairs)")
