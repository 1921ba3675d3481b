"""A safe, generic encoding of engine state as JSON values (for checkpoints, sgq/checkpoint.py).

Why generic: the operators' state classes change as the engine grows, so nothing here names
an operator. The encoder walks the objects reachable from a few named roots (the Engine, the
DeltaView, plain data) and writes JSON values; the decoder rebuilds them into a freshly
compiled engine of the same program. No pickle, no eval: the only classes ever instantiated
on load are those defined in the `sgq.incremental` package (a registry built by importing
that package's modules, checked by module prefix and by name), via `object.__new__` and
`setattr` of exactly the attributes that class has in this build.

What is encoded, and how (every JSON array starts with a tag; a bare JSON value is itself):

    None, bool, str            themselves
    int                        itself; ["x", hex digits] beyond 64 bits (bitsets: JSON
                               readers cap decimal digits, hex has no such limit)
    float                      itself; ["f", "inf" | "-inf" | "nan"] when not finite
    operator.itemgetter        ["g", item...]  (join plans build them; rebuilt from items)
    list / dict / set / deque  ["l", item...] / ["d", key, value, ...] / ["s", item...] /
                               ["q", maxlen, item...]
    object (sgq.incremental)   ["o", "module.Class", {attribute: value}]  (["u"]: unset slot)
    tuple / frozenset          ["t", item...] / ["z", item...]  (values: no identity kept)
    NamedTuple (registered)    ["n", "module.Class", field...]
    a shared mutable           ["r", n]: the n-th list/dict/set/deque/object met so far
    a bound method             ["m", its object, name]  (`self.admit = self.out.admit`)
    rebuilt from the program   ["k", path]: take the object at `path` in the fresh engine

Shared references: every mutable container and object gets the next number when first met
(encoder and decoder walk in the same order, so the number is never written), and later
meetings write ["r", n]; so an `EdgeIndex` held by `Dataflow.indexes` and by an operator, or an
index entry held by both `by_src` and `by_trg`, is one object again after loading. Dict and
list order is kept (the engine's output order depends on it). A set is rebuilt by adding its
items in iteration order; CPython does not promise the same iteration order afterwards.

Rebuilt, never encoded: plan nodes and everything else from `sgq.sga` / `sgq.datalog`, build
contexts, module-level functions and classes (a closure is refused: what it captured cannot be
found again). They become a path of steps from the root (`["a", attribute]`, `["i", index]`,
`["k", encoded key]`) that the decoder follows in the fresh engine, so plan objects are matched
by position (`dataflow.nodes[3]`). One such object met again is written with the path where it
was met first, so an operator built lazily (after the fresh engine was made) still finds its
plan node through the eager operator holding the same node.
Anything else (an object from another library) is a `StateError` at save time: state the
codec cannot restore faithfully is never written.
"""

from __future__ import annotations

import functools
import importlib
import math
import operator
import pkgutil
import types
from collections import deque
from typing import Any

PACKAGE = "sgq.incremental"
# Classes of the engine package that are rebuilt from the program, never encoded.
REBUILT_CLASSES = frozenset(
    {
        "sgq.incremental.runtime._Context",
    }
)
# Objects of these packages come from the program (plan nodes, regexes, checked programs).
REBUILT_PACKAGES = ("sgq.sga.", "sgq.datalog.")

_CALLABLE_TYPES = (
    types.FunctionType,
    types.BuiltinFunctionType,
    types.MethodType,
    types.MethodWrapperType,
    types.WrapperDescriptorType,
    types.MethodDescriptorType,
    functools.partial,
    staticmethod,
    classmethod,
    operator.attrgetter,
    operator.methodcaller,
)
_INT_LIMIT = 1 << 63  # ints beyond this are written in hex


class StateError(Exception):
    """The state cannot be encoded, or an encoding cannot be loaded into this engine."""


