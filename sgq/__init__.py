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

from .api import Engine, Query, Result, compile
from .datalog.errors import DlError, DlErrors
from .errors import UserError
from .library import Delta
from .options import PlanOptions, Tuning

__version__ = "0.1.0"

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
