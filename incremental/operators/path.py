"""PATH by S-PATH: regular path queries over interval-annotated streams (thesis Def 34, 5.4
and Appendix A, with the erratum fixed: ExpandableTrees takes trees whose `(u, s)` is still
valid).

The regex becomes a minimal DFA (base/dfa.py). The Δ-PATH index (state/delta_path.py)
keeps one spanning tree per root vertex; per `(root, vertex, state)` the path that expires
last, and runs Expand / Propagate for every new sgt. This operator routes the input ports
to it and coalesces what it reaches: a final-state node yields `(root, v)` on the node's
interval, re-emitted only when its coverage widens (a Coalescer).

Intervals: a path is valid on the intersection of its edges' intervals; a node keeps the max
exp over paths (and the min ts while it stays valid), so expiry needs no re-derivation for
append-only input: when a node expires no other path to it remains. Inputs may be derived
streams (PATTERN output) with arbitrary intervals: only `ts <= now < exp` is assumed. ε-pairs
of a nullable regex come from the `domain` port (VERTICES). Cost per new sgt: O(trees holding
(u, s) × nodes improved × their out-degree).

Deletions (`retract`, thesis 4.3.2 Algorithm Delete with S-PATH's max-expiry coalescing): an end
record of `(u, v)` with letter l matters only where it is a *tree edge* (Def 24); deleting a
non-tree edge only changes the window graph (the shared index). The Δ-PATH index invalidates
the subtrees below the tree edges and reconnects each node through its best valid derivation
(`DeltaPath.reconnect`). Each final-state node that changed re-reads its output key `(x, v)`:
the best final node, or the ε-pair from the domain index; an end record follows when that
ends earlier than emitted.
Cost per end record: O(trees holding (v, q)) plus O(invalidated nodes × their in- and
out-degree × log) in the trees where it is a tree edge.

Native deltas (a delta-mode engine whose output is this PATH, or a RENAME of it read by
nothing else; also after a hand-over from the closure PATH): no Coalescer and no rows. A
result `(x, v)` enters when a round gives `T_x` a final-state node of `v` where none held it
before (a node whose exp only grows says nothing: the result goes on); it leaves at the exp of
its last final-state node, when that node is purged (at a slide's purge, or when the frontier
passes it: `settle`, so every '-' is timely). Since the trees keep each node's largest exp
(max-min over its paths), that is exactly when the last derivation expires. The first
explicit deletion turns the live results into ordinary keys (`_stop_native`) and rows take
over, as for the closure PATH. The ε-pairs of a nullable regex, and with them `(v, v)`, are
native keys too (`native_epsilon`): `(v, v)` enters when the domain first holds v and leaves
when v's coverage there ends, as PATTERN's native keys do (operators/native_keys.py). So a
nullable PATH takes spans like any other.
"""

from __future__ import annotations

from itertools import repeat
from typing import TYPE_CHECKING

from ...base.dfa import compile_regex
from ...sga.algebra import regex_labels
from ..sgt import FOREVER, NEVER
from ..state.coalescer import Coalescer
from ..state.delta_path import DeltaPath
from ..stateful import StateError, restore_into, state_of
from .base import BuildContext, PhysicalOperator, by_instant
from .native_keys import NativeKeys, adopt_as_rows

if TYPE_CHECKING:
    from ...sga.algebra import Op


