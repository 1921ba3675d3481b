"""One SparkSession for every `sgq prepare` test (the oracle's shared local session)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def spark():
    """The shared local session (sgq/oracle/session.py); started once, left for the process
    to end so other suites in the same run can reuse it."""
    from sgq.oracle.session import spark_session

    return spark_session()
