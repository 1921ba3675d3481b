"""Subprocess entry of one measurement: reads a JSON request on stdin, prints a JSON result.

Run by `suite.run_child` so each measurement starts from a fresh interpreter and its peak RSS
is its own.
"""

from __future__ import annotations

import json
import sys

from sgq.collector import tune_for_long_run

from .measure import SYSTEMS
from .workloads import Workload


def main() -> None:
    tune_for_long_run()  # as `sgq run` does, for every system measured (the same process rules)
    request = json.loads(sys.stdin.read())
    workload = Workload(**request["workload"])
    result = SYSTEMS[request["system"]](
        workload, request["stream"], request["query"], **request.get("kw", {})
    )
    print(json.dumps(result))


if __name__ == "__main__":
    main()
