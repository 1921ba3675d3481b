"""A StackOverflow-like stream: users only, labels a2q, c2a, c2q; dense, skewed and cyclic.

The SO temporal graph (thesis Ch. 4.5.1 and 5.5; 63M interactions of 2.2M users over 8 years)
has one vertex type and three labels: `a2q(u, v)` u answered v's question, `c2q(u, v)` u
commented on v's question, `c2a(u, v)` u commented on v's answer. It is "more homogeneous and
much more cyclic" than the others, which makes it the hardest input for PATH.

Model: a ring of recent questions (their askers) and a ring of recent answers (answerer,
asker). Each step may post a new question, then emits one interaction on a recent question or
answer. Activity is Zipf-skewed (few users very active, `zipf.py`), and conversations go back
and forth: an asker often comments on the answers to their question (`c2a(asker, answerer)`
closes the cycle `answerer -a2q-> asker -c2a-> answerer`), answerers comment on the question.
Memory is the two rings, whatever the number of edges. Users are `u0 .. u{n-1}`; by default
n = edges / 25 (SO averages ~29 interactions per user), at least 50.
"""

from __future__ import annotations

from collections.abc import Iterator
from random import Random

from .zipf import scramble, zipf_sampler

LABELS = ("a2q", "c2q", "c2a")

_QUESTIONS = 4096
_ANSWERS = 8192


def events(edges: int, rnd: Random, users: int | None = None) -> Iterator[tuple]:
    """Endless SO interactions, one `((src, trg, label),)` event at a time."""
    n = users if users is not None else max(50, edges // 25)
    random = rnd.random
    to_id = scramble(n)
    active = zipf_sampler(n, 1.0, random)  # who answers and comments
    asking = zipf_sampler(n, 0.8, random)  # who asks: also skewed, less so
    questions = [f"u{to_id(asking())}" for _ in range(64)]
    qlen = len(questions)
    qpos = 0
    answers: list[tuple[str, str]] = []
    apos = 0
    while True:
        if random() < 0.35:  # a new question: no edge, it waits to be answered
            asker = f"u{to_id(asking())}"
            if qlen < _QUESTIONS:
                questions.append(asker)
                qlen += 1
            else:
                questions[qpos] = asker
                qpos = (qpos + 1) % _QUESTIONS
        r = random()
        if r < 0.32 or not answers:
            # Answer a recent question (the newest ones get the most answers).
            asker = questions[(qpos - 1 - int(random() * random() * qlen)) % qlen]
            answerer = f"u{to_id(active())}"
            if answerer == asker:
                continue
            if len(answers) < _ANSWERS:
                answers.append((answerer, asker))
            else:
                answers[apos] = (answerer, asker)
                apos = (apos + 1) % _ANSWERS
            yield ((answerer, asker, "a2q"),)
            continue
        alen = len(answers)
        answerer, asker = answers[(apos - 1 - int(random() * random() * alen)) % alen]
        if r < 0.62:
            # Comment on a question: often by one who answered it, else by anyone active.
            src = answerer if random() < 0.5 else f"u{to_id(active())}"
            if src != asker:
                yield ((src, asker, "c2q"),)
        else:
            # Comment on an answer: often the asker talking back (the cycle), else anyone.
            src = asker if random() < 0.55 else f"u{to_id(active())}"
            if src != answerer:
                yield ((src, answerer, "c2a"),)
