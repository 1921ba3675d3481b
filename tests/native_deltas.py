"""An engine in delta mode (`engine(deltas=True)`: PATH gives its results as native deltas)
seen through the snapshot interface the reference checks use (`push`, `flush`, `advance`,
`close`, `snapshot(τ)`): the snapshot at τ is read off the delta events released so far, so
a check fails if an event was late or wrong. Events at τ are final once time has passed τ,
so `snapshot(τ)` first advances the engine to τ + 1 (the checks ask for it once every input
up to τ is in, and before any later one)."""

from __future__ import annotations


class DeltaSnapshots:
    def __init__(self, query, properties=None) -> None:
        self.engine = query.engine(history=False, deltas=True, properties=properties)
        self.view = self.engine.delta_view()
        self.events: list = []

    def _take(self) -> None:
        self.events += self.view.feed(self.engine.drain(), self.engine.time)

    def push(self, *edge) -> None:
        self.engine.push(*edge)

    def flush(self) -> None:
        self.engine.flush()
        self._take()

    def advance(self, t) -> None:
        self.engine.advance(t)
        self._take()

    def close(self) -> None:
        self.engine.close()
        self._take()
        self.events += self.view.close()

    def snapshot(self, tau) -> set:
        """Keys whose last released event at or before `tau` is a '+'."""
        if self.engine.time <= tau:
            self.advance(tau + 1)
        state: dict = {}
        for t, op, s, d, label in self.events:
            if t > tau:
                break
            state[(s, d, label)] = op
        return {key for key, op in state.items() if op == "+"}
