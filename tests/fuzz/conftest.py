"""tests/fuzz/ on sys.path, so its support module `dl_programs` is importable."""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
