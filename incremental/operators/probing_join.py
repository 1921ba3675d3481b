"""Deletions in a tuple-by-tuple join (PATTERN, timed PATTERN; specs/semantics.md §5): what
both do with end records, written once.

An end record of `(s, t)` on input i is joined like a new tuple, through the same hash indexes,
but only to collect the head keys built on it (entries cut at `now` in this very round still
join: the probe admits entries with `exp >= now`). Each such key is then re-derived with both
head variables bound, which yields its longest-lived remaining derivation, and its coverage is
cut to that (to `now` when nothing derives it any more). Cost per end record: O(combinations
through it + re-derivations of the keys it touched).
"""

from __future__ import annotations

from typing import NamedTuple

from ..sgt import FOREVER, NEVER
from .base import CoalescedOperator
from .join_plan import Condition, conditions_hold, index_fanout


class Slots(NamedTuple):
    """A PATTERN node's variables numbered in order of first appearance: `slot[name]`, how
    many (`nvars`), the head's slots, each input's `(src, trg)` slots, its conditions."""

    slot: dict
    nvars: int
    head: tuple
    bindings: list
    conditions: list


def number_variables(node) -> Slots:
    """The `Slots` of the PATTERN `node` (sga/algebra.py)."""
    slot: dict[str, int] = {}
    for s, t in node.bindings:
        slot.setdefault(s, len(slot))
        slot.setdefault(t, len(slot))
    head_src, head_trg = node.head
    conditions = [
        Condition(slot[c.left], c.op == "=", None, str(c.right))
        if c.right_const
        else Condition(slot[c.left], c.op == "=", slot[c.right], None)
        for c in node.conditions
    ]
    conditions += [
        Condition(slot[c.left], None, slot[c.right], (c.op, c.offset, c.numbers))
        for c in node.property_conditions
    ]
    bindings = [(slot[s], slot[t]) for s, t in node.bindings]
    return Slots(slot, len(slot), (slot[head_src], slot[head_trg]), bindings, conditions)


class ProbingJoin(CoalescedOperator):
    """A join whose subclass has `probe` (a callback the walk ends in, or None), `paths`,
    `head` and `nvars` (variable slots), `head_plan` (the join plan from both head variables),
    and the two walks: `_start(i, s, t, ts, exp, wit, now, result)` from one tuple of input i,
    `_from_head(steps, vals, wits, now)` from bound head variables; its output is coalesced by
    `out`, or goes out as native deltas (`native`, operators/native_keys.py) until the first
    end record."""

    __slots__ = ("indexes", "paths", "probe", "nvars", "head", "bindings", "conditions", "fanout")

    def __init__(self, node, ctx) -> None:
        super().__init__(node)
        self.indexes = [ctx.index_of(inp) for inp in node.inputs]
        self.paths = ctx.paths
        self.probe = None  # set while a retract collects keys or re-derives one
        # an output read by no operator: head keys enter and leave the DeltaView directly
        self._native_output(node, ctx)
        slots = number_variables(node)
        self.nvars, self.head, self.bindings = slots.nvars, slots.head, slots.bindings
        self.conditions = slots.conditions
        self.fanout = None  # the index statistics the join plans (`_plan`) were made for

    def _replan(self) -> None:
        """Once per slide: re-order the joins for the current fan-out of each input's index
        (entries per src and per trg, in steps of a factor sqrt(2)). A person has many
        messages but a message few replies, which no count of bound variables can tell."""
        if len(self.bindings) < 3:
            return  # two inputs: one order
        fanout = index_fanout(self.indexes)
        if fanout != self.fanout:
            self.fanout = fanout
            self._plan(fanout)

    def _bind_tuple(self, i: int, s, t) -> list | None:
        """The variable slots tuple `(s, t)` of input i binds (its plan `plans[i]`), or None
        when the tuple fails its own conditions (a loop atom, a constant)."""
        (s_slot, t_slot, conds), _steps = self.plans[i]
        if s_slot == t_slot and s != t:
            return None
        vals = [None] * self.nvars
        vals[s_slot] = s
        vals[t_slot] = t
        if conds and not conditions_hold(conds, vals):
            return None
        return vals

    def _complete(self, vals, ts, exp, wits, now, result) -> None:
        """A whole match valid on `[ts, exp)`: to the `probe`, else admitted to the output."""
        h0, h1 = self.head
        src, trg = vals[h0], vals[h1]
        if self.probe is not None:
            self.probe(src, trg, exp, wits)
            return
        if self.native is not None:
            self.native.admit((((src, trg), (ts, exp)),), now)
            return
        got = self.out.admit((src, trg), ts, exp, now)
        if got is not None:
            wit = tuple(e for w in wits if w for e in w) if wits is not None else None
            g_ts, g_exp = got
            result.append((src, trg, g_ts, g_exp, wit))

    def _retract_by_probing(self, batches: list, now: int) -> list:
        """The end records of this join for the end records `batches` of its inputs."""
        self._stop_native(now)
        touched: dict = {}

        def collect(src, trg, _exp, _wits):
            touched[(src, trg)] = None

        self.probe = collect
        try:
            for i, batch in enumerate(batches):
                if batch:
                    for s, t, _ts, _exp, _wit in batch:
                        # `now - 1`: entries cut at `now` in this round still join
                        self._start(i, s, t, NEVER, FOREVER, None, now - 1, None)
            result: list = []
            cut = self.out.cut
            for key in touched:
                exp, wit = self._rederive(key, now)
                got = cut(key, exp, now, self.paths)
                if got is not None:
                    src, trg = key
                    g_ts, g_end = got
                    result.append((src, trg, g_ts, g_end, wit))
            return result
        finally:
            self.probe = None

    # ---- state: the output's coverage and the index statistics the join plans were made for
    # (subclasses have `_plan(fanout)`)
    def purge(self, now: int) -> None:
        super().purge(now)
        self._replan()

    def state(self) -> dict:
        return {**super().state(), "fanout": self.fanout}

    def restore(self, state: dict) -> None:
        super().restore(state)
        fanout = state["fanout"]
        fanout = None if fanout is None else [tuple(f) for f in fanout]
        if fanout != self.fanout:
            self.fanout = fanout
            self._plan(fanout)

    def _stop_native(self, now: int) -> None:
        """Before the first end record: native head keys become ordinary output keys."""
        if self.native is not None:
            self.native.stop(now)
            self.native = None

    def _rederive(self, key, now) -> tuple:
        """`(exp, witness)` of the longest-lived derivation of head `key` (exp `now`: none)."""
        h0, h1 = self.head
        src, trg = key
        if h0 == h1 and src != trg:
            return now, None
        vals = [None] * self.nvars
        vals[h0], vals[h1] = src, trg
        conds, steps = self.head_plan
        if conds and not conditions_hold(conds, vals):
            return now, None
        best = {"exp": now, "wit": None}
        paths = self.paths

        def keep(_src, _trg, exp, wits):
            if exp > best["exp"]:
                best["exp"] = exp
                best["wit"] = tuple(e for w in wits if w for e in w) if paths else None

        self.probe = keep
        self._from_head(steps, vals, [None] * len(self.indexes) if paths else None, now)
        return best["exp"], best["wit"]
