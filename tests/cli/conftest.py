"""tests/cli: `sgq run` end to end. Puts this folder on sys.path for cli_support."""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
