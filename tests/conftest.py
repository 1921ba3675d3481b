"""Shared test set-up: tests/ on sys.path for the test-support modules, and hypothesis
profiles (`ci`, the default, and `thorough`, chosen with HYPOTHESIS_PROFILE=thorough)."""

from __future__ import annotations

import os
import sys

from hypothesis import HealthCheck, settings

sys.path.insert(0, os.path.dirname(__file__))

# `ci` draws the same examples on every run (a red run is one anyone can reproduce, not a
# draw of the machine's); `thorough` draws new ones each time, to find what `ci` does not
settings.register_profile(
    "ci",
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
    derandomize=True,
)
settings.register_profile(
    "thorough",
    deadline=None,
    max_examples=2000,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# a 4g Spark driver for the session of this process, which serves every Spark test of a run,
# and for the `sgq` commands the tests start (a size at which Spark's own page size once made
# the property tests fail: sgq/spark_session.py)
os.environ.setdefault("SGQ_SPARK_MEMORY", "4g")


import pytest  # noqa: E402


@pytest.fixture(scope="session")
def spark():
    """The Spark oracle's shared local SparkSession (started once per test session); skips
    when Java or pyspark is missing."""
    from sgq.base.errors import UserError
    from sgq.oracle.session import spark_session, stop_session

    try:
        session = spark_session()
    except UserError as exc:
        pytest.skip(str(exc))
    yield session
    stop_session()


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(config, items):
    """Under pytest-xdist (`-n`, `--dist loadgroup`), every test that touches the shared
    SparkSession runs on one worker, so a test run still starts one local Spark, not one per
    worker; the other tests spread over the rest. A wrapper: the group markers go on before
    xdist's own hook of the same name reads them, and after it the grouping is checked, as
    xdist's grouping fails silently where it cannot mark a test's node id (pytest-xdist issue
    #1386, pytest 9.2).
    Tests that start Spark only in `sgq` subprocesses have their own JVMs anyway and spread
    like the rest."""
    for item in items:
        if "spark" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.xdist_group("spark"))
    result = yield
    if getattr(config.option, "loadgroup", False):
        for item in items:
            # (a parametrized id may hold an `@` of its own: the suffix is checked whole)
            if "spark" in getattr(item, "fixturenames", ()) and not item.nodeid.endswith("@spark"):
                item.stash[_UNGROUPED] = True
    return result


_UNGROUPED = pytest.StashKey[bool]()


def pytest_runtest_setup(item):
    """A Spark test that xdist could not group fails with the reason (a worker's collection
    error would only show as xdist's internal error)."""
    if item.stash.get(_UNGROUPED, False):
        pytest.fail(
            "pytest-xdist did not group the Spark tests on one worker: this pytest and"
            " pytest-xdist do not work together for `--dist loadgroup` (pytest-xdist issue"
            " #1386); install the versions pyproject.toml allows",
            pytrace=False,
        )