class PathOp(PhysicalOperator):
    """PATH by S-PATH. `out` may be given: the Coalescer of what was emitted so far (a
    hand-over from operators/path_closure.py)."""

    __slots__ = (
        "dfa",
        "letters",
        "delta_path",
        "out",
        "owns_out",
        "paths",
        "domain",
        "sink",
        "output_only",
        "label",
        "reverse",
        "own_vertex",
        "loops",
        "several_finals",
        "epsilon",
    )

    STATE_VERSION = 2  # the trees, the output's coverage; with native deltas, native keys

    def __init__(self, node: Op, ctx: BuildContext, out: Coalescer | None = None) -> None:
        super().__init__(node)
        self.dfa, self.letters = path_automaton(node)
        window = {letter: ctx.index_of(inp) for letter, inp in zip(self.letters, node.inputs)}
        self.delta_path = DeltaPath(self.dfa, window, node.simple)
        self.owns_out = out is None  # else the Coalescer of the operator handing over
        self.out = Coalescer() if out is None else out
        self.paths = ctx.paths
        nullable_domain = node.domain is not None and self.dfa.nullable
        self.domain = ctx.index_of(node.domain) if nullable_domain else None
        # native deltas (see the module docstring): results, and ε-pairs, enter and leave
        # the engine's DeltaView directly
        self.sink = ctx.delta_sink(node)
        #: its rows reach the engine's output only (no operator reads them): they may come
        #: out of a span in time order (`spans`)
        self.output_only = ctx.fan_rows(node)
        self.label, self.reverse = ctx.output_key(node)
        # (v, v) is no result of a walk: an ε-pair's (nullable), or none at all (a simple
        # PATH relaxed to arbitrary paths, sga/rewrite/relax_simple_paths.py: no walk back to
        # its root is a simple path)
        self.own_vertex = self.dfa.nullable or node.simple
        self.loops = not node.simple or self.dfa.nullable  # rows may hold (v, v)
        if self.dfa.nullable and self.domain is None:
            self.sink = None
        self.several_finals = len(self.dfa.finals) > 1
        self.epsilon = native_epsilon(self)

    def process(self, batches: list, now: int) -> list:
        return self._insert(batches, now)

    def spans(self) -> bool:
        """Native deltas: results (and ε-pairs) enter at their sgt's own instant. Rows read
        by the engine's output only: each is admitted at its sgt's own instant, in time
        order. Rows another operator reads go per instant: a widening row starts at its
        key's coalesced start, before the instant it is emitted at, and a reader taking it
        as an sgt of that earlier instant would relax it without the edges that came since."""
        return self.sink is not None or self.output_only

    def process_span(self, batches: list) -> list:
        """The sgts of a span (runtime `run_span`: instants with no expiry between them),
        inserted in time order, each at its own instant, as `_insert` would instant by
        instant (`by_instant`; what this loop does, without a group per instant). The
        shared indexes already hold the whole span; `DeltaPath` skips an index edge that starts after the instant it is
        relaxing at, so each instant sees its own window graph, with the one difference that
        an edge renewed later in the span shows its later exp early, which only saves the
        re-propagation that renewal would do. So a result enters at the first instant a path
        reaches it, as per-instant rounds give it (thesis Appendix A, Expand / Propagate in
        arrival order)."""
        nletters = len(self.letters)
        if len(batches) > nletters and batches[nletters]:  # ε-pairs too: instant by instant
            insert = self._insert
            rows: list = []
            for instant, group in by_instant(batches):
                rows += insert(group, instant)
            return rows
        by_letter, letters = self.dfa.by_letter, self.letters
        ports = [
            (batch, moves)
            for port, batch in enumerate(batches[:nletters])
            if batch and (moves := by_letter.get(letters[port]))
        ]
        if len(ports) == 1:
            ((batch, moves),) = ports
            offers = zip(batch, repeat(moves))
        else:  # in time order, an instant's ports in port order (as `by_instant` gives them):
            # a stable sort by instant of the ports one after the other (each port's run in
            # time order already: the sort merges them)
            offers = [offer for batch, moves in ports for offer in zip(batch, repeat(moves))]
            offers.sort(key=_instant_of_offer)
        if self.sink is None:
            return self._span_rows(offers)
        insert, enter = self.delta_path.insert, self._enter
        entered: list = []  # [(instant, results entering then)]
        entering: list = []
        reached: list = []
        current = None
        for (u, v, ts, exp, wit), moves in offers:
            if ts != current:  # a new instant: the results of the last one enter at it
                if entering:
                    entered.append((current, entering))
                    entering = []
                current = ts
            if exp <= ts:
                continue
            insert(u, v, moves, ts, exp, wit, ts, reached)
            if reached:
                enter(reached, ts, None, entering)
                reached.clear()
        if entering:
            entered.append((current, entering))
        if entered:
            self.sink.enter_instants(entered)
        return []

    def _span_rows(self, offers) -> list:
        """`process_span` giving rows: each offer inserted at its own instant, the rows of
        what it widens admitted then, all in time order."""
        insert, rows = self.delta_path.insert, self._rows
        result: list = []
        reached: list = []
        for (u, v, ts, exp, wit), moves in offers:
            if exp <= ts:
                continue
            insert(u, v, moves, ts, exp, wit, ts, reached)
            if reached:
                rows(reached, ts, result)
                reached.clear()
        return result

    def _insert(self, batches: list, now: int, announced=None) -> list:
        """Insert the sgts of every port; what each one makes reachable becomes rows, or with
        native deltas (`sink`) the results that enter now. `announced(x, y)`, when given,
        tells the results that entered already (a hand-over from the closure PATH replays a
        window whose results it entered)."""
        result: list = []
        entering: list = []
        state = self.delta_path
        nletters = len(self.letters)
        native = self.sink is not None
        reached: list = []
        for port, batch in enumerate(batches):
            if not batch:
                continue
            if port == nletters:
                self._epsilon(batch, now, result)
                continue
            moves = self.dfa.by_letter.get(self.letters[port])
            if not moves:
                continue
            insert = state.insert
            for u, v, ts, exp, wit in batch:
                if exp <= now:
                    continue
                insert(u, v, moves, ts, exp, wit, now, reached)
                if not reached:
                    continue
                if native:
                    self._enter(reached, now, announced, entering)
                else:
                    self._rows(reached, now, result)
                reached.clear()
        if entering:
            self.sink.enter(now, entering)
        return result

    def _rows(self, reached: list, now: int, result: list) -> None:
        """Rows for the final-state nodes `reached`, where they widen the output's coverage."""
        admit, paths, state, loops = self.out.admit, self.paths, self.delta_path, self.loops
        for x, y, key, n_ts, n_exp, _before in reached:
            if x == y and not loops:
                continue
            got = admit((x, y), n_ts, n_exp, now)
            if got is not None:
                g_ts, g_exp = got
                result.append((x, y, g_ts, g_exp, state.path_to(x, key) if paths else None))

    def _enter(self, reached: list, now: int, announced, entering: list) -> None:
        """Native deltas: the output keys of the results `reached` makes enter (not an
        ε-pair's key, not one `announced`)."""
        own, label, reverse = self.own_vertex, self.label, self.reverse
        if self.several_finals:
            for x, y in self._entered(reached, now):
                if (own and x == y) or (announced is not None and announced(x, y)):
                    continue
                entering.append((y, x, label) if reverse else (x, y, label))
            return
        # one final node per key: the key is its node. A node reached again within this
        # insert comes with the exp its first reach gave it (`before >= now`): skipped.
        for x, y, _key, _ts, _exp, before in reached:
            if before is not None:
                if before >= now:
                    continue  # it held already
                if before > NEVER:  # expired before now, not yet purged: ends then
                    self._leave({(x, y): before})
            if (own and x == y) or (announced is not None and announced(x, y)):
                continue
            entering.append((y, x, label) if reverse else (x, y, label))

    def _entered(self, reached: list, now: int) -> list:
        """The results `(x, y)` that the final-state nodes of `reached` (one sgt's inserts)
        make valid where they were not, with several final states: none of the key's final
        nodes held it before (a reached node: its exp before, if any, was below `now`; a node
        re-derived at the instant it expired holds it without a break; another node: its
        exp)."""
        changed: dict = {}  # (x, y) -> [held before, reached states, latest end before now]
        seen = set()
        for x, y, key, _ts, _exp, before in reached:
            if (x, key) in seen:
                continue  # reached again within this insert: its first `before` is the old exp
            seen.add((x, key))
            _v, q = key
            held = before is not None and before >= now
            got = changed.get((x, y))
            if got is None:
                changed[(x, y)] = [held, {q}, before]
            else:
                held_before, states, ended = got
                states.add(q)
                latest = NEVER if ended is None else ended
                if before is not None and before > latest:
                    latest = before
                changed[(x, y)] = [held_before or held, states, latest]
        out = []
        other_finals_until = self.delta_path.other_finals_until
        for (x, y), (held, states, ended) in changed.items():
            if held or other_finals_until(x, y, states) >= now:
                continue
            if ended is not None and ended > NEVER:  # expired before now, not yet purged
                self._leave({(x, y): ended})
            out.append((x, y))
        return out

    def _leave(self, ended: dict) -> None:
        """Results `{(root, v): exp}` leave the output at their exp, as fans per source (what
        a slide's purge ends shares few sources: the view sorts each source's targets, not
        the keys)."""
        by_exp: dict = {}  # exp -> {src: [trg, ...]}
        reverse, own = self.reverse, self.own_vertex
        for (x, y), exp in ended.items():
            if own and x == y:
                continue
            if reverse:
                x, y = y, x
            fans = by_exp.get(exp)
            if fans is None:
                by_exp[exp] = {x: [y]}
                continue
            trgs = fans.get(x)
            if trgs is None:
                fans[x] = [y]
            else:
                trgs.append(y)
        leave_fans, label = self.sink.leave_fans, self.label
        for exp, fans in by_exp.items():
            leave_fans(exp, label, fans)

    def _purged(self, ended: dict) -> None:
        """The results a purge ended (`DeltaPath.purge`'s `ended`) leave the output: with one
        final state they come as fans per exp and root, handed to the view as they are."""
        if self.several_finals:
            self._leave(ended)
        elif self.reverse or self.own_vertex:  # (per target, or without (v, v): regrouped)
            self._leave(
                {(x, y): exp for exp, fans in ended.items() for x, ys in fans.items() for y in ys}
            )
        else:
            leave_fans, label = self.sink.leave_fans, self.label
            for exp, fans in ended.items():
                leave_fans(exp, label, fans)

    def replay(self, batches: list, now: int, announced) -> list:
        """Take a window's valid contents at `now` (a hand-over): rows come out only where
        they widen what was emitted, and native deltas only for results that `announced(x,
        y)` says did not enter yet."""
        return self._insert(batches, now, announced if self.sink is not None else None)

    def results(self, now: int) -> set:
        """Every result `(x, y)` valid after `now` (without ε-pairs' `(x, x)` when the
        regex is nullable)."""
        own = self.own_vertex
        return {(x, y) for x, y in self.delta_path.results_until(now) if not (own and x == y)}

    def settle(self, frontier: float) -> None:
        """With native deltas: every result ending before `frontier` leaves now (its '-' is
        final: nothing before `frontier` can come)."""
        if self.epsilon is not None:
            self.epsilon.settle(frontier)
        if self.sink is not None:
            upto = frontier - 1 if frontier < FOREVER else FOREVER
            if self.delta_path.expires_by(upto):
                ended: dict = {}
                self.delta_path.purge(upto, ended)
                self._purged(ended)

    def _stop_native(self, now: int) -> None:
        """Before an explicit deletion: every live result becomes an ordinary output key (in
        `out` and in the sink's open segments) so that rows cut it from now on; as the closure
        PATH does, its true start is not kept (NEVER in both). The ε-pairs' keys first."""
        if self.epsilon is not None:
            self.epsilon.stop(now)
            self.epsilon = None
        ended: dict = {}
        self.delta_path.purge(now, ended)
        self._purged(ended)
        results = self.delta_path.results_until(now)
        if self.own_vertex:
            results = {(x, y): until for (x, y), until in results.items() if x != y}
        adopt_as_rows(self.out, self.sink, results, self.label, self.reverse)
        self.sink = None

    def _epsilon(self, batch, now, result) -> None:
        if self.epsilon is not None:
            enter_epsilon(self.epsilon, batch, now)
        elif self.dfa.nullable:
            epsilon_pairs(self.out, batch, now, result, () if self.paths else None)

    def retract(self, batches: list, now: int) -> list:
        if self.sink is not None:
            self._stop_native(now)
        state = self.delta_path
        nletters = len(self.letters)
        below: dict = {}  # root -> [child nodes of deleted tree edges]
        keys: dict = {}  # output keys to re-read
        for port, batch in enumerate(batches):
            if not batch:
                continue
            if port == nletters:
                for v, _v, _ts, _exp, _wit in batch:
                    keys[(v, v)] = None
                continue
            moves = self.dfa.by_letter.get(self.letters[port], ())
            for u, v, _ts, exp, _wit in batch:
                state.below_tree_edges(u, v, moves, exp, now, self.paths, below)
        finals = self.dfa.finals
        for x, starts in below.items():
            for v, q in state.reconnect(x, starts, now):
                if q in finals:
                    keys[(x, v)] = None
        return self.reread(keys, now)

    def reread(self, keys, now) -> list:
        """End records for the output keys `(x, v)` whose best derivation now ends earlier
        than emitted: the best final node of `v` in `T_x`, or the ε-pair of the domain."""
        state, paths, domain = self.delta_path, self.paths, self.domain
        cut = self.out.cut
        result = []
        for key in keys:
            x, v = key
            best, wit = now, None
            if domain is not None and x == v:
                entry = domain.get(v, v)
                if entry is not None and entry.exp > best:
                    best, wit = entry.exp, ()
            final = state.best_final(x, v, best, paths)
            if final is not None:
                best, wit = final
            got = cut(key, best, now, paths)
            if got is not None:
                g_ts, g_end = got
                result.append((x, v, g_ts, g_end, wit if paths else None))
        return result

    def purge(self, now: int) -> None:
        if self.sink is not None:
            ended: dict = {}
            self.delta_path.purge(now, ended)
            self._purged(ended)
        else:
            self.delta_path.purge(now)
        if self.epsilon is not None:
            self.epsilon.settle(now)  # an ε-pair ending at `now` may still go on this round
        else:
            self.out.purge(now)

    def size(self) -> int:
        return len(self.delta_path) + len(self.out)

    def state(self) -> dict:
        """The Δ-PATH trees, and the output's coverage when this operator owns it."""
        saved = {"trees": state_of(self.delta_path), "native": self.sink is not None}
        if self.owns_out:
            saved["output"] = state_of(self.out)
        return saved

    def restore(self, state: dict) -> None:
        restore_into(self.delta_path, state["trees"])
        if self.owns_out:
            restore_into(self.out, state["output"])
        if state["native"] and self.sink is None:
            raise StateError("native deltas saved for a PATH that gives rows in this engine")
        if not state["native"]:
            self.sink = None
            self.epsilon = None

    def _check(self) -> None:
        assert self.epsilon is None or self.epsilon.out is self.out, "ε-pairs in another out"
        self.delta_path._check()
        self.out._check()


