"""Running `sgq run --follow` in the background and waiting for it, with bounded waits."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

WAIT = 30.0  # seconds any one condition may take before the test fails


class Background:
    """`python -m sgq ARGS` running in the background, its stderr in a file."""

    def __init__(self, args, workdir: Path, name: str = "run", hashseed: str = "0") -> None:
        env = dict(os.environ)
        env["PYTHONHASHSEED"] = hashseed
        self.stderr_path = workdir / f"{name}.stderr"
        self._err = open(self.stderr_path, "wb")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "sgq", *map(str, args)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=self._err,
            env=env,
        )

    @property
    def stderr(self) -> str:
        return self.stderr_path.read_text(encoding="utf-8", errors="replace")

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self, sig: int = signal.SIGTERM) -> int:
        """Send `sig` and wait for the exit code."""
        if self.alive():
            self.proc.send_signal(sig)
        try:
            code = self.proc.wait(timeout=WAIT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError(f"sgq did not stop within {WAIT}s: {self.stderr}") from None
        self._err.close()
        return code

    def kill(self) -> None:
        if self.alive():
            self.proc.kill()
            self.proc.wait()
        self._err.close()


def wait_for(condition, what: str, run: Background | None = None, timeout: float = WAIT):
    """Poll `condition()` every 20 ms until it is truthy (its value is returned); fail
    with `what` (and the run's stderr) after `timeout`, or at once if the run died."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if run is not None and not run.alive():
            raise AssertionError(f"sgq exited while waiting for {what}: {run.stderr}")
        if time.monotonic() > deadline:
            detail = run.stderr if run is not None else ""
            raise AssertionError(f"timed out waiting for {what}: {detail}")
        time.sleep(0.02)


def text_of(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ""


def append(path: Path, data: str) -> None:
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(data)
        handle.flush()
