"""The real-stream workloads (`sgq bench --real`, issue 68): each names a dataset of `sgq
data` and a program that checks, the peers' labels are the program's, and the suite converts a
dataset into its cache once, from the file `--data-from` gives."""

from __future__ import annotations

import pytest
from sgq.benchmarks import workloads as wl
from sgq.benchmarks.peer_programs import QUERIES
from sgq.benchmarks.suite import stream_file

import sgq
from sgq.cli import main
from sgq.datasets import DATASETS

REAL = wl.real()


def test_every_dataset_has_a_workload():
    assert {w.dataset for w in REAL} == set(DATASETS)


@pytest.mark.parametrize("w", REAL, ids=lambda w: w.name)
def test_a_real_workload_is_a_checked_program_over_its_dataset(w):
    query = sgq.compile((wl.specs_dir() / w.query).read_text(encoding="utf-8"), window=w.window)
    assert w.name.startswith("real-") and w.stream and w.dataset in DATASETS
    assert (w.window, w.slide) == (wl.DAY, 3600)
    if w.name in QUERIES:  # the peers read the same labels as the program
        assert set(QUERIES[w.name][1]) == set(query.checked.edb)


def test_the_suite_converts_a_dataset_once_from_the_given_file(tmp_path):
    src = tmp_path / "Contacts_Hospital.csv"
    src.write_text("100\t1\t2\tPAT\tNUR\n120\t2\t3\tNUR\tMED\n")
    (w,) = [w for w in REAL if w.dataset == "hospital"]
    cache = tmp_path / "cache"
    path = stream_file(w, cache, {"hospital": str(src)})
    assert path == cache / "real-hospital.csv"
    assert path.read_text() == (
        "src,trg,label,ts\n1,2,pat,100\n2,1,nur,100\n2,3,nur,120\n3,2,med,120\n"
    )
    src.unlink()  # kept: the second call reads the cache
    assert stream_file(w, cache, {"hospital": str(src)}).read_text() == path.read_text()


@pytest.mark.parametrize(
    "arg, said",
    [("flights", "expected NAME=FILE"), ("karate=x.tgz", "collegemsg")],
)
def test_a_bad_data_from_is_a_message(arg, said, capsys, tmp_path):
    code = main(
        ["bench", "--real", "--only", "real-", "--data-from", arg, "--cache", str(tmp_path)]
    )
    err = capsys.readouterr().err
    assert code == 2 and said in err and "Traceback" not in err


def test_a_recorded_command_names_no_path_of_this_machine():
    """A recording keeps the bench's command line with the programs named by role and a
    `--data-from` file by its name (docs/benchmarks/*.json are read on other machines)."""
    from sgq.commands.bench import recorded_command

    argv = [
        "--real",
        "--peer-program",
        "/home/me/peers/demo",
        "--yardstick-program=/home/me/bench/recompute.py",
        "--data-from",
        "flights=/home/me/npm/vega-datasets-3.2.1.tgz",
        "--data-from=other=local.tgz",
    ]
    assert recorded_command(argv) == (
        "sgq bench --real --peer-program PEER_PROGRAM --yardstick-program=YARDSTICK_PROGRAM "
        "--data-from flights=vega-datasets-3.2.1.tgz --data-from=other=local.tgz"
    )
