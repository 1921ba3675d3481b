"""The Python API: `.dl` text -> checked program -> SGA plan -> incremental engine.

This is the bridge between the front end (`sgq.datalog`), the algebra (`sgq.sga`) and the
engine (`sgq.incremental`, which never imports the front end). `Query.run`, `to_pandas` and
`to_arrow` evaluate a query over a whole input in one call (sgq/library.py); `Query.engine`
gives the engine itself, to push edges by hand.

    >>> import sgq
    >>> q = sgq.compile(text=".window 10\\nAnswer(x, y) :- a+(x, y).")
    >>> eng = q.engine()
    >>> eng.push_batch([(1, 2, "a", 0), (2, 3, "a", 1)])
    >>> eng.close()
    >>> sorted((r.src, r.trg, r.ts, r.exp) for r in eng.drain())
    [('1', '2', 0, 10), ('1', '3', 1, 10), ('2', '3', 1, 11)]
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from .base.errors import UserError
from .base.options import PlanOptions
from .datalog.check import check_text
from .datalog.checked import CheckedProgram
from .incremental.engine import Engine, Result
from .sga.algebra import Plan
from .sga.cost.statistics import StreamStatistics
from .sga.optimize.search import Optimized, has_alternatives, optimize
from .sga.translate import translate

if TYPE_CHECKING:
    import pandas
    import pyarrow

    from .library import Delta, EdgeInput

__all__ = ["Query", "compile", "Engine", "PlanOptions", "Result"]


class Query:
    """A compiled program: `checked` (the CheckedProgram), `plan` (its SGA plan), `source`,
    the `options` it was planned with (its engines use their PATH operator), and `optimized`,
    the optimizer's answer when it planned the query (None: no statistics, or it was off)."""

    __slots__ = ("checked", "plan", "source", "options", "optimized")

    def __init__(
        self,
        checked: CheckedProgram,
        plan: Plan,
        source: str,
        options: PlanOptions = PlanOptions(),
        optimized: Optimized | None = None,
    ) -> None:
        self.checked = checked
        self.plan = plan
        self.source = source
        self.options = options
        self.optimized = optimized

    def engine(
        self,
        paths: bool = False,
        history: bool = True,
        deltas: bool = False,
        properties: tuple[str, ...] | None = None,
    ) -> Engine:
        """A fresh engine for this query. `paths`: results carry a witness path; `history`:
        keep every result interval (merged per key) so `snapshot(τ)` works; `deltas`: the
        results are read as delta events from `engine.delta_view()` only (faster: PATH gives
        them natively; needs `history=False`); `properties`: the property names of the
        input it will read (specs/semantics.md §1; `()`: it has none; None: not known, not
        checked), edges then pushed with the dict of their properties. Its PATH operators are those
        `self.options.path_operator` chooses."""
        return Engine(
            self.plan,
            paths=paths,
            history=history,
            deltas=deltas,
            options=self.options,
            properties=properties,
        )

    def run(
        self,
        edges: EdgeInput,
        emit: str = "deltas",
        *,
        paths: bool = False,
        max_lateness: int | None = None,
        properties: tuple[str, ...] | None = None,
    ) -> Iterator[Delta | Result]:
        """The query's result changes over `edges`, each yielded as soon as it is final.

        `edges`: an iterable of tuples `(src, trg, label, ts[, op])` in time order, a pandas
        DataFrame or pyarrow Table with those columns, or the path of an edge file or of a
        directory written by `sgq prepare`. `emit="deltas"` yields `Delta(time, op, src, trg,
        label)` events (op `+` or `-`); `emit="intervals"` yields `Result` rows valid on
        `[ts, exp)` (specs/semantics.md §5); `paths` adds witness paths to them.
        An edge may carry properties (specs/semantics.md §1): a file's columns or fields
        after sgq's own, a table's other columns, or a sixth value of a tuple, the dict of
        its properties (`properties` names them all; by default the first edge's keys).
        `max_lateness` reorders edges up to that many time units late. The input's end is the
        stream's end: every result's expiry comes last. A generator: an endless iterable is
        followed for as long as it yields.

            >>> import sgq
            >>> q = sgq.compile(text=".window 10\\nAnswer(x, y) :- a+(x, y).")
            >>> list(q.run([("1", "2", "a", 0), ("2", "3", "a", 1)]))[:3]
            [Delta(time=0, op='+', src='1', trg='2', label='Answer'), Delta(time=1, op='+', src='1', trg='3', label='Answer'), Delta(time=1, op='+', src='2', trg='3', label='Answer')]
        """
        from .library import run_query

        return run_query(
            self, edges, emit, paths=paths, max_lateness=max_lateness, properties=properties
        )

    def to_pandas(self, edges: EdgeInput, emit: str = "deltas", **options: Any) -> pandas.DataFrame:
        """`run` over a finished input, as a pandas DataFrame (columns time, op, src, trg,
        label; or src, trg, label, ts, exp for intervals). Needs pandas installed.

            >>> import sgq
            >>> q = sgq.compile(text=".window 10\\nAnswer(x, y) :- a+(x, y).")
            >>> q.to_pandas([("1", "2", "a", 0)]).values.tolist()
            [[0, '+', '1', '2', 'Answer'], [10, '-', '1', '2', 'Answer']]
        """
        from .library import to_pandas

        return to_pandas(self, edges, emit, **options)

    def to_arrow(self, edges: EdgeInput, emit: str = "deltas", **options: Any) -> pyarrow.Table:
        """`run` over a finished input, as a pyarrow Table (the columns of `to_pandas`).

        >>> import sgq
        >>> q = sgq.compile(text=".window 10\\nAnswer(x, y) :- a+(x, y).")
        >>> q.to_arrow([("1", "2", "a", 0)], emit="intervals").to_pylist()
        [{'src': '1', 'trg': '2', 'label': 'Answer', 'ts': 0, 'exp': 10}]
        """
        from .library import to_arrow

        return to_arrow(self, edges, emit, **options)

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
    source: str | None = None,
    window: int | None = None,
    slide: int | None = None,
    *,
    path: str | os.PathLike | None = None,
    text: str | None = None,
    filename: str | None = None,
    options: PlanOptions = PlanOptions(),
    statistics: StreamStatistics | Callable[[], StreamStatistics | None] | None = None,
) -> Query:
    """Parse, check and plan a program: the `.dl` file at `path`, or the program `text`.

    `window` / `slide` override `.window` / `.slide`. `options` (base/options.py) names the
    rewrite passes to skip and the PATH operator of the query's engines; with
    `options.optimize`, the plan is the optimizer's choice over `statistics`
    (`sgq.sga.cost.statistics.collect(edges)` of a sample of the stream, or a function giving
    them, called only when the rules give the plan an alternative; without them, today's
    plan: the canonical plan after the rewrite passes); `filename` names
    the program in messages. Raises `sgq.DlErrors` for a bad program (each error with its
    `line`, `column` and `message`) and `UserError` for a file that cannot be read.

        >>> import sgq
        >>> q = sgq.compile(text=".window 24h\\nAnswer(x, y) :- follows+(x, y).")
        >>> q.checked.outputs
        ('Answer',)
        >>> try:
        ...     sgq.compile(text=".window 24h\\nAnswer(x, y) :- follows(x, z).")
        ... except sgq.DlErrors as err:
        ...     [(e.line, e.column, e.message) for e in err.errors]
        [(2, 11, "head variable 'y' does not appear in any body atom")]

    The older positional form `compile(source)` still works: `source` is read as program
    text if it holds a newline or `:-`, else as a path.
    """
    given = [x for x in (source, path, text) if x is not None]
    if len(given) != 1:
        raise UserError("sgq.compile takes one program: path=FILE or text=PROGRAM")
    if source is not None:  # the positional form
        if "\n" in source or ":-" in source:
            text = source
        else:
            path = source
    if path is not None:
        path = os.fspath(path)
        text = read_program(path)
        name = filename or path
    else:
        name = filename or "<string>"
    checked = check_text(text, name, window=window, slide=slide)
    plan = translate(checked, skip=options.skip_rewrites, enable=options.rewrites)
    optimized = None
    if options.optimize and callable(statistics):  # read only if there is a choice to make
        statistics = statistics() if has_alternatives(plan) else None
    if options.optimize and statistics is not None:
        optimized = optimize(plan, statistics)
        plan = optimized.chosen.plan
    return Query(checked, plan, text, options, optimized)