def path_automaton(node) -> tuple:
    """`(minimal DFA, letters)` of a PATH node; its inputs come one per letter, in order."""
    letters = regex_labels(node.regex)
    if len(letters) != len(node.inputs):
        raise ValueError(f"PATH {node.label}: {len(node.inputs)} inputs for letters {letters}")
    return compile_regex(node.regex), letters


def native_epsilon(op) -> NativeKeys | None:
    """The ε-pairs of a nullable PATH `op` giving native deltas (`op.sink`), as native keys
    of its Coalescer `op.out` (only they are in it then), or None."""
    if op.sink is None or not op.dfa.nullable:
        return None
    return NativeKeys(op.out, op.sink, op.label, op.reverse, few=True)


def enter_epsilon(epsilon: NativeKeys, batch, now) -> None:
    """The domain's `(v, v)` sgts as native ε-pairs: a key enters at its sgt's start when v
    had no coverage reaching `now`. First every key whose coverage ended before `now` leaves
    at its end, as it would have at the frontier's move before a round at `now`: within a span
    (one call per instant, no settle between them) a key ending at the span's first instant
    and not continued there must leave before a later instant of the span enters it again."""
    epsilon.settle(now)
    epsilon.admit((((v, v), (ts, exp)) for v, _v, ts, exp, _wit in batch), now)


def epsilon_pairs(out, batch, now, result, wit) -> None:
    """(v, v) for every vertex `v` of the active domain (the VERTICES port of a PATH whose
    regex is nullable: ε ∈ L(R), specs/semantics.md), through the Coalescer `out`."""
    admit = out.admit
    for v, _v, ts, exp, _wit in batch:
        got = admit((v, v), ts, exp, now)
        if got is not None:
            g_ts, g_exp = got
            result.append((v, v, g_ts, g_exp, wit))


def _instant_of_offer(offer: tuple) -> int:
    """The instant of an offer `(sgt, moves)`: its sgt's ts."""
    (_u, _v, ts, _exp, _wit), _moves = offer
    return ts
