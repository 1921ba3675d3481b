"""tests/library: the Python library (sgq.compile, Query.run / to_pandas / to_arrow) and the
examples/ scripts. Puts tests/cli (cli_support) on sys.path."""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(__file__)), "cli"))
