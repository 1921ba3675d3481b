"""The library (sgq/library.py, sgq/api.py): `sgq.compile(path=...)` / `(text=...)`,
`sgq.DlErrors`, `Query.run` over tuples, DataFrames, Arrow tables and paths, yielding each
change once it is final and the same changes `sgq run` writes; `to_pandas` / `to_arrow`; the
docstring examples."""

from __future__ import annotations

import doctest
import itertools
import sys

import pandas as pd
import pyarrow as pa
import pytest
from cli_support import NOTIFICATION, api_rows, prepared_dir, social_edges, write_edges

import sgq
import sgq.api
import sgq.library

REACH = ".window 10\nAnswer(x, y) :- follows+(x, y).\n"


@pytest.fixture(scope="module")
def stream():
    return social_edges(seed=21, n=400, deletions=0.05)


@pytest.fixture(scope="module")
def query():
    return sgq.compile(path=NOTIFICATION)


def _strings(rows):
    return [tuple(map(str, r)) for r in rows]


# ---- compile ----------------------------------------------------------------------------


def test_compile_takes_a_path_or_a_text_explicitly(tmp_path):
    by_path = sgq.compile(path=NOTIFICATION)
    assert by_path.checked.filename == str(NOTIFICATION)
    by_text = sgq.compile(text=NOTIFICATION.read_text())
    assert by_text.source == by_path.source
    # a text without a newline or ':-' is still a text, never a file name
    with pytest.raises(sgq.DlErrors):
        sgq.compile(text="notification.dl")
    with pytest.raises(sgq.UserError, match="does not exist"):
        sgq.compile(path=tmp_path / "missing.dl")
    for bad in ({}, {"path": NOTIFICATION, "text": REACH}):
        with pytest.raises(sgq.UserError, match="one program: path=FILE or text=PROGRAM"):
            sgq.compile(**bad)
    assert sgq.compile(REACH).checked.outputs == ("Answer",)  # the positional form


def test_dl_errors_give_line_column_and_message():
    with pytest.raises(sgq.DlErrors) as info:
        sgq.compile(text=".window 10\nAnswer(x, y) :- a(x, z).\nB(x) :- a(x, y).\n")
    found = [(e.line, e.column, e.message) for e in info.value.errors]
    assert (2, 11, "head variable 'y' does not appear in any body atom") in found
    assert any(line == 3 and "binary" in message for line, _, message in found)
    assert all(isinstance(e, sgq.DlError) for e in info.value.errors)


# ---- run ---------------------------------------------------------------------------------


def test_run_gives_the_deltas_sgq_run_writes(query, stream):
    got = list(query.run(stream))
    assert all(isinstance(d, sgq.Delta) for d in got)
    assert _strings(got) == api_rows(NOTIFICATION, stream, "deltas")


def test_run_gives_the_interval_rows_sgq_run_writes(query, stream):
    got = list(query.run(stream, emit="intervals"))
    assert all(isinstance(r, sgq.Result) for r in got)
    expected = api_rows(NOTIFICATION, stream, "intervals")
    assert sorted(_strings(r[:5] for r in got)) == sorted(expected)


def test_run_yields_each_change_once_it_is_final():
    """An endless source: the changes of an instant come once a later time is read."""
    q = sgq.compile(text=REACH)
    pulled = []

    def endless():
        for t in itertools.count():
            pulled.append(t)
            yield (f"v{t}", f"v{t + 1}", "follows", t)

    first = list(itertools.islice(q.run(endless()), 3))
    assert first == [
        sgq.Delta(0, "+", "v0", "v1", "Answer"),
        sgq.Delta(1, "+", "v0", "v2", "Answer"),
        sgq.Delta(1, "+", "v1", "v2", "Answer"),
    ]
    assert len(pulled) <= 3


