"""The collector's thresholds: a large young generation for a long run, a smaller one once
Spark runs in the process (its py4j proxies in cycles hold JVM memory until collected)."""

from __future__ import annotations

import gc

import pytest

from sgq import collector


@pytest.fixture
def fresh_collector(monkeypatch):
    saved = gc.get_threshold()
    monkeypatch.setattr(collector, "_spark_started", False)
    yield
    gc.set_threshold(*saved)


def test_a_long_run_without_spark_gets_the_large_young_generation(fresh_collector):
    collector.tune_for_long_run()
    assert gc.get_threshold() == collector.LONG_RUN_THRESHOLDS


def test_starting_spark_lowers_it_and_later_long_runs_keep_it_lower(fresh_collector):
    collector.tune_for_long_run()
    collector.tune_for_spark()
    assert gc.get_threshold() == collector.SPARK_THRESHOLDS
    collector.tune_for_long_run()  # the CLI called again in the same process
    assert gc.get_threshold() == collector.SPARK_THRESHOLDS
    assert collector.spark_started()


def test_spark_keeps_a_library_users_smaller_young_generation(fresh_collector):
    gc.set_threshold(700, 10, 10)
    collector.tune_for_spark()
    assert gc.get_threshold() == (700, 10, 10)


def test_the_cli_tunes_for_a_long_run(fresh_collector, tmp_path):
    from sgq.cli import main

    assert main(["check", "specs/queries/bench/snb/q1.dl"]) == 0
    assert gc.get_threshold() == collector.LONG_RUN_THRESHOLDS


def test_starting_a_session_tunes_for_spark(fresh_collector, monkeypatch):
    """`start_session` records Spark before anything else, even when it then fails."""
    from sgq.base.errors import UserError

    from sgq import spark_session

    gc.set_threshold(*collector.LONG_RUN_THRESHOLDS)
    monkeypatch.setattr(spark_session, "_java_available", lambda: False)
    pyspark_sql = pytest.importorskip("pyspark.sql")
    if pyspark_sql.SparkSession.getActiveSession() is None:
        with pytest.raises(UserError):
            spark_session.start_session("sgq-test", "a test")
    else:
        spark_session.start_session("sgq-test", "a test")
    assert collector.spark_started()
    assert gc.get_threshold() == collector.SPARK_THRESHOLDS
