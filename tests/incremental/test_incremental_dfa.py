"""The regex -> minimal DFA construction (base/dfa.py) against Python's `re`."""

from __future__ import annotations

import itertools
import re

from hypothesis import given, settings
from hypothesis import strategies as st
from sgq.base.dfa import closure_automaton, compile_regex

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
    """Whether some word leads exactly one of p, q to a final state: a search over pairs of
    states (None: the dead state), exact whatever the word length (a bound on word length
    once missed two states told apart only by a word of six letters)."""
    seen, todo = {(p, q)}, [(p, q)]
    while todo:
        s, t = todo.pop()
        if (s is not None and s in dfa.finals) != (t is not None and t in dfa.finals):
            return True
        for letter in LETTERS:
            nxt = (
                None if s is None else dfa.delta[s].get(letter),
                None if t is None else dfa.delta[t].get(letter),
            )
            if nxt != (None, None) and nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
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
    # minimal: no two states accept the same words
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


def test_cyclic_letters_of_known_regexes():
    a, b, c = ("label", "a"), ("label", "b"), ("label", "c")
    assert compile_regex(("concat", a, ("star", b))).cyclic_letters() == {"b"}
    assert compile_regex(("plus", ("concat", a, b, c))).cyclic_letters() == {"a", "b", "c"}
    assert compile_regex(("concat", ("opt", a), ("star", b))).cyclic_letters() == {"b"}
    assert compile_regex(("concat", a, b, a)).cyclic_letters() == set()


@settings(max_examples=200)
@given(regexes)
def test_a_letter_repeated_beyond_its_moves_is_cyclic(regex):
    """A word that uses a letter more often than the DFA has moves on it went round a cycle
    through one of them (pigeonhole)."""
    dfa = compile_regex(regex)
    cyclic = dfa.cyclic_letters()
    assert cyclic <= set(dfa.letters)
    words = [w for n in range(9) for w in itertools.product(LETTERS, repeat=n) if dfa.accepts(w)]
    for letter in dfa.letters:
        moves = len(dfa.by_letter[letter])
        most = max((w.count(letter) for w in words), default=0)
        assert most <= moves or letter in cyclic, (letter, most, moves)


@settings(max_examples=200)
@given(regexes)
def test_closure_automaton_has_the_regex_non_empty_words_and_no_more_states(regex):
    """What a closure PATH walks: the regex's non-empty words (its ε-pairs come from the
    regex itself), never more states than the regex's DFA; `a+` in one state."""
    dfa, closure = compile_regex(regex), closure_automaton(regex)
    assert closure.size <= dfa.size
    for word in ALL_WORDS[1:]:
        assert closure.accepts(word) == dfa.accepts(word), (regex, word)
    assert closure.nullable or not dfa.nullable
    assert closure_automaton(("plus", ("label", "a"))).size == 1
    assert closure_automaton(("plus", ("concat", ("label", "a"), ("label", "b")))).size == 2
