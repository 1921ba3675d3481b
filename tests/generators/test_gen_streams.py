"""Every kind: determinism, header, time order and span, label sets, id shapes."""

from __future__ import annotations

import re

import pytest
from generators.gen_support import csv_text
from sgq.base.errors import UserError

from sgq.generators import KINDS, generate, labels_of

DAY = 86400


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("deletions", [0.0, 0.25])
def test_same_seed_same_bytes_other_seed_differs(kind, deletions):
    a = csv_text(kind, 5000, 11, deletions=deletions)
    assert a == csv_text(kind, 5000, 11, deletions=deletions)
    assert a != csv_text(kind, 5000, 12, deletions=deletions)
    assert a.splitlines()[0] == "src,trg,label,ts,op"
    assert len(a.splitlines()) == 5001


@pytest.mark.parametrize("kind", KINDS)
def test_prefix_of_a_longer_run_is_not_required_but_count_is_exact(kind):
    for n in (0, 1, 2, 3, 7, 100):
        assert len(list(generate(kind, n, 3))) == n


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("days", [1, 7, 100])
def test_times_non_decreasing_within_span_with_ties(kind, days):
    rows = list(generate(kind, 20000, 5, days=days))
    times = [r[3] for r in rows]
    assert all(isinstance(t, int) for t in times)
    assert times == sorted(times)
    assert 0 <= times[0] and times[-1] < days * DAY
    # Spread over the span, not bunched at one end.
    assert times[len(times) // 2] > days * DAY // 5
    assert times[-1] > days * DAY * 9 // 10
    if days == 1:  # 20000 edges in 86400 s: ties must occur
        assert len(set(times)) < len(times)


@pytest.mark.parametrize("kind", KINDS)
def test_label_sets_and_ops(kind):
    rows = list(generate(kind, 30000, 2))
    labels = {r[2] for r in rows}
    assert labels == set(labels_of(kind))
    assert {r[4] for r in rows} == {"+"}
    for src, trg, _label, _ts, _op in rows:
        assert isinstance(src, str) and isinstance(trg, str) and src and trg


def test_gmark_labels_option():
    rows = list(generate("gmark", 20000, 4, labels=9))
    assert {r[2] for r in rows} == {f"l{i}" for i in range(9)}
    assert labels_of("gmark", labels=9) == tuple(f"l{i}" for i in range(9))
    assert all(r[0].isdigit() and r[1].isdigit() for r in rows)


ID_SHAPES = {
    "so": {"a2q": ("u", "u"), "c2q": ("u", "u"), "c2a": ("u", "u")},
    "snb": {
        "knows": ("p", "p"),
        "likes": ("p", "mc"),
        "hasCreator": ("mc", "p"),
        "replyOf": ("c", "mc"),
        "hasTag": ("mc", "t"),
        "hasMember": ("f", "p"),
        "studyAt": ("p", "o"),
    },
}


@pytest.mark.parametrize("kind", ["so", "snb"])
def test_vertex_ids_have_the_type_prefix_of_the_label(kind):
    shapes = ID_SHAPES[kind]
    for src, trg, label, _, _ in generate(kind, 20000, 8):
        s_pre, t_pre = shapes[label]
        assert re.fullmatch(f"[{s_pre}][0-9]+", src), (src, label)
        assert re.fullmatch(f"[{t_pre}][0-9]+", trg), (trg, label)
        if kind == "so":
            assert src != trg


@pytest.mark.parametrize("kind", KINDS)
def test_seed_may_be_text(kind):
    assert list(generate(kind, 50, "abc")) == list(generate(kind, 50, "abc"))


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: generate("nope", 5, 1), "unknown stream kind 'nope'"),
        (lambda: generate("so", -1, 1), "--edges"),
        (lambda: generate("so", 5, 1, days=0), "--days"),
        (lambda: generate("so", 5, 1, deletions=0.6), "--deletions"),
        (lambda: generate("so", 5, 1, labels=3), "'so' has no option 'labels'"),
        (lambda: generate("gmark", 5, 1, labels=0), "--labels"),
        (lambda: generate("so", 5, 1, users=1), "--users must be an integer >= 2, not 1"),
    ],
)
def test_bad_arguments_are_user_errors_raised_at_once(call, message):
    with pytest.raises(UserError, match=re.escape(message)):
        call()