def test_tables_and_paths_give_what_tuples_give(query, stream, tmp_path):
    expected = list(query.run(stream))
    frame = pd.DataFrame(stream, columns=["source", "target", "type", "time", "op"])
    assert list(query.run(frame)) == expected
    table = pa.Table.from_pandas(frame[["time", "source", "target", "type", "op"]])
    assert list(query.run(table)) == expected
    assert list(query.run(table.to_batches()[0])) == expected
    assert list(query.run(write_edges(tmp_path / "e.csv", stream))) == expected
    assert list(query.run(str(prepared_dir(tmp_path / "prep", stream)))) == expected
    without_op = [e[:4] for e in stream if e[4] == "+"]
    frame4 = pd.DataFrame(without_op, columns=["src", "trg", "label", "ts"])
    assert list(query.run(frame4)) == list(query.run(without_op))


def test_to_pandas_and_to_arrow(query, stream):
    frame = query.to_pandas(stream)
    assert list(frame.columns) == ["time", "op", "src", "trg", "label"]
    assert [tuple(r) for r in frame.itertuples(index=False)] == [
        tuple(d) for d in query.run(stream)
    ]
    table = query.to_arrow(stream, emit="intervals")
    assert table.column_names == ["src", "trg", "label", "ts", "exp"]
    assert table.schema.field("exp").type == pa.int64()
    assert table.num_rows == len(list(query.run(stream, emit="intervals")))
    empty = query.to_arrow([])
    assert empty.num_rows == 0 and empty.column_names == ["time", "op", "src", "trg", "label"]
    paths = sgq.compile(text=REACH).to_pandas([("a", "b", "follows", 0)], "intervals", paths=True)
    assert paths.values.tolist() == [["a", "b", "Answer", 0, 10, "a-follows->b"]]


def test_to_pandas_without_pandas_says_what_to_install(query, monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(sgq.UserError, match=r"needs pandas \(pip install pandas\)"):
        query.to_pandas([])


@pytest.mark.parametrize(
    "edges, message",
    [
        ([("a", "b", "follows")], r"edge #1 .*expected \(src, trg, label, ts\[, op\]\)"),
        ([("a", "b", "follows", "soon")], r"edge #1 .*integer ts"),
        ([("a", "b", "follows", 1, "+", "x")], r"edge #1 .*the sixth value is not a dict"),
        ([("a", "b", "follows", 1, "+", {}, 7)], r"edge #1 .*expected 4 to 6 values, found 7"),
        ([("a", "b", "f", 1, "+", {"w": True})], r"edge #1 .*a property is an int, a float"),
        (
            [("a", "b", "f", 1, "+", {"w": 1}), ("a", "b", "f", 2, "+", {"v": 1})],
            r"edge #2 .*not among the input's \(w; give them as properties=\)",
        ),
        ([("a", "b", "f", 5), ("a", "b", "f", 2)], r"^<edges>:2: time 2 is earlier than time 5"),
        ([("a", "b", "follows", 1, "*")], r"unknown op"),
        (pd.DataFrame({"src": ["a"], "trg": ["b"]}), r"lacks column\(s\) label, ts"),
        (42, r"cannot read edges from int"),
    ],
)
def test_bad_input_is_a_one_line_error(edges, message):
    q = sgq.compile(text=REACH)
    with pytest.raises(sgq.UserError, match=message):
        list(q.run(edges))


def test_lateness_and_emit_options():
    q = sgq.compile(text=REACH)
    late = [("a", "b", "follows", 5), ("b", "c", "follows", 3)]
    assert list(q.run(late, max_lateness=2)) == list(q.run(sorted(late, key=lambda e: e[3])))
    with pytest.raises(sgq.UserError, match="emit must be 'intervals' or 'deltas'"):
        list(q.run(late, emit="rows"))


@pytest.mark.parametrize("module", [sgq, sgq.api])
def test_docstring_examples(module):
    result = doctest.testmod(module, extraglobs={"sgq": sgq}, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 3 and result.failed == 0


def test_the_readme_python_block_runs(monkeypatch, capsys):
    """README's "Using it" shows the library in five lines: they run as written."""
    from cli_support import REPO

    text = (REPO / "README.md").read_text()
    block = text.split("```python\n", 1)[1].split("```", 1)[0]
    assert len([line for line in block.splitlines() if line.strip()]) == 5
    monkeypatch.chdir(REPO)
    scope: dict = {}
    exec(compile(block, "README.md", "exec"), scope)
    assert len(scope["df"]) > 0 and "Delta(" in capsys.readouterr().out
