"""`python -m sgq ...`: the `sgq` command (sgq/cli.py), for environments without the script."""

import sys

from .cli import main

sys.exit(main())
