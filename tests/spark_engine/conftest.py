"""tests/spark_engine/: the Spark engine against the single-process engine; the helpers in
spark_engine_support.py."""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
