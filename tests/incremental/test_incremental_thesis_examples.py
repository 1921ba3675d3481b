"""The worked examples of thesis ch. 5 whose input survives in the text (Examples 11-12)."""

from __future__ import annotations

from incremental_support import OperatorContext
from sgq.incremental.operators.path import PathOp
from sgq.incremental.state.coalescer import Coalescer
from sgq.sga.algebra import Path, WScan


def test_example_11_value_equivalent_pattern_results_coalesce():
    # (u, RL, v, [29, 31)) via b and (u, RL, v, [30, 31)) via c: one sgt
    c = Coalescer()
    assert c.admit(("u", "v"), 29, 31, 29) == (29, 31)
    assert c.admit(("u", "v"), 30, 31, 30) is None
    c._check()


def test_example_12_path_over_derived_recent_liker_edges():
    """PATH[RL+ as RLP] over the RL stream of Example 11: (y, u, [28, 37)) at 28 and
    (u, v, [29, 31)) at 29 give (y,u,[28,37)), (u,v,[29,31)) and (y,v,[29,31)) with the
    path <(y,RL,u), (u,RL,v)>."""
    rl = WScan("RL", 9, 1)  # stands for the PATTERN's output stream
    ctx = OperatorContext(paths=True)
    op = PathOp(Path((rl,), ("plus", ("label", "RL")), "RLP"), ctx)
    index = ctx.index_of(rl)
    out = []
    for now, sgt in (
        (28, ("y", "u", 28, 37, (("y", "u", "RL"),))),
        (29, ("u", "v", 29, 31, (("u", "v", "RL"),))),
        (30, ("u", "v", 30, 31, (("u", "v", "RL"),))),
    ):
        index.insert(*sgt, now)
        out += op.process([[sgt]], now)
        op._check()
    assert out == [
        ("y", "u", 28, 37, (("y", "u", "RL"),)),
        ("u", "v", 29, 31, (("u", "v", "RL"),)),
        ("y", "v", 29, 31, (("y", "u", "RL"), ("u", "v", "RL"))),
    ]
    op.purge(31)
    op._check()
    assert set(op.delta_path.trees) == {"y"}  # only (y, u) is left, until 37
    op.purge(37)
    assert op.delta_path.trees == {} and len(op.delta_path) == 0


def test_example_1_notification_on_the_specs_stream():
    """Thesis Example 1 (specs/queries/examples/notification.dl) over specs/streams/
    notification.csv: equal to the reference at every change point, witness paths on."""
    import csv
    from pathlib import Path

    from incremental_support import assert_matches_reference

    import sgq

    root = Path(__file__).resolve().parents[2]
    q = sgq.compile(str(root / "specs/queries/examples/notification.dl"))
    with open(root / "specs/streams/notification.csv", encoding="utf-8") as handle:
        rows = [(r["src"], r["trg"], r["label"], int(r["ts"])) for r in csv.DictReader(handle)]
    _eng, results = assert_matches_reference(q, rows, check_state=True)
    assert ("alice", "m1", "Answer", 2400, 86400) in [r[:5] for r in results]
    eng = q.engine(paths=True)
    eng.push_batch(rows)
    eng.close()
    first = eng.drain()[0]
    assert first.path[0] == ("alice", "m1", "likes") and first.path[-1][2] == "posts"
