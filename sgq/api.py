"""The Python API: `.dl` text -> checked program -> SGA plan -> incremental engine.

This is the bridge between the front end (`sgq.datalog`), the algebra (`sgq.sga`) and the
engine (`sgq.incremental`, which never imports the front end).

    >>> import sgq
    >>> q = sgq.compile(".window 10\\nAnswer(x, y) :- a+(x, y).")
    >>> eng = q.engine()
    >>> eng.push_batch([(1, 2, "a", 0), (2, 3, "a", 1)])
    >>> eng.close()
    >>> sorted((r.src, r.trg, r.ts, r.exp) for r in eng.drain())
    [('1', '2', 0, 10), ('1', '3', 1, 10), ('2', '3', 1, 11)]
"""

from __future__ import annotations

import os

from .datalog.check import check_text
from .datalog.checked import CheckedProgram
from .errors import UserError
from .incremental.engine import Engine, Result
from .options import PlanOptions
from .sga.algebra import Plan
from .sga.translate import translate

__all__ = ["Query", "compile", "Engine", "PlanOptions", "Result"]


class Query:
    """A compiled program: `checked` (the CheckedProgram), `plan` (its SGA plan), `source`,
    and the `options` it was planned with (its engines use their PATH operator)."""

    __slots__ = ("checked", "plan", "source", "options")

    def __init__(
        self, checked: CheckedProgram, plan: Plan, source: str, options: PlanOptions = PlanOptions()
    ) -> None:
        self.checked = checked
        self.plan = plan
        self.source = source
        self.options = options

    def engine(self, paths: bool = False, history: bool = True, deltas: bool = False) -> Engine:
        """A fresh engine for this query. `paths`: results carry a witness path; `history`:
        keep every result interval (merged per key) so `snapshot(τ)` works; `deltas`: the
        results are read as delta events from `engine.delta_view()` only (faster: PATH gives
        them natively; needs `history=False`). Its PATH operators are those
        `self.options.path_operator` chooses."""
        return Engine(self.plan, paths=paths, history=history, deltas=deltas, options=self.options)

    def explain(self) -> str:
        """The plan in `sgq explain` text form."""
        from .sga.explain import explain_text

        return explain_text(self.plan)

    def __repr__(self) -> str:
        return f"Query(outputs={self.checked.outputs!r}, file={self.checked.filename!r})"


def read_program(path: str) -> str:
    """The text of the `.dl` file at `path`; a missing, unreadable or non-UTF-8 file is a
    one-line UserError naming it."""
    if not os.path.exists(path):
        raise UserError(f"program file '{path}' does not exist")
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except UnicodeDecodeError:
        raise UserError(f"program file '{path}' is not UTF-8 text") from None
    except OSError as exc:
        raise UserError(f"cannot read program file '{path}': {exc.strerror or exc}") from None


def compile(
    source: str,
    window: int | None = None,
    slide: int | None = None,
    *,
    filename: str | None = None,
    options: PlanOptions = PlanOptions(),
) -> Query:
    """Parse, check and plan a program.

    `source` is program text if it contains a newline or `:-`, else the path of a `.dl` file.
    `window` / `slide` override `.window` / `.slide`. `options` (sgq/options.py) names the
    rewrite passes to skip and the PATH operator of the query's engines. Raises `DlErrors`
    for a bad program and `UserError` for a file that cannot be read.
    """
    if "\n" in source or ":-" in source:
        text = source
        name = filename or "<string>"
    else:
        text = read_program(source)
        name = filename or source
    checked = check_text(text, name, window=window, slide=slide)
    plan = translate(checked, skip=options.skip_rewrites)
    return Query(checked, plan, text, options)
