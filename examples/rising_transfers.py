"""Rising transfers: money passed on, and topped up, within the hour, in a notebook's steps.

Each transfer is an edge `payer -> payee` with its `amount` as a property (specs/semantics.md
§1). The program asks for two transfers in a row, the second made within an hour after the
first and larger than it (a property comparison beside a timing order, §4b and §4c):

    Rising(a, c) :- transfer(a, b){amount: m1}@t1, transfer(b, c){amount: m2}@t2,
                    t1 < t2, t2 <= t1 + 1h, m2 > m1.

Run it as a script (`python examples/rising_transfers.py --edges 3000`) or cell by cell
(`# %%`) in an editor that knows the marker. It checks one snapshot against a brute-force
evaluation written out below.
"""

# %% The query
import argparse
import random

import sgq

PROGRAM = """
.window 1d
.slide 1h
.output Rising
Rising(a, c) :- transfer(a, b){amount: m1}@t1, transfer(b, c){amount: m2}@t2,
                t1 < t2, t2 <= t1 + 1h, m2 > m1.
"""
WINDOW, SLIDE, HOUR = 86400, 3600, 3600

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--edges", type=int, default=5000, help="transfers to generate")
parser.add_argument("--seed", type=int, default=11)
args = parser.parse_args()

query = sgq.compile(text=PROGRAM)
print(query.explain())


# %% A generated stream: accounts pay each other; now and then the payee passes money on
def transfers(n: int, seed: int) -> list[tuple]:
    """`n` edges `(src, trg, "transfer", ts, "+", {"amount": cents / 100})` over about ten
    days, in time order; every amount differs, so each transfer is its own tuple."""
    rng = random.Random(seed)
    accounts = max(10, n // 20)
    amounts = rng.sample(range(100, 100 * n * 10), n)
    t, out, last_payee = 0, [], None
    for i in range(n):
        t += rng.randint(0, 2 * 10 * 86400 // n)
        if last_payee is not None and rng.random() < 0.3:
            payer = last_payee  # passes money on
        else:
            payer = f"acct{rng.randrange(accounts)}"
        payee = f"acct{rng.randrange(accounts)}"
        out.append((payer, payee, "transfer", t, "+", {"amount": amounts[i] / 100}))
        last_payee = payee
    return out


edges = transfers(args.edges, args.seed)
print(f"{len(edges):,} transfers from t=0 to t={edges[-1][3]:,}")

# %% The changes, as they become final; the pairs valid at one instant
changes = list(query.run(edges, properties=("amount",)))
tau = edges[len(edges) * 2 // 3][3]
valid: set[tuple[str, str]] = set()
for change in changes:
    if change.time > tau:
        break
    (valid.add if change.op == "+" else valid.discard)((change.src, change.trg))
print(f"{len(changes):,} changes; {len(valid):,} rising pairs valid at t={tau:,}, e.g.:")
for a, c in sorted(valid)[:5]:
    print(f"  {a} -> ... -> {c}")


# %% The same snapshot by brute force: the transfers valid at tau, every ordered pair of them
def brute_force(edges: list[tuple], tau: int) -> set[tuple[str, str]]:
    live = [
        (s, t, ts, props["amount"])
        for s, t, _label, ts, _op, props in edges
        if ts <= tau < ts // SLIDE * SLIDE + WINDOW
    ]
    by_payer: dict[str, list] = {}
    for s, t, ts, amount in live:
        by_payer.setdefault(s, []).append((t, ts, amount))
    return {
        (a, c)
        for a, b, t1, m1 in live
        for c, t2, m2 in by_payer.get(b, ())
        if t1 < t2 <= t1 + HOUR and m2 > m1
    }


expected = brute_force(edges, tau)
assert valid == expected, "the engine and the brute force disagree"
print(f"matches a brute-force evaluation at t={tau:,} ({len(expected):,} pairs)")
