"""The harness must fail on a broken engine: deliberately broken operators (monkeypatched in
the engine's operator classes) — an off-by-one expiry, a dropped Propagate, a wrong join key —
must each be caught on a batch of random cases, while the unbroken engine passes the same
batch. Judged against the brute-force reference (pure Python, so fast)."""

from __future__ import annotations

import attrs
import pytest
from harness_support import batch_cases, judge_with_reference

pytest.importorskip("sgq.api", reason="the engine (sgq.api) is not there yet")

from sgq.incremental.operators.pattern import PatternOp  # noqa: E402
from sgq.incremental.operators.wscan import WScanOp  # noqa: E402
from sgq.incremental.state.delta_path import DeltaPath  # noqa: E402
from sgq.incremental.state.level_closure import LevelClosure  # noqa: E402
from sgq.incremental.state.window_closure import WindowClosure  # noqa: E402

from sgq import PlanOptions  # noqa: E402

CASES = batch_cases(programs=30, streams=5, seed=77, deletions=False)


def _failures(options=None) -> int:
    return sum(judge_with_reference(*case, options=options) is not None for case in CASES)


def test_unbroken_engine_passes_the_batch():
    assert _failures() == 0


def test_catches_off_by_one_expiry(monkeypatch):
    original = WScanOp.__init__

    def broken(self, node, ctx):
        original(self, node, ctx)
        self.window = node.window + 1  # every edge expires one instant late

    monkeypatch.setattr(WScanOp, "__init__", broken)
    assert _failures() > 0


@pytest.mark.slow  # ~6 s: the README test budget keeps three mutants
def test_catches_dropped_propagate(monkeypatch):
    original = DeltaPath._relax

    def broken(self, x, tree, parent, v, q, ts, exp, wit, now, reached):
        node = tree.get((v, q))
        if node is not None and node[1] > now:
            return  # never propagate a later-expiring derivation to a live node
        return original(self, x, tree, parent, v, q, ts, exp, wit, now, reached)

    monkeypatch.setattr(DeltaPath, "_relax", broken)
    # S-PATH, not the default closure operator
    assert _failures(PlanOptions(path_operator="spath")) > 0


def test_catches_dropped_closure_extension(monkeypatch):
    """The closure PATH operator's dropped Propagate: an edge out of a product node that is
    already reached from elsewhere is not added, so the paths it extends are lost."""
    original = LevelClosure.insert

    def broken(self, edges):
        reached = [e for e in edges if not any(a.get(e[0]) for a in self.anc.values())]
        return original(self, reached)

    monkeypatch.setattr(LevelClosure, "insert", broken)
    assert _failures() > 0


@pytest.mark.slow  # ~6 s: the README test budget keeps three mutants
def test_catches_dropped_closure_extension_in_delta_mode(monkeypatch):
    """The same mutant in the window closure that delta output uses (the harness runs every
    case in delta mode too)."""
    original = WindowClosure.insert

    def broken(self, edges, entering):
        original(self, [e for e in edges if not self.anc.get(e[0])], entering)

    monkeypatch.setattr(WindowClosure, "insert", broken)
    assert _failures() > 0


@pytest.mark.slow  # ~6 s: the README test budget keeps three mutants
def test_catches_wrong_join_key(monkeypatch):
    original = PatternOp.__init__

    def broken(self, node, ctx):
        if len(node.bindings) >= 2:
            s, t = node.bindings[1]
            node = attrs.evolve(node, bindings=(node.bindings[0], (t, s), *node.bindings[2:]))
        original(self, node, ctx)

    monkeypatch.setattr(PatternOp, "__init__", broken)
    assert _failures() > 0
