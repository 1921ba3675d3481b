"""The checkpoint codec on its own (sgq/state_codec.py) and the contract it writes
(incremental/stateful.py): plain values round trip exactly, engines restored into freshly
compiled ones go on like the originals, the file names what each part states (not its
attributes), and what the codec refuses to write or load."""

from __future__ import annotations

import json
import math
import random
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sgq.incremental.engine import Engine, Result
from sgq.incremental.state.coalescer import Coalescer
from sgq.incremental.state.expiry import ExpiryBuckets

import sgq
from sgq.state_codec import StateError, decode, decode_value, encode, encode_value

PATH_PROGRAM = ".window 10\n.slide 2\nAnswer(x, y) :- [a*/b*](x, y)."
PATTERN_PROGRAM = ".window 10\nAnswer(x, z) :- a(x, y), b(y, z), x != z."
SIMPLE_PROGRAM = ".window 10\n.slide 2\nAnswer(x, y) :- simple [a/b*](x, y)."
INTERSECT_PROGRAM = ".window 10\n.slide 2\nAnswer(x, y) :- a+(x, y), b(x, m), a(m, y)."
TIMED_PROGRAM = (
    ".window 10\nAnswer(x, z) :- a(x, y)@t1, b(y, z)@t2, a(z, x)@t3, t1 < t2, t3 <= t2 + 3."
)


def to_json(roots: dict) -> dict:
    """`encode`, then through strict JSON text (no NaN/Infinity literals) and back."""
    return json.loads(json.dumps(encode(roots), allow_nan=False))


def round_trip(value):
    """Plain data after encode_value -> strict JSON -> decode_value."""
    return decode_value(json.loads(json.dumps(encode_value(value), allow_nan=False)))


def canon(x):
    """`x` as comparable plain data that tells types apart (True from 1, a tuple from a list,
    -0.0 from 0.0, nan equal to nan), dict order kept, set order ignored."""
    t = type(x)
    if t in (list, tuple):
        return (t.__name__, [canon(v) for v in x])
    if t is dict:
        return ("dict", [(canon(k), canon(v)) for k, v in x.items()])
    if t in (set, frozenset):
        return (t.__name__, sorted(repr(canon(v)) for v in x))
    if t is float:
        return ("float", repr(x))
    return (t.__name__, x)


def stream(seed: int, times: range, vertices: int = 12) -> list[tuple]:
    """Seeded edges `(src, trg, label, t, op)` on labels a and b, in time order; about one in
    six a `-` of an edge added before."""
    rng = random.Random(seed)
    added: list[tuple] = []
    out = []
    for t in times:
        for _ in range(3):
            if added and rng.random() < 0.15:
                src, trg, label = rng.choice(added)
                out.append((src, trg, label, t, "-"))
            else:
                edge = (rng.randrange(vertices), rng.randrange(vertices), rng.choice("ab"))
                added.append(edge)
                out.append((*edge, t, "+"))
    return out


def restored(text: str, head: list, **kw) -> tuple[Engine, Engine]:
    """An engine of `text` fed `head`, and a fresh engine of the program compiled again,
    loaded from its checkpoint."""
    original = sgq.compile(text).engine(**kw)
    original.push_batch(head)
    fresh = sgq.compile(text).engine(**kw)
    out = decode(to_json({"engine": original}), {"engine": fresh})
    assert out["engine"] is fresh
    return original, fresh


def rows(results) -> list[tuple]:
    return sorted((r.src, r.trg, r.label, r.ts, r.exp) for r in results)


# ---- plain values ----------------------------------------------------------------------


def test_none_bools_and_strings_are_themselves():
    """None, bools and strings are written as bare JSON values; lists that look like tags
    stay data."""
    value = [None, True, False, "", "l", "ünï", ["d", 0], ["x", "ff"]]
    assert encode_value(value)[:6] == ["l", None, True, False, "", "l"]
    assert canon(round_trip(value)) == canon(value)


@pytest.mark.parametrize(
    "n", [0, -1, 2**63 - 1, -(2**63) + 1, 2**63, -(2**63), 2**64 + 5, -(2**100)]
)
def test_ints_beyond_64_bits_are_hex(n):
    """Ints within ±2**63 are bare JSON numbers, others `["x", hex digits]`."""
    small = -(2**63) < n < 2**63
    assert encode_value(n) == (n if small else ["x", format(n, "x")])
    back = round_trip(n)
    assert type(back) is int and back == n


def test_a_ten_thousand_bit_int_survives():
    """A bitset of 10,000 bits (a large closure's mask) comes back bit for bit."""
    n = random.Random(1).getrandbits(10_000) | (1 << 9_999)
    assert round_trip([n, -n]) == [n, -n]


def test_non_finite_floats():
    """inf, -inf and nan are `["f", ...]` (strict JSON has no such numbers); others bare."""
    value = [0.5, -0.0, math.inf, -math.inf, math.nan]
    assert encode_value(value) == ["l", 0.5, -0.0, ["f", "inf"], ["f", "-inf"], ["f", "nan"]]
    assert canon(round_trip(value)) == canon(value)


