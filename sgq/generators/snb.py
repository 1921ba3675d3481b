"""An LDBC-SNB-like social stream: persons, posts, comments; knows, likes, replyOf, ...

The thesis streams the LDBC SNB update stream (Ch. 4.5.1, 5.5: "8 different types of
interactions", 3.5 months) and queries it with knows, likes, hasCreator and replyOf (Table 5.1
Q5-Q7 are SNB IS7 and IC7). This model keeps the shapes those queries depend on:

- `knows(p, q)` person-person, mutual-ish (the reverse edge follows at once 70% of the time),
  targets by preferential attachment (a pick among recent knows endpoints is degree-biased);
- `hasCreator(m, p)` message->person, emitted when the message is created;
- `replyOf(c, m)` comment->message, exactly one per comment, to an earlier post or comment:
  the replyOf edges form a forest (trees rooted at posts), as in SNB, so `replyOf+` is acyclic;
- `likes(p, m)` person->message, mostly recent messages;
- `hasTag(m, t)` message->tag, `hasMember(f, p)` forum->person, `studyAt(p, o)`
  person->university, the other SNB interactions.

Persons are `p0..`, posts `m0..`, comments `c0..`, tags `t0..`, forums `f0..`, universities
`o0..`. Persons join over time (a join brings `studyAt` and a first `knows`); activity is Zipf
over persons with early joiners busiest (the preferential-attachment outcome). Memory: rings
of recent messages and knows endpoints, whatever the number of edges.
"""

from __future__ import annotations

from collections.abc import Iterator
from math import exp, log
from random import Random

from .zipf import zipf_sampler

LABELS = ("knows", "likes", "hasCreator", "replyOf", "hasTag", "hasMember", "studyAt")

_MESSAGES = 1 << 16
_KNOWS = 1 << 14


def events(edges: int, rnd: Random, persons: int | None = None) -> Iterator[tuple]:
    """Endless SNB interactions as events (tuples of `(src, trg, label)` with one time)."""
    final = persons if persons is not None else max(40, edges // 400)
    people = max(10, final // 4)
    join = min(0.05, max(0, final - people) / max(1, edges) * 1.6)  # joins per step
    random = rnd.random
    ln = log(people + 1)
    tag = zipf_sampler(max(20, edges // 5000), 1.1, random)
    forum = zipf_sampler(max(5, final // 20), 1.0, random)
    school = zipf_sampler(max(5, final // 200), 0.7, random)
    messages: list[tuple[str, int]] = []  # (message id, creator)
    mpos = 0
    knows_ends: list[int] = []
    kpos = 0
    posts = comments = 0
    while True:
        if random() < join:  # a new person: where they study, a first friend
            p = people
            people += 1
            ln = log(people + 1)
            q = knows_ends[int(random() * len(knows_ends))] if knows_ends else 0
            ps, qs = f"p{p}", f"p{q}"
            if random() < 0.8:
                yield ((ps, f"o{school()}", "studyAt"), (ps, qs, "knows"), (qs, ps, "knows"))
            else:
                yield ((ps, qs, "knows"), (qs, ps, "knows"))
            continue
        # The acting person: Zipf over those who have joined, early joiners busiest.
        p = min(int(exp(random() * ln)) - 1, people - 1)
        r = random()
        if r < 0.07:
            if knows_ends and random() < 0.7:
                q = knows_ends[int(random() * len(knows_ends))]
            else:
                q = min(int(exp(random() * ln)) - 1, people - 1)
            if q == p:
                continue
            if len(knows_ends) < _KNOWS:
                knows_ends.append(p)
                knows_ends.append(q)
            else:
                knows_ends[kpos] = p
                knows_ends[kpos + 1] = q
                kpos = (kpos + 2) % _KNOWS
            ps, qs = f"p{p}", f"p{q}"
            if random() < 0.7:
                yield ((ps, qs, "knows"), (qs, ps, "knows"))
            else:
                yield ((ps, qs, "knows"),)
            continue
        if r < 0.20 or not messages:
            m = f"m{posts}"
            posts += 1
            event = [(m, f"p{p}", "hasCreator"), (m, f"t{tag()}", "hasTag")]
            if random() < 0.4:
                event.append((m, f"t{tag()}", "hasTag"))
            created = (m, p)
        elif r < 0.92:
            mlen = len(messages)
            target, creator = messages[(mpos - 1 - int(random() * random() * mlen)) % mlen]
            if r >= 0.55:
                yield ((f"p{p}", target, "likes"),)
                continue
            # A comment replies to one earlier message; threads go back and forth, so the
            # replier is sometimes the creator of the message replied to.
            if random() < 0.2:
                p = creator
            c = f"c{comments}"
            comments += 1
            event = [(c, target, "replyOf"), (c, f"p{p}", "hasCreator")]
            created = (c, p)
        else:
            yield ((f"f{forum()}", f"p{p}", "hasMember"),)
            continue
        if len(messages) < _MESSAGES:
            messages.append(created)
        else:
            messages[mpos] = created
            mpos = (mpos + 1) % _MESSAGES
        yield event
