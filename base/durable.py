"""Files that survive a crash: the pieces both engines' checkpoints are made of.

A checkpoint is only as good as its files: a JSON document is replaced atomically (written,
fsync'd, renamed, its directory fsync'd), an output file is fsync'd before a checkpoint
records its length and cut back to that length on resume, and a damaged or foreign file is
a `UserError` that says how to start over, never a traceback. `KillSwitch` gives the crash
tests reproducible places to die.
"""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Callable
from typing import IO, Any

from .errors import UserError

#: the advice every refused checkpoint ends with
START_OVER = "delete it (or use another --checkpoint directory) to start over"


class KillSwitch:
    """Crash tests only: `sgq run --kill-at K` (a hidden option) makes the process SIGKILL
    itself at its K-th kill point, so the tests can stop a run at chosen, reproducible places.
    The points are `batch` (a batch's results written), `mid-write` (half of a checkpoint file
    written) and `written` (a checkpoint just put in place); `K:KIND` counts the points of one
    kind only. Without it every point is a no-op."""

    def __init__(self, kill_at: str | None = None) -> None:
        count, _, kind = (kill_at or "").strip().partition(":")
        self.left = int(count) if count else None
        self.kind = kind or None

    @property
    def armed(self) -> bool:
        return self.left is not None

    def point(self, kind: str, before: Callable[[], None] | None = None) -> None:
        """A kill point of `kind`; `before` runs first when this is the one (e.g. flush the
        output, so the file holds rows past the last checkpoint, as after a real crash)."""
        if self.left is None or (self.kind is not None and kind != self.kind):
            return
        self.left -= 1
        if self.left <= 0:
            if before is not None:
                before()
            os.kill(os.getpid(), signal.SIGKILL)


def text_digest(text: str) -> str:
    """The SHA-256 of a text (a program, a prepared directory's manifest), as hex."""
    import hashlib  # only with a checkpoint: a few ms of every start otherwise

    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def checkpoint_directory(directory: str) -> bool:
    """Whether the checkpoint directory `directory` exists; one that does not is created now,
    so a directory that cannot be made fails before the run, not at its first save."""
    if os.path.exists(directory) and not os.path.isdir(directory):
        raise UserError(f"--checkpoint '{directory}' is not a directory")
    if os.path.isdir(directory):
        return True
    try:
        os.makedirs(directory, exist_ok=True)
    except OSError as exc:
        raise UserError(
            f"cannot create the --checkpoint directory '{directory}': {exc.strerror or exc}"
        ) from None
    return False


def read_checkpoint_json(path: str, opener: Callable[[str], IO[bytes]] | None = None) -> dict:
    """The JSON object in the checkpoint file `path` (opened by `opener`, e.g. gzip.open; a
    plain file by default). A file that cannot be read or parsed is damaged, one that holds
    another JSON value is not a checkpoint: both are a UserError."""
    try:
        with (opener or open)(path, "rb") as handle:
            data = json.loads(handle.read())
    except (OSError, EOFError, ValueError) as exc:  # gzip.BadGzipFile is an OSError
        raise UserError(
            f"checkpoint '{path}' is damaged ({exc}); delete the checkpoint to start over"
        ) from None
    if not isinstance(data, dict):
        raise UserError(f"checkpoint '{path}' is not an sgq checkpoint")
    return data


def write_atomic(path: str, blob: bytes, kill: KillSwitch | None = None) -> None:
    """Replace the file at `path` by `blob` so that a crash at any instant leaves the old
    file or the new one: a temporary file is written and fsync'd, renamed over `path`, and the
    directory fsync'd. `kill`'s `mid-write` point falls halfway through the temporary file."""
    tmp = path + ".tmp"
    with open(tmp, "wb") as handle:
        half = len(blob) // 2
        handle.write(blob[:half])
        if kill is not None and kill.armed:
            handle.flush()
            kill.point("mid-write")
        handle.write(blob[half:])
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)
    fsync_dir(os.path.dirname(path) or ".")


def write_json_atomic(path: str, data: dict[str, Any]) -> None:
    """`write_atomic` of `data` as JSON with sorted keys."""
    write_atomic(path, json.dumps(data, sort_keys=True).encode("utf-8"))


def fsync_dir(directory: str) -> None:
    """Make a rename in `directory` durable (where the platform allows it)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def durable_size(handle) -> int:
    """Flush and fsync an open output file; its length in bytes."""
    handle.flush()
    fd = handle.fileno()
    os.fsync(fd)
    return os.fstat(fd).st_size


def cut_back(path: str, size: int, what: str) -> None:
    """Truncate the file at `path` to `size` bytes (what a checkpoint recorded); a file that
    is missing or shorter cannot be resumed."""
    try:
        actual = os.path.getsize(path)
    except OSError:
        actual = -1
    if actual < 0 and size == 0:
        return
    if actual < size:
        state = "missing" if actual < 0 else f"shorter ({actual:,} bytes)"
        raise UserError(
            f"the {what} '{path}' is {state}, but the checkpoint says it had "
            f"{size:,} bytes; delete the checkpoint to start over"
        )
    if actual > size:
        os.truncate(path, size)
