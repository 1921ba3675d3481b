"""The checkpoint codec: engine state as JSON values (for checkpoints, sgq/checkpoint.py).

What is written is what the engine's parts say their state is, through the contract of
incremental/stateful.py: each part's `state()` is plain data under names the class keeps
(never its attribute names), tagged with the class and its state version, and the parts it
owns nest inside it the same way. Loading hands each part its saved state in a freshly
compiled engine of the same program (`restore`), which already holds everything that comes
from the program (plan nodes, automata, join plans, wiring). So no class is ever instantiated
from the file, no attribute is set by name, and renaming an attribute changes nothing here.

Plain values (every JSON array starts with a tag; a bare JSON value is itself):

    None, bool, str            themselves
    int                        itself; ["x", hex digits] beyond 64 bits (bitsets: JSON
                               readers cap decimal digits, hex has no such limit)
    float                      itself; ["f", "inf" | "-inf" | "nan"] when not finite
    list / tuple               ["l", item...] / ["t", item...]
    dict                       ["d", key, value, ...]  (any plain key; order kept)
    set / frozenset            ["s", item...] / ["z", item...]

Anything else inside a state is a StateError at save time: state the codec cannot restore
faithfully is never written. A set comes back with its items added in the saved order;
CPython does not promise the same iteration order afterwards.
"""

from __future__ import annotations

import math
from typing import Any

from .incremental.stateful import StateError, restore_into, state_of

__all__ = ["StateError", "encode", "decode", "encode_value", "decode_value"]

_INT_LIMIT = 1 << 63  # ints beyond this are written in hex


def encode_value(x: Any) -> Any:
    """The JSON value of plain data `x`; a StateError names what is not plain data."""
    t = type(x)
    if t is str or t is bool or x is None:
        return x
    if t is int:
        return x if -_INT_LIMIT < x < _INT_LIMIT else ["x", format(x, "x")]
    if t is tuple:
        return ["t", *[encode_value(v) for v in x]]
    if t is list:
        return ["l", *[encode_value(v) for v in x]]
    if t is dict:
        out: list = ["d"]
        for k, v in x.items():
            out.append(encode_value(k))
            out.append(encode_value(v))
        return out
    if t is float:
        return x if math.isfinite(x) else ["f", repr(x)]
    if t is set or t is frozenset:
        return ["s" if t is set else "z", *[encode_value(v) for v in x]]
    raise StateError(
        f"cannot checkpoint a {t.__module__}.{t.__qualname__}: a state holds plain data only"
    )


def decode_value(x: Any) -> Any:
    """Plain data from `encode_value`'s output; a StateError on anything else."""
    t = type(x)
    if t is not list:
        if t is dict:
            raise StateError("a JSON object where plain data was expected")
        return x
    if not x or type(x[0]) is not str:
        raise StateError(f"an untagged array {x!r:.60}")
    tag = x[0]
    if tag == "t":
        return tuple([decode_value(v) for v in x[1:]])
    if tag == "l":
        return [decode_value(v) for v in x[1:]]
    if tag == "d":
        if len(x) % 2 != 1:
            raise StateError("a dict with a key but no value")
        return {decode_value(x[i]): decode_value(x[i + 1]) for i in range(1, len(x), 2)}
    if tag == "s":
        return {decode_value(v) for v in x[1:]}
    if tag == "z":
        return frozenset([decode_value(v) for v in x[1:]])
    if tag == "x":
        if len(x) != 2 or type(x[1]) is not str:
            raise StateError(f"bad big int {x!r:.60}")
        return int(x[1], 16)
    if tag == "f":
        if len(x) != 2 or x[1] not in ("inf", "-inf", "nan"):
            raise StateError(f"bad float {x!r:.60}")
        return float(x[1])
    raise StateError(f"unknown tag {tag!r}")


def encode(roots: dict[str, Any]) -> dict[str, Any]:
    """JSON values of the state of `roots` (engine parts offering `state()`). Raises
    StateError for something that cannot be restored faithfully."""
    out = {}
    for name, root in roots.items():
        if not callable(getattr(root, "state", None)):
            raise StateError(f"cannot checkpoint {name!r}: a {type(root).__name__} has no state()")
        out[name] = encode_value(state_of(root))
    return out


def decode(data: dict[str, Any], fresh: dict[str, Any]) -> dict[str, Any]:
    """Load `encode`'s output into `fresh` (the same roots of a freshly compiled engine) and
    return them. Raises StateError on anything that does not fit this build or this program."""
    if not isinstance(data, dict) or set(data) != set(fresh):
        raise StateError(
            f"roots {sorted(data) if isinstance(data, dict) else data!r} instead of {sorted(fresh)}"
        )
    try:
        for name, x in data.items():
            restore_into(fresh[name], decode_value(x))
    except StateError:
        raise
    except (TypeError, ValueError, KeyError, IndexError, AttributeError, RecursionError) as exc:
        raise StateError(f"malformed state ({type(exc).__name__}: {exc})") from None
    return dict(fresh)