def test_containers_keep_type_and_order():
    """Lists, tuples, dicts (any order, int/str/tuple keys), sets and frozensets come back
    alike."""
    value = {
        "z": [1, (2, "3")],
        1: {(1, "a"): [], "b": set()},
        (0, 1): {3, 1, 2},
        "f": frozenset({(1, 2)}),
    }
    back = round_trip(value)
    assert canon(back) == canon(value)
    assert list(back) == ["z", 1, (0, 1), "f"]


@pytest.mark.parametrize("value", [Fraction(1, 3), Coalescer(), object(), b"bytes", range(3)])
def test_anything_but_plain_data_is_refused_at_encode(value):
    """A state holds plain data only: an object (even an engine part, which must be given
    as its own state) is a StateError naming its class, never a half-written file."""
    with pytest.raises(StateError, match="a state holds plain data only"):
        encode_value({"k": [value]})


@pytest.mark.parametrize(
    "data, message",
    [
        (["w", 1], "unknown tag"),
        ([], "untagged array"),
        ([3, 1], "untagged array"),
        (["f", "1e999"], "bad float"),
        (["x", 255], "bad big int"),
        (["d", 1], "a key but no value"),
        ({"a": 1}, "JSON object where plain data"),
    ],
)
def test_bad_plain_data_is_refused_at_decode(data, message):
    with pytest.raises(StateError, match=message):
        decode_value(data)


# ---- engines restored into freshly compiled ones ----------------------------------------

ENGINES = [
    pytest.param(PATH_PROGRAM, {}, id="path"),
    pytest.param(PATTERN_PROGRAM, {}, id="pattern"),
    pytest.param(SIMPLE_PROGRAM, {}, id="simple-path"),
    pytest.param(PATH_PROGRAM, {"history": False, "deltas": True}, id="path-deltas"),
    pytest.param(PATTERN_PROGRAM, {"history": False, "deltas": True}, id="pattern-deltas"),
    pytest.param(TIMED_PROGRAM, {}, id="timed-pattern"),
    # an intersection of two delta streams (operators/intersect.py): its sides are its state
    pytest.param(INTERSECT_PROGRAM, {"history": False, "deltas": True}, id="intersect-deltas"),
    pytest.param(
        INTERSECT_PROGRAM, {"history": False, "deltas": True, "plus": True}, id="intersect-plus"
    ),
]


@pytest.mark.parametrize("text, kw", ENGINES)
def test_a_restored_engine_goes_on_like_the_original(text, kw):
    """An engine encoded mid-stream and decoded into a freshly compiled engine gives the
    same results (delta events with deltas=True) as the original on the rest of the stream,
    expiries and `-` edges included."""
    kw = dict(kw)
    edges = stream(7, range(40))
    if kw.pop("plus", False):  # no `-` edge: the inputs' native deltas go on to the end
        edges = [e for e in edges if e[4] == "+"]
    head = [e for e in edges if e[3] < 20]
    tail = [e for e in edges if e[3] >= 20]
    original, fresh = restored(text, head, **kw)
    views = [e.delta_view() for e in (original, fresh)] if kw.get("deltas") else None
    outputs = []
    for i, engine in enumerate((original, fresh)):
        engine.push_batch(tail)
        got = engine.drain()
        if views:
            events = views[i].feed(got, engine.time)
            engine.close()
            outputs.append(sorted(events + views[i].feed(engine.drain()) + views[i].close()))
        else:
            engine.close()
            outputs.append(rows(got + engine.drain()))
    assert outputs[0] and outputs[0] == outputs[1]
    if not views:
        assert fresh.snapshot(25) == original.snapshot(25)


def test_undrained_results_and_counters_come_back():
    """The results not yet drained and the engine's counters are part of its state."""
    original, fresh = restored(PATTERN_PROGRAM, stream(3, range(10)))
    assert fresh.stats()["edges_in"] == original.stats()["edges_in"] > 0
    expected = original.drain()
    got = fresh.drain()
    assert expected and got == expected and all(type(r) is Result for r in got)


def test_indexes_shared_inside_an_engine_stay_shared():
    """In a restored engine a PATTERN reads the very EdgeIndex objects the dataflow keeps,
    an index entry is one Entry under `by_src` and `by_trg`, and the native delta producer
    writes to the engine's own delta view."""
    _, fresh = restored(PATTERN_PROGRAM, stream(2, range(8)))
    flow = fresh.dataflow
    pattern = next(op for op in flow.ops if hasattr(op, "indexes"))
    kept = [index for index in flow.indexes if index is not None]
    assert pattern.indexes and all(any(i is k for k in kept) for i in pattern.indexes)
    entries = 0
    for index in pattern.indexes:
        for src, by_trg in index.by_src.items():
            for trg, entry in by_trg.items():
                assert index.by_targets()[trg][src] is entry
                entries += 1
    assert entries > 0

    _, fresh = restored(PATH_PROGRAM, stream(2, range(8)), history=False, deltas=True)
    sinks = [op.sink for op in fresh.dataflow.ops if getattr(op, "sink", None) is not None]
    assert sinks and all(sink is fresh.delta_view() for sink in sinks)


