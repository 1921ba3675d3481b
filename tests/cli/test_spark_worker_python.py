"""Spark's Python workers run the driver's interpreter on a local master (sgq/
spark_session.py `worker_python`): a `.venv/bin/sgq` started without its venv on PATH
would otherwise give them the first `python3` there, without sgq."""

from __future__ import annotations

import os
import sys

from sgq.spark_session import worker_python


def test_a_local_master_gives_the_workers_this_interpreter(monkeypatch):
    monkeypatch.setenv("PYSPARK_PYTHON", "")  # (recorded: undone after the test)
    monkeypatch.delenv("PYSPARK_PYTHON")
    worker_python("local[2]")

    assert os.environ["PYSPARK_PYTHON"] == sys.executable


def test_the_users_choice_of_worker_python_stays(monkeypatch):
    monkeypatch.setenv("PYSPARK_PYTHON", "/opt/other/python3")
    worker_python("local[2]")

    assert os.environ["PYSPARK_PYTHON"] == "/opt/other/python3"


def test_a_cluster_master_leaves_the_workers_python_to_the_cluster(monkeypatch):
    monkeypatch.setenv("PYSPARK_PYTHON", "")  # (recorded: undone after the test)
    monkeypatch.delenv("PYSPARK_PYTHON")
    worker_python("spark://cluster:7077")

    assert "PYSPARK_PYTHON" not in os.environ
