"""PATH by closures: the default physical operator for PATH without witness paths
(runtime.choose_path_operator), with S-PATH's results (operators/path.py) and less work per
edge on dense, slide-aligned streams.

The plumbing around three modes: native deltas from one closure of the window
(operators/closure_deltas.py), interval rows from closures per expiry level
(state/interval_rows.py), or handed over to S-PATH (`spath`, operators/closure_hand_over.py),
which then takes every call. It hands over at the first explicit deletion (`retract`), when
the live levels would exceed `max_levels`, when the letters under a star or plus form chains
(`_chains`), or when the closure turns out sparse against S-PATH's trees (`_sparse`); the
thresholds are `Tuning` (base/options.py). Why: docs/design/path-closure.md.

Cost per round: the mode's (per level and edge not implied O(|anc(a)| + |reach(b)|) bitset
operations, state/level_closure.py), plus O(1) per row or delta.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...base.dfa import closure_automaton
from ..fan_rows import FanRows
from ..state.coalescer import Coalescer
from ..state.interval_rows import IntervalRows
from ..stateful import StateError, restore_into, state_of
from .base import BuildContext, PhysicalOperator, by_instant
from .closure_deltas import ClosureDeltas
from .closure_hand_over import spath_for, window_at
from .path import PathOp, epsilon_pairs, path_automaton

if TYPE_CHECKING:
    from ...sga.algebra import Op

#: the hand-over bookkeeping, saved as it is
_SAVED = ("check_density", "excess", "spent", "overwork_at", "reread", "chain_pending")


class PathClosureOp(PhysicalOperator):
    """PATH over closures (`mode`: interval rows or native deltas); hands over to S-PATH
    (`spath`) when it must."""

    STATE_VERSION = 9  # the mode's state as one part (IntervalRows or ClosureDeltas)

    __slots__ = (
        "dfa",
        "nullable",
        "letters",
        "inputs",
        "domain",
        "mode",
        "spath",
        "sink",
        "key",
        "fans",
        "tuning",
        "sparse_hands_over",
        "chain_inputs",
        "chain_pending",
        "check_density",
        "excess",
        "spent",
        "overwork_at",
        "reread",
    )

    def __init__(self, node: Op, ctx: BuildContext) -> None:
        super().__init__(node)
        self.dfa, self.letters = path_automaton(node)
        # the closures' automaton: the same non-empty words, maybe fewer states (`a+` as `a*`)
        auto = closure_automaton(node.regex)
        self.nullable = nullable = self.dfa.nullable
        self.inputs = [ctx.index_of(inp) for inp in node.inputs]
        # (S-PATH's indexes: the domain only matters for a nullable regex)
        self.domain = ctx.index_of(node.domain) if node.domain is not None and nullable else None
        moves = [list(auto.by_letter.get(letter, ())) for letter in self.letters]
        cyclic = self.dfa.cyclic_letters()  # the input indexes of the letters under a star
        self.chain_inputs = [i for letter, i in zip(self.letters, self.inputs) if letter in cyclic]
        self.tuning = ctx.options.tuning  # the hand-over thresholds (base/options.py)
        # PlanOptions(path_operator="closure") keeps closures however sparse (A/B runs, tests)
        self.sparse_hands_over = ctx.options.path_operator != "closure"
        self.chain_pending = self.sparse_hands_over and bool(self.chain_inputs)
        self.spath: PathOp | None = None
        self.check_density = False  # at the next round: a slide ended
        self.excess = 0.0  # the closure's work beyond S-PATH's, summed over slides
        self.spent = 0.0  # the closure's measured bitset words in this slide
        self.overwork_at = self.tuning.overwork * self.tuning.min_rows * self.tuning.tree_cost
        self.reread = False  # set by every hand-over: the next retract re-reads
        self.key = ctx.output_key(node)
        self.fans = ctx.fan_rows(node)  # rows only the engine's output reads: as fans
        # native deltas, but without ε-pairs to stand for (v, v) (translate always wires them)
        self.sink = None if nullable and self.domain is None else ctx.delta_sink(node)
        self.mode: IntervalRows | ClosureDeltas | None  # None once handed over
        if self.sink is None:
            loops = not node.simple or nullable  # rows may hold (v, v)
            cycles = auto.nullable and not nullable  # (x, x): a cycle's, not an ε-pair's
            self.mode = IntervalRows(auto, moves, loops, self.fans, cycles)
        else:
            own_vertex = nullable or node.simple  # (v, v) is never the closure's result
            self.mode = ClosureDeltas(
                auto, moves, self.sink, self.key, own_vertex, nullable, self.fans
            )

    # ---- a round
    def process(self, batches: list, now: int) -> list:
        if self.spath is not None:
            return self.spath.process(batches, now)
        mode = self.mode
        early = mode.begin(now)  # (rows before the round's: its vertices may be unplain)
        if self.chain_pending:
            chains = self._chains()
            if chains is not None:
                self.chain_pending = False
                if chains:
                    return early + self._hand_over(now) + self.spath.process(batches, now)
        if self.check_density and self.spent >= self.tuning.coarse_work:
            mode.coarsen(self.tuning.level_every)  # (a slide's work beyond `coarse_work`)
        if self.check_density or (self.sparse_hands_over and self.spent > self.overwork_at):
            slide_end, self.check_density = self.check_density, False
            if self._sparse(slide_end):
                return early + self._hand_over(now) + self.spath.process(batches, now)
        nletters = len(self.letters)
        edges = mode.product_edges(batches, now)
        result = mode.new_rows()
        if early:
            result.extend(early)
        if edges:
            if mode.exceeds_levels(edges, self.tuning.max_levels):
                result = result + self._hand_over(now)
            else:
                self.spent += mode.insert(edges, now, result)
        if self.nullable and len(batches) > nletters and batches[nletters]:
            if self.spath is None or self.sink is not None:
                mode.admit_epsilon(batches[nletters], now, result)
            else:  # (handed over in this round: S-PATH's coverage)
                epsilon_pairs(self.spath.out, batches[nletters], now, result, None)
        if self.spath is None:
            mode.end(now, result)
        return result

    def spans(self) -> bool:
        """Native deltas, or rows only the engine's output reads; after a hand-over S-PATH's."""
        if self.spath is not None:
            return self.spath.spans()
        return self.sink is not None or bool(self.fans)

    def process_span(self, batches: list) -> list:
        """A span (runtime `run_span`): instant by instant, as rounds would give them (a
        hand-over within the span replays the indexes as of its instant)."""
        if self.spath is not None:
            return self.spath.process_span(batches)
        result: list | FanRows = []
        for instant, group in by_instant(batches):
            got = self.process(group, instant)
            if not got:
                continue
            if not result:
                result = got
            elif type(result) is FanRows and type(got) is FanRows and not result.rows:
                result.follow_with(got)  # (fans in the instants' order, then rows of none)
            else:
                result = [*result, *got]
        return result

    def defers_rows(self) -> bool:
        """With coarse levels an emitted end is a lower bound, widened by `overdue`."""
        return self.spath is None and self.mode.defers_rows()

    def overdue(self, upto: float, final: bool) -> list:
        """The rows widening the results whose emitted ends are at or before `upto`."""
        if not self.defers_rows():
            return []
        return self.mode.overdue(upto)

    def settle(self, frontier: float) -> None:
        """Time has reached `frontier`: with native deltas, every level before it is over."""
        if self.spath is not None:
            self.spath.settle(frontier)
        else:
            self.mode.settle(frontier)

    def purge(self, now: int) -> None:
        if self.spath is not None:
            self.spath.purge(now)
            return
        self.mode.purge(now)
        self.check_density = True  # once per slide, at the next round

    def size(self) -> int:
        return len(self.mode) if self.spath is None else self.spath.size()

    # ---- the hand-over to S-PATH
    def _sparse(self, slide_end: bool) -> bool:
        """Whether S-PATH should take over (from `min_rows` rows on). At a slide's end: the
        closure's bitset words (`rows x words + pairs`) beyond S-PATH's tree work (`start
        pairs x tree_cost`), summed over slides, exceed one slide of tree work, or this
        slide's are `clearly_sparse` times it. At any round: this slide's inserts spent
        `overwork` times it."""
        spent = self.spent
        if slide_end:
            self.spent = 0.0
        if not self.sparse_hands_over:
            return False
        tuning = self.tuning
        rows, pairs, starts, words = self.mode.density()
        trees = starts * tuning.tree_cost
        # checked again within the slide after as much work again, at the least
        self.overwork_at = max(
            tuning.overwork * max(trees, tuning.min_rows * tuning.tree_cost),
            0.0 if slide_end else 2 * spent,
        )
        if rows < tuning.min_rows:
            return False
        if spent > tuning.overwork * trees:
            return True
        if not slide_end:
            return False
        work = rows * words + pairs
        self.excess = max(0.0, self.excess + work - trees)
        return self.excess > trees or work > tuning.clearly_sparse * trees

    def _chains(self) -> bool | None:
        """Whether the repeated letters form chains (every source has one edge of them in the
        window); None until they hold `chain_edges` edges (`chain_pending` until then)."""
        chains = self.chain_inputs
        if sum(len(index) for index in chains) < self.tuning.chain_edges:
            return None
        return all(len(index) == index.sources() for index in chains)

    def _spath(self, out: Coalescer) -> PathOp:
        """An empty S-PATH operator for this node, emitting through `out`."""
        return spath_for(self.node, self.inputs, self.domain, out, self.sink, self.key, self.fans)

    def _hand_over(self, now: int, native: bool = True) -> list:
        """S-PATH replaying the input indexes at `now` takes over; returns what it emits
        beyond what was emitted. Native deltas go on but at a deletion (not `native`): the
        indexes are cut already, so the live results become rows first."""
        mode = self.mode
        mask = getattr(mode, "mask", None)
        if mask is not None:
            mask.off(now)  # (S-PATH names every pair: so does the closure's side from now)
        if self.sink is not None and not native:
            mode.stop(now)
            self.sink = None
        self.spath = spath = self._spath(mode.handed_over(now))
        window = window_at(self.node, self.inputs, now)
        if self.sink is None:
            rows = spath.replay(window, now, None)
        else:
            rows = spath.replay(window, now, mode.holds)
            mode.leave_missing(spath.results(now), now)
        self.mode = None
        self.reread = True
        return rows

    def retract(self, batches: list, now: int) -> list:
        extra: list = []
        if self.spath is None:
            coarse = self.defers_rows()
            extra = self._hand_over(now, native=False)
            # nothing valid is beyond what was emitted but the lower-bound ends (coarse)
            assert coarse or not extra, extra
        if not self.reread:
            return extra + self.spath.retract(batches, now)
        # (S-PATH may have been built after these end records cut the indexes: re-read all)
        self.reread = False
        out = self.spath.out
        return extra + self.spath.retract(batches, now) + self.spath.reread(out.keys(), now)

    # ---- checkpoints and checks
    def state(self) -> dict:
        """The mode's state, or S-PATH's and what was emitted; the hand-over bookkeeping."""
        return {
            "mode": None if self.mode is None else state_of(self.mode),
            "spath": None if self.spath is None else state_of(self.spath),
            "output": None if self.spath is None else state_of(self.spath.out),
            "native": self.sink is not None,
            **{name: getattr(self, name) for name in _SAVED},
        }

    def restore(self, state: dict) -> None:
        if state["native"] and self.sink is None:
            raise StateError("native deltas saved for a PATH that gives rows in this engine")
        if not state["native"]:
            self.sink = None
        for name in _SAVED:
            setattr(self, name, state[name])
        if state["spath"] is None:
            restore_into(self.mode, state["mode"])
            return
        out = Coalescer()
        restore_into(out, state["output"])
        self.mode = None
        self.spath = self._spath(out)
        restore_into(self.spath, state["spath"])

    def _check(self) -> None:
        if self.spath is not None:
            self.spath._check()
        else:
            self.mode._check(self.inputs)