@functools.cache
def registry() -> dict[str, type]:
    """`"module.QualName"` -> class, for every class defined in a `sgq.incremental` module."""
    package = importlib.import_module(PACKAGE)
    modules = [package]
    for info in pkgutil.walk_packages(package.__path__, PACKAGE + "."):
        modules.append(importlib.import_module(info.name))
    out: dict[str, type] = {}
    for module in modules:
        for obj in vars(module).values():
            if isinstance(obj, type) and obj.__module__ == module.__name__:
                out[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return out


@functools.cache
def _slots(cls: type) -> tuple[str, ...]:
    """Every slot attribute of `cls` and its bases, in definition order (no __dict__)."""
    names: list[str] = []
    for klass in reversed(cls.__mro__):
        slots = klass.__dict__.get("__slots__", ())
        if isinstance(slots, str):
            slots = (slots,)
        for name in slots:
            if name not in ("__dict__", "__weakref__") and name not in names:
                names.append(name)
    return tuple(names)


def _name(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _is_rebuilt(cls: type) -> bool:
    module = cls.__module__
    return (
        _name(cls) in REBUILT_CLASSES
        or module.startswith(REBUILT_PACKAGES)
        or issubclass(cls, (type,) + _CALLABLE_TYPES)
    )


def _path_of(path) -> list:
    """The linked path `(parent, kind, arg)` as a list of steps `[kind, arg]` from the root."""
    steps = []
    while path is not None:
        path, kind, arg = path
        steps.append([kind, arg])
    steps.reverse()
    return steps


class _Encoder:
    """One walk over the roots; `memo` numbers every mutable met (kept alive in `alive`),
    `rebuilt` remembers the first path of every object rebuilt from the program.

    A value's path is passed as `(parent, kind, arg)` and only built into a tuple for
    containers, so leaves cost no allocation."""

    def __init__(self) -> None:
        self.memo: dict[int, int] = {}
        self.alive: list = []
        self.rebuilt: dict[int, list] = {}
        self.kept: list = []

    def _remember(self, x) -> list | None:
        """`["r", n]` if `x` was met before; else number it and return None."""
        n = self.memo.get(id(x))
        if n is not None:
            return ["r", n]
        self.memo[id(x)] = len(self.alive)
        self.alive.append(x)
        return None

    def value(self, x, parent, kind, arg) -> Any:
        t = type(x)
        if t is str or t is bool or x is None:
            return x
        if t is int:
            return x if -_INT_LIMIT < x < _INT_LIMIT else ["x", format(x, "x")]
        if t is tuple:
            path = (parent, kind, arg)
            value = self.value
            return ["t", *[value(v, path, "i", i) for i, v in enumerate(x)]]
        if t is list:
            ref = self._remember(x)
            if ref is not None:
                return ref
            path = (parent, kind, arg)
            value = self.value
            return ["l", *[value(v, path, "i", i) for i, v in enumerate(x)]]
        if t is dict:
            ref = self._remember(x)
            if ref is not None:
                return ref
            path = (parent, kind, arg)
            out = ["d"]
            value = self.value
            for k, v in x.items():
                key = value(k, None, None, None)
                out.append(key)
                out.append(value(v, path, "k", key))
            return out
        if t is float:
            return x if math.isfinite(x) else ["f", repr(x)]
        if t is set or t is frozenset:
            if t is set:
                ref = self._remember(x)
                if ref is not None:
                    return ref
            return ["s" if t is set else "z", *[self.value(v, None, None, None) for v in x]]
        if t is deque:
            ref = self._remember(x)
            if ref is not None:
                return ref
            path = (parent, kind, arg)
            return ["q", x.maxlen, *[self.value(v, path, "i", i) for i, v in enumerate(x)]]
        if t is operator.itemgetter:
            items = x.__reduce__()[1]
            if any(type(i) not in (int, str) for i in items):  # what decoding accepts
                raise StateError(
                    f"cannot checkpoint itemgetter{items!r}: only int or str items are restored"
                )
            return ["g", *[self.value(v, None, None, None) for v in items]]
        return self._other(x, t, parent, kind, arg)

    def _other(self, x, t: type, parent, kind, arg) -> Any:
        how = _kind(t)
        if how == "object":
            ref = self._remember(x)
            if ref is not None:
                return ref
            path = (parent, kind, arg)
            attrs: dict[str, Any] = {}
            missing = object()
            value = self.value
            for slot in _slots(t):
                v = getattr(x, slot, missing)
                attrs[slot] = ["u"] if v is missing else value(v, path, "a", slot)
            for attr, v in getattr(x, "__dict__", {}).items():
                attrs[attr] = value(v, path, "a", attr)
            return ["o", _name(t), attrs]
        if how == "namedtuple":
            path = (parent, kind, arg)
            return ["n", _name(t), *[self.value(v, path, "i", i) for i, v in enumerate(x)]]
        owner = getattr(x, "__self__", None)
        if how == "method" and owner is not None and not isinstance(owner, types.ModuleType):
            # a bound method (`self.admit = self.out.admit`): its object, then its name
            return ["m", self.value(owner, None, None, None), x.__name__]
        if t is types.FunctionType and x.__closure__:
            raise StateError(
                f"cannot checkpoint the closure {x.__qualname__}: what it holds "
                "cannot be found again"
            )
        if how in ("rebuilt", "method"):
            first = self.rebuilt.get(id(x))
            if first is not None:
                return ["k", first]
            if kind is None:
                raise StateError(
                    f"a {t.__qualname__} (rebuilt from the program) sits inside a "
                    "set or a dict key, where it cannot be found again"
                )
            first = self.rebuilt[id(x)] = _path_of((parent, kind, arg))
            self.kept.append(x)  # alive, so its id is not reused during the walk
            return ["k", first]
        raise StateError(how)


@functools.cache
def _kind(t: type) -> str:
    """How values of class `t` are encoded: object, namedtuple, method, rebuilt, or the
    reason they cannot be."""
    if t is types.MethodType or t is types.BuiltinMethodType:
        return "method"
    if _is_rebuilt(t):
        return "rebuilt"
    name = _name(t)
    if not name.startswith(PACKAGE + ".") or registry().get(name) is not t:
        return f"cannot checkpoint a {name}: only {PACKAGE} classes and plain data can be saved"
    if issubclass(t, tuple):
        if not hasattr(t, "_fields"):
            return f"cannot checkpoint a {name}: a tuple subclass that is not a NamedTuple"
        return "namedtuple"
    return "object"


def encode(roots: dict[str, Any]) -> dict[str, Any]:
    """JSON values of `roots` (one walk, so references shared between roots stay shared).

    Raises StateError for something that cannot be restored faithfully. Cost: O(objects
    reachable), one dict insert per mutable container.
    """
    encoder = _Encoder()
    return {name: encoder.value(root, None, "root", name) for name, root in roots.items()}


def decode(data: dict[str, Any], fresh: dict[str, Any]) -> dict[str, Any]:
    """The roots of `encode`'s output, rebuilt against `fresh` (the same roots of a freshly
    compiled engine). A root that is an object is loaded *into* its fresh counterpart (its
    attributes replaced, after everything is decoded, so paths to rebuilt objects still see
    the fresh engine); other roots are returned as new values. Raises StateError on anything
    that does not fit this build or this program."""
    if not isinstance(data, dict) or set(data) != set(fresh):
        raise StateError(
            f"roots {sorted(data) if isinstance(data, dict) else data!r} instead of {sorted(fresh)}"
        )
    decoder = _Decoder(fresh)
    out: dict[str, Any] = {}
    assign: list[tuple[Any, list]] = []
    try:
        for name, x in data.items():
            target = fresh[name]
            if (
                type(x) is list
                and x
                and x[0] == "o"
                and len(x) == 3
                and x[1] == _name(type(target))
            ):
                obj, values = decoder.object(x[1], x[2], into=target)
                assign.append((obj, values))
                out[name] = obj
            else:
                out[name] = decoder.value(x)
    except StateError:
        raise
    except (TypeError, ValueError, KeyError, IndexError, AttributeError, RecursionError) as exc:
        raise StateError(f"malformed state ({type(exc).__name__}: {exc})") from None
    for obj, values in assign:
        _assign(obj, values)
    return out


def _assign(obj, values: list) -> None:
    for attr, v in values:
        if v is not _UNSET:
            setattr(obj, attr, v)
        elif hasattr(obj, attr):
            delattr(obj, attr)


_UNSET = object()


class _Decoder:
    def __init__(self, fresh: dict[str, Any]) -> None:
        self.fresh = fresh
        self.objects: list = []
        self.layouts = _layouts(fresh)

    def value(self, x) -> Any:
        t = type(x)
        if t is not list:
            if t is dict:
                raise StateError("a JSON object outside an object's attributes")
            return x
        tag = x[0]
        value = self.value
        if tag == "t":
            return tuple([value(v) for v in x[1:]])
        if tag == "l":
            out: list = []
            self.objects.append(out)
            out.extend([value(v) for v in x[1:]])
            return out
        if tag == "r":
            return self.objects[x[1]]
        if tag == "d":
            d: dict = {}
            self.objects.append(d)
            for i in range(1, len(x), 2):
                d[value(x[i])] = value(x[i + 1])
            return d
        if tag == "s":
            s: set = set()
            self.objects.append(s)
            s.update([value(v) for v in x[1:]])
            return s
        if tag == "z":
            return frozenset([value(v) for v in x[1:]])
        if tag == "x":
            if type(x[1]) is not str:
                raise StateError(f"bad big int {x[1]!r}")
            return int(x[1], 16)
        if tag == "g":
            items = [value(v) for v in x[1:]]
            if not items or any(type(i) not in (int, str) for i in items):
                raise StateError(f"bad itemgetter items {items!r}")
            return operator.itemgetter(*items)
        if tag == "f":
            if x[1] not in ("inf", "-inf", "nan"):
                raise StateError(f"bad float {x[1]!r}")
            return float(x[1])
        if tag == "q":
            if x[1] is not None and type(x[1]) is not int:
                raise StateError(f"bad deque length {x[1]!r}")
            q: deque = deque(maxlen=x[1])
            self.objects.append(q)
            q.extend([value(v) for v in x[2:]])
            return q
        if tag == "o":
            obj, values = self.object(x[1], x[2])
            _assign(obj, values)
            return obj
        if tag == "n":
            cls = self._class(x[1])
            if not (issubclass(cls, tuple) and hasattr(cls, "_fields")):
                raise StateError(f"{x[1]} is not a NamedTuple")
            return cls(*[value(v) for v in x[2:]])
        if tag == "k":
            return self._rebuilt(x[1])
        if tag == "u":
            return _UNSET
        if tag == "m":
            owner, name = value(x[1]), x[2]
            if not isinstance(name, str) or name.startswith("__"):
                raise StateError(f"bad method name {name!r}")
            method = getattr(owner, name)
            if not callable(method):
                raise StateError(f"{name!r} is not a method")
            return method
        raise StateError(f"unknown tag {tag!r}")

    def _class(self, name) -> type:
        cls = registry().get(name) if isinstance(name, str) else None
        if cls is None or not name.startswith(PACKAGE + ".") or _is_rebuilt(cls):
            raise StateError(f"class {name!r} may not be loaded")
        return cls

    def object(self, name, attrs, into=None) -> tuple[Any, list]:
        """A registered object, created with object.__new__ (or `into`, for a root), and its
        decoded `(attribute, value)` pairs, not yet assigned."""
        cls = self._class(name)
        if not isinstance(attrs, dict):
            raise StateError(f"bad attributes of {name}")
        slots = _slots(cls)
        if cls.__dictoffset__:
            known = self.layouts.get(cls)
            expected = None if known is None else set(slots) | known
        else:
            expected = set(slots)
        if expected is not None and set(attrs) != expected:
            raise StateError(
                f"{name} has attributes {sorted(attrs)} in the checkpoint but "
                f"{sorted(expected)} in this build"
            )
        for attr in attrs:
            if not attr.isidentifier() or attr.startswith("__"):
                raise StateError(f"bad attribute name {attr!r}")
        obj = object.__new__(cls) if into is None else into
        self.objects.append(obj)
        values = [(attr, self.value(v)) for attr, v in attrs.items()]
        if any(v is _UNSET for attr, v in values if attr not in slots):
            raise StateError(f"{name}: an unset attribute that is not a slot")
        return obj, values

    def _rebuilt(self, steps) -> Any:
        """Follow `steps` from a fresh root to an object rebuilt from the program."""
        if not steps or steps[0][0] != "root" or steps[0][1] not in self.fresh:
            raise StateError(f"bad path {steps!r}")
        obj = self.fresh[steps[0][1]]
        for kind, arg in steps[1:]:
            if kind == "a":
                if not isinstance(arg, str) or arg.startswith("__"):
                    raise StateError(f"bad attribute {arg!r}")
                obj = getattr(obj, arg)
            elif kind == "i":
                obj = obj[arg]
            elif kind == "k":
                obj = obj[self._key(arg)]
            else:
                raise StateError(f"bad path step {kind!r}")
        if not _is_rebuilt(type(obj)):
            raise StateError(
                f"the path {steps!r} leads to a {type(obj).__name__}, not an object of the program"
            )
        return obj

    def _key(self, x) -> Any:
        """A dict key in a path, decoded apart from the object numbering."""
        saved = self.objects
        self.objects = []
        try:
            return self.value(x)
        finally:
            self.objects = saved


def _layouts(fresh: dict[str, Any]) -> dict[type, set[str]]:
    """Attribute names of the registered __dict__ objects reachable from the fresh roots
    through attributes, lists and tuples (a fresh engine is small: this is quick)."""
    out: dict[type, set[str]] = {}
    todo = list(fresh.values())
    seen: set[int] = set()
    classes = set(registry().values())
    while todo:
        x = todo.pop()
        if id(x) in seen:
            continue
        seen.add(id(x))
        t = type(x)
        if t is list or t is tuple:
            todo.extend(x)
        elif t in classes:
            if t.__dictoffset__:
                out[t] = set(vars(x))
                todo.extend(vars(x).values())
            todo.extend(getattr(x, s, None) for s in _slots(t))
    return out
