"""tests/oracle/ reuses the harness's case generators (tests/harness/case_generators.py)."""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "harness"))
