"""Model shapes: SNB replyOf is a forest over earlier messages, knows is mutual-ish; SO is
skewed and cyclic; gmark follows its drawn schema."""

from __future__ import annotations

from collections import Counter, defaultdict

from sgq.generators import generate, gmark_schema


def test_snb_each_comment_replies_to_exactly_one_earlier_message():
    created: set[str] = set()  # messages seen so far (by their first edge)
    replied: dict[str, str] = {}
    for src, trg, label, _ts, _op in generate("snb", 60000, 3):
        if label == "replyOf":
            assert src.startswith("c") and src not in replied, src
            assert trg in created, f"{src} replies to {trg}, not created before"
            replied[src] = trg
        if label in ("hasCreator", "replyOf", "hasTag"):
            created.add(src)
        if label == "likes":
            assert trg in created
    assert len(replied) > 5000
    # Every comment has one replyOf; following replyOf from any comment ends at a post.
    comments = {m for m in created if m.startswith("c")}
    assert comments == set(replied)
    for c in list(replied)[:2000]:
        seen = set()
        while c in replied:
            assert c not in seen
            seen.add(c)
            c = replied[c]
        assert c.startswith("m")
    # Threads have depth: some comments reply to comments.
    assert sum(1 for t in replied.values() if t.startswith("c")) > 1000


def test_snb_messages_have_one_creator_and_knows_is_mutual_ish():
    creators = Counter()
    knows = set()
    for src, trg, label, _ts, _op in generate("snb", 60000, 5):
        if label == "hasCreator":
            creators[src] += 1
        elif label == "knows":
            knows.add((src, trg))
    assert set(creators.values()) == {1}
    mutual = sum(1 for s, t in knows if (t, s) in knows)
    assert 0.5 < mutual / len(knows) < 1.0


def test_snb_activity_is_skewed_and_persons_join_over_time():
    deg = Counter()
    first_seen = {}
    for src, trg, _label, ts, _op in generate("snb", 100000, 6):
        for v in (src, trg):
            if v.startswith("p"):
                deg[v] += 1
                first_seen.setdefault(v, ts)
    ranked = [c for _, c in deg.most_common()]
    top = ranked[: max(1, len(ranked) // 100)]
    assert sum(top) / sum(ranked) > 0.15
    late = [v for v, ts in first_seen.items() if ts > 50 * 86400]
    assert len(late) > 10


def _top_share(kind, n, seed, fraction=0.01, **kw):
    deg = Counter()
    for src, trg, *_ in generate(kind, n, seed, **kw):
        deg[src] += 1
        deg[trg] += 1
    ranked = [c for _, c in deg.most_common()]
    top = ranked[: max(1, int(len(ranked) * fraction))]
    return sum(top) / sum(ranked), len(ranked)


def test_so_top_one_percent_of_users_have_a_large_share():
    share, users = _top_share("so", 100000, 1)
    assert users > 1000
    assert share > 0.25, share
    # A uniform choice of users would give the top 1% only a few percent.
    assert share > 5 * 0.01 * 2


def test_so_is_cyclic_conversations_go_back_and_forth():
    pairs = set()
    for src, trg, *_ in generate("so", 50000, 2):
        pairs.add((src, trg))
    back = sum(1 for s, t in pairs if (t, s) in pairs)
    assert back / len(pairs) > 0.1


def test_gmark_edges_follow_the_schema():
    schema = gmark_schema(30000, 7, labels=6)
    by_label = {ls.label: ls for ls in schema.labels}
    ranges = [range(o, o + s) for o, s in zip(schema.type_offsets, schema.type_sizes)]
    per_label = defaultdict(Counter)
    for src, trg, label, _ts, _op in generate("gmark", 30000, 7, labels=6):
        ls = by_label[label]
        assert int(src) in ranges[ls.source_type]
        assert int(trg) in ranges[ls.target_type]
        per_label[label][src] += 1
    # A Zipf source side concentrates on few vertices; a uniform one does not.
    for label, ls in by_label.items():
        counts = per_label[label]
        size = schema.type_sizes[ls.source_type]
        if size < 200 or sum(counts.values()) < 2000:
            continue
        top = sum(c for _, c in counts.most_common(max(1, size // 100)))
        share = top / sum(counts.values())
        if ls.source_skew >= 1.0:
            assert share > 0.1, (label, share)
        elif ls.source_skew == 0:
            assert share < 0.05, (label, share)
    assert "label l0:" in schema.describe()
