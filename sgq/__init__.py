"""sgq: streaming graph queries.

q = sgq.compile(path_or_text, window=None, slide=None, options=sgq.PlanOptions())
eng = q.engine(paths=False)
eng.push(src, trg, label, t); eng.close(); eng.drain()
"""

from .api import Engine, Query, Result, compile
from .errors import UserError
from .options import PlanOptions

__version__ = "0.1.0"

__all__ = ["Engine", "PlanOptions", "Query", "Result", "UserError", "compile", "__version__"]
