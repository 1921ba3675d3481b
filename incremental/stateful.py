"""The checkpoint contract of the engine's stateful parts (sgq/checkpoint.py writes it).

Every class whose objects hold state from one round to the next offers `state()` and
`restore(state)`, and a `STATE_VERSION`:

- `state()` returns plain data (None, bool, int, float, str, and tuples, lists, dicts and sets
  of them) under names the class chooses and keeps, never its attribute names, with the state
  of each part it owns as `state_of(part)`;
- `restore(state)` loads that into an object built for the same program (a freshly compiled
  engine), restoring its parts with `restore_into`.

What comes from the program (plan nodes, automata, join plans, the wiring between operators)
is never saved: the fresh engine has it. So renaming an attribute changes nothing on disk, and
changing what a class saves means raising its `STATE_VERSION` (and reading the older one in
`restore`, or refusing it: `restore_into` refuses any version but the class's own).
"""

from __future__ import annotations

from typing import Any, Protocol


class StateError(Exception):
    """The state cannot be saved, or saved state does not fit this build or this program."""


class Stateful(Protocol):
    STATE_VERSION: int

    def state(self) -> dict[str, Any]: ...

    def restore(self, state: dict[str, Any]) -> None: ...


def state_of(part: Stateful) -> dict[str, Any]:
    """`part`'s state, tagged with its class name and state version."""
    cls = type(part)
    return {"class": cls.__name__, "version": cls.STATE_VERSION, "state": part.state()}


def restore_into(part: Stateful, saved: Any) -> None:
    """Load `saved` (from `state_of`) into `part`, an object of the same class built for the
    same program; a StateError when the class or the state version differ."""
    cls = type(part)
    if not isinstance(saved, dict) or not isinstance(saved.get("state"), dict):
        raise StateError(f"no saved state where this build has a {cls.__name__}")
    if saved.get("class") != cls.__name__:
        raise StateError(f"a saved {saved.get('class')!r} where this build has a {cls.__name__}")
    if saved.get("version") != cls.STATE_VERSION:
        raise StateError(
            f"{cls.__name__} state version {saved.get('version')!r}; "
            f"this build reads version {cls.STATE_VERSION}"
        )
    try:
        part.restore(saved["state"])
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise StateError(f"malformed {cls.__name__} state ({type(exc).__name__}: {exc})") from None
