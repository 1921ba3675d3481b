"""tests/sga/rewrite: the harness's generators (tests/harness/) importable by the rule tests."""

from __future__ import annotations

import os
import sys

HERE = os.path.dirname(__file__)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "harness"))
