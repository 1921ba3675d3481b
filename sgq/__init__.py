"""sgq: streaming graph queries.

    >>> import sgq
    >>> q = sgq.compile(text=".window 10\\nAnswer(x, y) :- follows+(x, y).")
    >>> [tuple(d) for d in q.run([("a", "b", "follows", 0), ("b", "c", "follows", 1)])][:3]
    [(0, '+', 'a', 'b', 'Answer'), (1, '+', 'a', 'c', 'Answer'), (1, '+', 'b', 'c', 'Answer')]

`sgq.compile(path=...)` or `sgq.compile(text=...)` checks and plans a program (a bad one raises
`sgq.DlErrors`, each error with its line, column and message); `Query.run`, `to_pandas` and
`to_arrow` evaluate it over tuples, tables or files; `Query.engine()` gives the incremental
engine itself (`push`, `advance`, `close`, `drain`, `delta_view`).
"""

import gc as _gc

# Importing sgq makes tens of thousands of containers (classes, functions, attrs' generated
# methods) and no cyclic garbage: the cyclic collector, which would run about fifty times on
# them, is off until the imports are done, then as the importer had it (a measurable part
# of a `sgq run` start; the collector's settings of a run: sgq/collector.py).
_collecting = _gc.isenabled()
_gc.disable()
try:
    from .api import Engine, Query, Result, compile
    from .base.errors import UserError
    from .base.options import PlanOptions, Tuning
    from .base.version import VERSION
    from .datalog.errors import DlError, DlErrors
    from .library import Delta
finally:
    if _collecting:
        _gc.enable()

__version__ = VERSION

__all__ = [
    "Delta",
    "DlError",
    "DlErrors",
    "Engine",
    "PlanOptions",
    "Query",
    "Result",
    "Tuning",
    "UserError",
    "compile",
    "__version__",
]