def test_the_file_names_each_parts_state_not_its_attributes():
    """What an engine part saves is its `state()`: tagged with its class and state version,
    under names it keeps; no private attribute name appears anywhere in the file."""
    original = sgq.compile(PATH_PROGRAM).engine()
    original.push_batch(stream(4, range(12)))
    data = to_json({"engine": original})
    saved = decode_value(data["engine"])
    assert saved["class"] == "Engine" and saved["version"] == Engine.STATE_VERSION
    assert {"time", "dataflow", "counters"} <= set(saved["state"])
    names: set = set()

    def walk(x):
        if isinstance(x, dict):
            names.update(k for k in x if isinstance(k, str))
            for v in x.values():
                walk(v)
        elif isinstance(x, (list, tuple)):
            for v in x:
                walk(v)

    walk(saved)
    assert not [n for n in names if n.startswith("_")], sorted(names)
    classes = [op["class"] for op in saved["state"]["dataflow"]["state"]["operators"]]
    assert "PathClosureOp" in classes or "PathOp" in classes, classes


def test_another_state_version_is_refused():
    """A part whose saved state version is not its class's own is refused by name."""
    engine = sgq.compile(PATTERN_PROGRAM).engine()
    engine.push_batch(stream(5, range(6)))
    saved = decode_value(to_json({"engine": engine})["engine"])
    saved["state"]["dataflow"]["version"] = 99
    fresh = sgq.compile(PATTERN_PROGRAM).engine()
    with pytest.raises(StateError, match="Dataflow state version 99; this build reads version 1"):
        decode({"engine": encode_value(saved)}, {"engine": fresh})


def test_state_saved_for_another_part_is_refused():
    """State saved for one class is never loaded into another."""
    buckets = ExpiryBuckets()
    buckets.add(3, "k")
    data = to_json({"part": buckets})
    with pytest.raises(
        StateError, match="a saved 'ExpiryBuckets' where this build has a Coalescer"
    ):
        decode(data, {"part": Coalescer()})


def test_a_state_missing_a_name_is_refused():
    """A state without a name its class reads is malformed, not half loaded."""
    data = to_json({"part": Coalescer()})
    saved = decode_value(data["part"])
    del saved["state"]["coverage"]
    with pytest.raises(StateError, match=r"malformed Coalescer state \(KeyError"):
        decode({"part": encode_value(saved)}, {"part": Coalescer()})


def test_decode_checks_the_root_names():
    """The roots of the data must be those of the fresh engine."""
    with pytest.raises(StateError, match=r"roots \['engine'\] instead of \['view'\]"):
        decode({"engine": None}, {"view": None})


def test_roots_must_offer_their_state():
    with pytest.raises(StateError, match="a list has no state"):
        encode({"v": []})


# ---- property ---------------------------------------------------------------------------

_leaves = (
    st.none()
    | st.booleans()
    | st.text(max_size=4)
    | st.integers()
    | st.integers(min_value=-(1 << 200), max_value=1 << 200)
    | st.floats()
)
_hashable = st.recursive(
    _leaves, lambda h: st.tuples(h, h) | st.frozensets(h, max_size=3), max_leaves=6
)
_plain = st.recursive(
    _hashable,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(max_size=3) | st.integers(), inner, max_size=4)
        | st.sets(st.integers(), max_size=4)
        | st.tuples(inner, inner)
    ),
    max_leaves=24,
)


@given(_plain)
def test_plain_data_round_trips_exactly(value):
    """Random nested plain data (lists, dicts with str/int keys, sets of ints, tuples,
    frozensets, big ints, floats incl. inf and nan) comes back exactly, type for type and in
    the same dict order."""
    assert canon(round_trip(value)) == canon(value)


def test_a_restored_intersection_holds_what_it_released():
    """An intersection (operators/intersect.py) checkpointed after its view released events:
    the keys each side holds and the keys of its output come back, and the rest of the
    stream gives the original's events (no `-` edge: the inputs' deltas stay native)."""
    kw = {"history": False, "deltas": True}
    edges = [e for e in stream(7, range(40)) if e[4] == "+"]
    head = [e for e in edges if e[3] < 20]
    tail = [e for e in edges if e[3] >= 20]
    original = sgq.compile(INTERSECT_PROGRAM).engine(**kw)
    view = original.delta_view()
    original.push_batch(head)
    before = view.feed(original.drain(), original.time)
    assert any(op == "+" for _t, op, *_rest in before)
    fresh = sgq.compile(INTERSECT_PROGRAM).engine(**kw)
    decode(to_json({"engine": original}), {"engine": fresh})
    outputs = []
    for engine in (original, fresh):
        view = engine.delta_view()
        engine.push_batch(tail)
        events = view.feed(engine.drain(), engine.time)
        engine.close()
        outputs.append(events + view.feed(engine.drain(), engine.time) + view.close())
    assert any(op == "-" for _t, op, *_rest in outputs[0])
    assert outputs[0] == outputs[1]
