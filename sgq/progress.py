"""A one-line progress bar on stderr for long runs (`sgq run`, `sgq gen`, `sgq bench`).

Redrawn at most every `interval` seconds, only when stderr is a terminal (logs and CI stay
clean) unless forced; `done()` ends the line. The caller passes counters; nothing here knows
about the engine.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO


def human(n: float) -> str:
    """12345678 -> '12.3M'."""
    for unit, size in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(n) >= size:
            return f"{n / size:.1f}{unit}"
    return f"{n:.0f}" if isinstance(n, float) else str(n)


class Progress:
    """`update(done_bytes, **counters)` draws `[####    ]  45% 1.2M edges 80.1k e/s ...`."""

    def __init__(
        self,
        total_bytes: int | None = None,
        *,
        enabled: bool | None = None,
        stream: TextIO | None = None,
        interval: float = 0.25,
    ):
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.total = total_bytes
        self.interval = interval
        self.start = time.perf_counter()
        self._last = 0.0
        self._drawn = False

    def update(self, done_bytes: int | None = None, force: bool = False, **counters: float) -> None:
        if not self.enabled:
            return
        now = time.perf_counter()
        if not force and now - self._last < self.interval:
            return
        self._last = now
        parts = []
        if self.total and done_bytes is not None:
            frac = min(1.0, done_bytes / self.total)
            filled = int(frac * 20)
            parts.append(f"[{'#' * filled}{' ' * (20 - filled)}] {frac * 100:3.0f}%")
        elapsed = max(now - self.start, 1e-9)
        edges = counters.pop("edges", None)
        if edges is not None:
            parts.append(f"{human(edges)} edges {human(edges / elapsed)} e/s")
        parts.extend(f"{human(v)} {k.replace('_', ' ')}" for k, v in counters.items())
        self.stream.write("\r" + "  ".join(parts) + "\x1b[K")
        self.stream.flush()
        self._drawn = True

    def done(self) -> None:
        if self._drawn:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self._drawn = False

    @property
    def elapsed(self) -> float:
        return time.perf_counter() - self.start
