"""The re-evaluation baseline as a process of its own, the one `sgq bench` times whole:

    python benchmarks/reeval_process.py STREAM QUERY.dl [--window N] [--slide N] [--deltas FILE]

(reeval_run.main: it prints one JSON line of figures). It is run by its path, not with
`-m`, and enters the `sgq` package without running `sgq/__init__.py`, which imports the
engine and the library API: this program uses the front end and its own modules only, and
its start is what a plain Python program's is, plus those imports.
"""

import importlib.util
import sys
import types


def _enter_bare(name: str) -> None:
    """Make `name`'s subpackages importable without executing its `__init__`."""
    spec = importlib.util.find_spec(name)
    if spec is None or spec.submodule_search_locations is None:
        raise SystemExit(f"reeval: the {name} package is not installed")
    module = types.ModuleType(name)
    module.__path__ = list(spec.submodule_search_locations)
    module.__spec__ = spec
    module.__file__ = spec.origin
    sys.modules[name] = module


if __name__ == "__main__":
    _enter_bare("sgq")
    from sgq.benchmarks.reeval_run import main

    sys.exit(main())
