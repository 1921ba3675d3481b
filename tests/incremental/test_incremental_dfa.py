"""The regex -> minimal DFA construction (incremental/dfa.py) against Python's `re`."""

from __future__ import annotations

import itertools
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from sgq.incremental.dfa import compile_regex

LETTERS = ("a", "b", "c")


def to_re(regex) -> str:
    kind = regex[0]
    if kind == "label":
        return regex[1]
    if kind == "concat":
        return "".join(f"(?:{to_re(r)})" for r in regex[1:])
    if kind == "alt":
        return "|".join(f"(?:{to_re(r)})" for r in regex[1:])
    return f"(?:{to_re(regex[1])})" + {"star": "*", "plus": "+", "opt": "?"}[kind]


regexes = st.recursive(
    st.sampled_from(LETTERS).map(lambda l: ("label", l)),
    lambda inner: st.one_of(
        st.lists(inner, min_size=2, max_size=3).map(lambda rs: ("concat", *rs)),
        st.lists(inner, min_size=2, max_size=3).map(lambda rs: ("alt", *rs)),
        inner.map(lambda r: ("star", r)),
        inner.map(lambda r: ("plus", r)),
        inner.map(lambda r: ("opt", r)),
    ),
    max_leaves=6,
)

ALL_WORDS = [w for n in range(6) for w in itertools.product(LETTERS, repeat=n)]


@settings(max_examples=200)
@given(regexes)
def test_dfa_language_equals_python_re(regex):
    dfa = compile_regex(regex)
    pattern = re.compile(to_re(regex))
    for word in ALL_WORDS:
        assert dfa.accepts(word) == bool(pattern.fullmatch("".join(word))), (regex, word)


def _distinguishable(dfa, p, q) -> bool:
    for word in ALL_WORDS:
        def run(s):
            for letter in word:
                if s is None:
                    return False
                s = dfa.delta[s].get(letter)
            return s is not None and s in dfa.finals
        if run(p) != run(q):
            return True
    return False


@settings(max_examples=100)
@given(regexes)
def test_dfa_is_minimal_and_trimmed(regex):
    dfa = compile_regex(regex)
    # trimmed: every state reaches a final state; no move leads nowhere useful
    for s in range(dfa.size):
        seen, todo = {s}, [s]
        while todo:
            q = todo.pop()
            for r in dfa.delta[q].values():
                if r not in seen:
                    seen.add(r)
                    todo.append(r)
        assert seen & dfa.finals, (regex, dfa, s)
    # minimal: no two states accept the same words (checked up to length 5, enough here)
    for p, q in itertools.combinations(range(dfa.size), 2):
        assert _distinguishable(dfa, p, q), (regex, dfa, p, q)


def test_known_sizes():
    assert compile_regex(("star", ("label", "a"))).size == 1
    assert compile_regex(("plus", ("label", "a"))).size == 2
    abc = ("plus", ("concat", ("label", "a"), ("label", "b"), ("label", "c")))
    dfa = compile_regex(abc)
    assert dfa.size == 4 and dfa.accepts("abcabc") and not dfa.accepts("abca")
    both = compile_regex(("concat", ("star", ("label", "a")), ("star", ("label", "a"))))
    assert both.size == 1 and both.nullable
    assert compile_regex(("alt", ("label", "a"), ("label", "a"))).by_letter == {"a": [(0, 1)]}
