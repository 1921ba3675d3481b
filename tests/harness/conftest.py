"""tests/harness/ support modules (case_generators, ...) importable by the tests here."""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
