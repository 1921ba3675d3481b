"""The parser's tables kept between processes (datalog/parser_cache.py): a loaded parser reads
programs exactly as a built one does, and a missing, broken or disabled cache only means
building them."""

from __future__ import annotations

from importlib import resources

from lark import Lark
from sgq.datalog import parser_cache
from sgq.datalog.grammar import _lark

GRAMMAR = resources.files("sgq.datalog").joinpath("dl.lark").read_text(encoding="utf-8")
PROGRAM = """.window 10d
.slide 1d
.output Answer
RL(x, y) :- knows+(x, y) as P, likes(x, m), hasCreator(m, y).
Answer(x, m) :- [RL/(replyOf|likes)*](x, m), x != m.
"""


def _build():
    return Lark(GRAMMAR, parser="lalr", propagate_positions=True, maybe_placeholders=True)


def _counting_build(calls: list):
    def build():
        calls.append(1)
        return _build()

    return build


def _positions(tree) -> list:
    return [
        (t.data, t.meta.line, t.meta.column, t.meta.end_line, t.meta.end_column)
        for t in tree.iter_subtrees()
        if not t.meta.empty
    ]


def test_a_second_process_loads_the_parser_and_reads_programs_the_same(tmp_path, monkeypatch):
    monkeypatch.setenv("SGQ_CACHE_DIR", str(tmp_path))
    calls: list = []
    first = parser_cache.cached_parser(GRAMMAR, _counting_build(calls))
    assert calls == [1] and len(list(tmp_path.glob("dl-parser-*.lark"))) == 1
    loaded = parser_cache.cached_parser(GRAMMAR, _counting_build(calls))
    assert calls == [1], "the saved parser was built again"
    assert loaded.parse(PROGRAM) == first.parse(PROGRAM) == _build().parse(PROGRAM)
    assert _positions(loaded.parse(PROGRAM)) == _positions(_build().parse(PROGRAM))


def test_another_grammar_does_not_read_the_saved_one(tmp_path, monkeypatch):
    monkeypatch.setenv("SGQ_CACHE_DIR", str(tmp_path))
    parser_cache.cached_parser(GRAMMAR, _build)
    calls: list = []
    parser_cache.cached_parser(GRAMMAR + "\n// changed\n", _counting_build(calls))
    assert calls == [1]
    assert len(list(tmp_path.glob("dl-parser-*.lark"))) == 2


def test_a_broken_cache_file_is_built_again_and_replaced(tmp_path, monkeypatch):
    monkeypatch.setenv("SGQ_CACHE_DIR", str(tmp_path))
    parser_cache.cached_parser(GRAMMAR, _build)
    (saved,) = tmp_path.glob("dl-parser-*.lark")
    saved.write_bytes(saved.read_bytes()[:100])  # a half-written file
    calls: list = []
    parser = parser_cache.cached_parser(GRAMMAR, _counting_build(calls))
    assert calls == [1] and parser.parse(PROGRAM) == _build().parse(PROGRAM)
    assert parser_cache.cached_parser(GRAMMAR, _counting_build(calls)) and calls == [1]
    assert not list(tmp_path.glob(".dl-*")), "a temporary file was left"


def test_an_unwritable_or_disabled_cache_builds_each_time(tmp_path, monkeypatch):
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    for where in (str(blocked / "sub"), ""):
        monkeypatch.setenv("SGQ_CACHE_DIR", where)
        calls: list = []
        for _ in range(2):
            assert parser_cache.cached_parser(GRAMMAR, _counting_build(calls)).parse(PROGRAM)
        assert calls == [1, 1]


def test_the_cache_directory_follows_xdg(monkeypatch, tmp_path):
    monkeypatch.delenv("SGQ_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert parser_cache.cache_dir() == tmp_path / "sgq"


def test_the_process_parser_parses():
    assert _lark().parse(PROGRAM) == _build().parse(PROGRAM)
