"""Parsed programs kept between processes (datalog/parser_cache.py `saved_program`): a program
read from a file is loaded parsed, equal to what the grammar makes of it, and only when the
same text was parsed by the same code; lark is not imported then."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from sgq.datalog import grammar, parser_cache
from sgq.datalog.parser import parse

PROGRAM = """.window 10d
.slide 1d
.output Answer
RL(x, y) :- knows+(x, y) as P, likes(x, m), hasCreator(m, y).
Answer(x, m) :- [RL/(replyOf|likes)*](x, m), x != m.
"""


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SGQ_CACHE_DIR", str(tmp_path))
    return tmp_path


def _no_grammar(monkeypatch):
    def refuse(text, filename="<string>"):
        raise AssertionError("parsed again")

    monkeypatch.setattr(grammar, "parse_text", refuse)


def _kept(cache) -> list:
    return sorted(p.name for p in cache.glob("dl-program-*"))


def test_a_program_read_from_a_file_is_loaded_parsed_the_next_time(cache, monkeypatch):
    first = parse(PROGRAM, "q.dl")
    assert len(_kept(cache)) == 1
    _no_grammar(monkeypatch)
    loaded = parse(PROGRAM, "other/q.dl")  # (the text decides, not the file's name)
    assert loaded == first
    assert [r.loc for r in loaded.rules] == [r.loc for r in first.rules]


def test_a_program_not_from_a_file_is_not_kept(cache):
    parse(PROGRAM)
    parse(PROGRAM, "<stdin>")
    assert _kept(cache) == []


def test_other_code_or_another_text_on_the_same_name_parses_again(cache, monkeypatch):
    parse(PROGRAM, "q.dl")
    calls: list = []
    real = grammar.parse_text

    def counting(text, filename="<string>"):
        calls.append(text)
        return real(text, filename)

    monkeypatch.setattr(grammar, "parse_text", counting)
    stamp = parser_cache._code_stamp()
    monkeypatch.setattr(parser_cache, "_code_stamp", lambda: stamp + ((1, 2),))
    assert parse(PROGRAM, "q.dl") == real(PROGRAM) and calls == [PROGRAM]
    monkeypatch.setattr(parser_cache, "_code_stamp", lambda: stamp)
    other = PROGRAM.replace("knows+", "follows+")
    (saved,) = cache.glob("dl-program-*")
    os.replace(saved, parser_cache._program_path(cache, other))  # PROGRAM's record, other's name
    assert parse(other, "q.dl") == real(other) and calls == [PROGRAM, other]


def test_a_broken_or_disabled_cache_parses(cache, monkeypatch):
    parse(PROGRAM, "q.dl")
    (saved,) = cache.glob("dl-program-*")
    saved.write_bytes(saved.read_bytes()[:40])
    assert parse(PROGRAM, "q.dl") == grammar.parse_text(PROGRAM)
    monkeypatch.setenv("SGQ_CACHE_DIR", "")
    assert parse(PROGRAM, "q.dl") == grammar.parse_text(PROGRAM)


def test_a_syntax_error_is_reported_and_not_kept(cache):
    from sgq.datalog.errors import DlErrors

    for _ in range(2):
        with pytest.raises(DlErrors):
            parse("A(x) :- ", "bad.dl")
    assert _kept(cache) == []


def test_only_the_newest_programs_are_kept(cache, monkeypatch):
    monkeypatch.setattr(parser_cache, "PROGRAMS_KEPT", 3)
    texts = [PROGRAM.replace("10d", f"{n}d") for n in range(1, 6)]
    for i, text in enumerate(texts):
        parse(text, "q.dl")
        (path,) = [
            p for p in cache.glob("dl-program-*") if p == parser_cache._program_path(cache, text)
        ]
        os.utime(path, ns=(i * 10**9, i * 10**9))  # (written in this order)
    assert _kept(cache) == sorted(parser_cache._program_path(cache, t).name for t in texts[2:])


def test_a_later_process_does_not_import_lark(cache, tmp_path):
    path = tmp_path / "q.dl"
    path.write_text(PROGRAM, encoding="utf-8")
    probe = (
        "import sys\nfrom sgq.datalog.check import check_text\n"
        f"check_text(open({str(path)!r}).read(), {str(path)!r})\n"
        "print('lark' in sys.modules)"
    )
    env = dict(os.environ, SGQ_CACHE_DIR=str(cache))
    runs = [
        subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True)
        for _ in range(2)
    ]
    assert [r.stdout.strip() for r in runs] == ["True", "False"], [r.stderr for r in runs]


def test_a_program_that_cannot_be_kept_is_still_parsed(cache, monkeypatch):
    import pickle

    def refuse(*args, **kwargs):
        raise pickle.PicklingError("not this one")

    monkeypatch.setattr(pickle, "dumps", refuse)
    assert parse(PROGRAM, "q.dl") == grammar.parse_text(PROGRAM)
    assert _kept(cache) == []
