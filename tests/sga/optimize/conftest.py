"""tests/sga/optimize: the harness generators and the rule tests' judge importable here."""

from __future__ import annotations

import os
import sys

HERE = os.path.dirname(__file__)
sys.path.insert(0, os.path.join(HERE, "..", "rewrite"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "harness"))
