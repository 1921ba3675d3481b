"""Sub-expressions of a PATH's regular expression and the PATH that evaluates one of them: the
shared machinery of the PATH rules 14-17 (thesis 6.2.3), not a rule itself.

A position is the tuple of child indices from the root of the regex tuple (`()` is the root,
`(1,)` the body of `("plus", body)`). `substitute` replaces the sub-expression at a position
by a fresh letter `d` read from its own PATH, `P_R(S) = P_{R[s -> d]}(S, P_s(S) as d)`: regular
languages are closed under substitution, so at every instant a path spelling a word of L(R)
is a path of the rewritten expression in which each s-segment is one d-tuple, valid while some
s-path is (PATH's max-min validity, Def 34, distributes over the segments).
"""

from __future__ import annotations

from collections.abc import Iterator

from ..algebra import Op, Path, Regex, regex_labels, regex_nullable, regex_text


def positions(regex: Regex, at: tuple[int, ...] = ()) -> Iterator[tuple[tuple[int, ...], Regex]]:
    """Every `(position, sub-expression)` of `regex`, parents before children."""
    yield at, regex
    if regex[0] != "label":
        for i, child in enumerate(regex[1:], start=1):
            yield from positions(child, at + (i,))


def replace_at(regex: Regex, at: tuple[int, ...], new: Regex) -> Regex:
    """`regex` with the sub-expression at position `at` replaced by `new`."""
    if not at:
        return new
    i = at[0]
    return regex[:i] + (replace_at(regex[i], at[1:], new),) + regex[i + 1 :]


def fresh_letter(sub: Regex, taken: set[str]) -> str:
    """The name of the derived stream of `sub`, `[a/b]`, primed until it is no letter in use."""
    name = f"[{regex_text(sub)}]"
    while name in taken:
        name += "'"
    return name


def streams_of(path: Path) -> dict[str, Op]:
    """Each letter of `path`'s regex -> the input that supplies its tuples."""
    return dict(zip(regex_labels(path.regex), path.inputs))


def path_over(regex: Regex, streams: dict[str, Op], label: str) -> Op:
    """An arbitrary-path PATH over an ε-free `regex` labelled `label`, its inputs taken from
    `streams`, to be read by another operator; a single letter is its stream as it is (rule 16,
    substitution of transition: PATTERN and PATH read inputs by position, not by label)."""
    if regex_nullable(regex):
        raise ValueError(f"path_over needs an ε-free expression, not {regex_text(regex)}")
    if regex[0] == "label":
        return streams[regex[1]]
    return Path(tuple(streams[letter] for letter in regex_labels(regex)), regex, label)


def substitute(path: Path, at: tuple[int, ...]) -> Path:
    """`path` with the ε-free sub-expression at `at` read as one fresh letter from its own PATH
    (see the module docstring); same label and domain."""
    sub = dict(positions(path.regex))[at]
    streams = streams_of(path)
    letter = fresh_letter(sub, set(streams))
    streams[letter] = path_over(sub, streams, letter)
    regex = replace_at(path.regex, at, ("label", letter))
    inputs = tuple(streams[name] for name in regex_labels(regex))
    return Path(inputs, regex, path.label, path.domain)
