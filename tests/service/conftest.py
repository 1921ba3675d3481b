"""tests/service: `sgq run --follow`, `--idle-flush` and the metrics, end to end. Puts this
folder and tests/cli (cli_support) on sys.path."""

from __future__ import annotations

import os
import sys

HERE = os.path.dirname(__file__)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "cli"))
