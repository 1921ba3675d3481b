"""Checkpoints of `sgq run`: save the run's state now and then, resume from it after a crash.

A checkpoint is one file, `DIR/checkpoint.json.gz`: gzip'd JSON (no pickle, no eval) holding

- `format` (this module's FORMAT) and `sgq` (the version that wrote it): another format or
  another sgq version is refused, because the engine's state classes may differ;
- `settings` and their `fingerprint`: the program text's SHA-256 and every option that shapes
  the results, the engine's state or the input read (window, slide, emit, paths, the plan
  options of sgq/options.py, columns, format, lateness, on-error, output format); a
  checkpoint of another program or other options is refused with the names of what differs;
- `layout`: the dataflow's operator names, so a plan that compiles differently is refused;
- `position`: how far the run got (`Position`): input edges handed to the engine, a CRC of
  them, output rows and bytes, rejects file bytes and counters;
- `state`: the engine, its delta view included, as each part states it: plain data under
  names the part keeps, with a version per class (incremental/stateful.py,
  sgq/state_codec.py), so renaming an attribute does not change the file.

Checkpoints are taken at batch boundaries only (every edge of a batch is in the engine and its
results are written), so the state is consistent. Resuming re-reads the input from its start
and skips the first `edges` edges that come out of the reader and the reorder buffer (which
is deterministic, so it rebuilds the reorder buffer and the reject counts exactly, at the cost
of parsing the consumed prefix again); the output and rejects files are cut back to the
lengths the checkpoint recorded and appended to.

Writing is atomic: a temporary file is written, fsync'd and renamed over the old checkpoint
(then the directory is fsync'd), and the output files are fsync'd before, so a crash at any
instant leaves either the old or the new checkpoint, each consistent with the files.
"""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import time
import zlib
from collections.abc import Callable
from typing import Any

from . import __version__
from .errors import UserError
from .state_codec import StateError, decode, encode

FORMAT = 6  # 2: the delta view is the engine's own (native deltas), one root; 3: a native PATH
#              keeps one window closure (state/window_closure.py), not one per level; 4: the
#              plan options are settings (a closure PATH keeps whether it may hand over); 5:
#              each part's own state() under names it keeps (incremental/stateful.py), not a
#              dump of its attributes; 6: the settings always say whether the cost-based
#              optimizer planned the run (on by default since this format)
FILE = "checkpoint.json.gz"
DEFAULT_EVERY = 100_000  # input edges between checkpoints

# settings key -> how a user knows it (for "written for a different ...")
_SETTING_NAMES = {
    "program_sha256": "program text",
    "window": "--window",
    "slide": "--slide",
    "emit": "--emit",
    "paths": "--paths",
    "path_operator": "--path-operator",
    "skip_rewrites": "--no-rewrite",
    "optimize": "--optimize",
    "columns": "--columns",
    "format": "input format",
    "max_lateness": "--max-lateness",
    "on_error": "--on-error",
    "output_format": "output format",
}


@dataclasses.dataclass
class Position:
    """How far a run got: `edges` handed to the engine (with `digest`, their CRC-32), `rows`
    written to the output (`output_bytes` long), the rejects file's length and counters, and
    the number of checkpoints written so far."""

    edges: int = 0
    digest: int = 0
    rows: int = 0
    output_bytes: int = 0
    rejects_bytes: int = 0
    skipped: int = 0
    dropped: int = 0
    checkpoints: int = 0


def edge_digest(edges, crc: int = 0) -> int:
    """The running CRC-32 of `edges` `(src, trg, label, ts, op)`: a resumed run checks that
    the input it skips is the input the checkpoint consumed. ~1 µs per edge."""
    crc32 = zlib.crc32
    for e in edges:
        crc = crc32(f"{e[0]}\x1f{e[1]}\x1f{e[2]}\x1f{e[3]}\x1f{e[4]}\n".encode(), crc)
    return crc


def program_digest(text: str) -> str:
    """The SHA-256 of a program's text (the `program_sha256` setting)."""
    import hashlib  # (hashlib and gzip only with a checkpoint: 4 ms of every start)

    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _fingerprint(settings: dict) -> str:
    import hashlib

    canon = json.dumps(settings, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canon.encode("utf-8")).hexdigest()


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


class Checkpoints:
    """The checkpoint directory of one run: `load` what is there, `save` a new one."""

    def __init__(
        self, directory: str, settings: dict[str, Any], kill_at: str | None = None
    ) -> None:
        self.directory = directory
        self.path = os.path.join(directory, FILE)
        self.settings = settings
        self.fingerprint = _fingerprint(settings)
        self.kill = KillSwitch(kill_at)
        self.seconds = 0.0  # time spent saving, for the stats line
        self.bytes = 0  # size of the last checkpoint written

    # ---- loading
    def load(self, roots: dict[str, Any]) -> Position | None:
        """Restore `roots` (a fresh engine, by name) from the checkpoint and
        return its Position; None when there is none (a fresh start: DIR is created now, so
        one that cannot be is an error before the run, not at its first save). A checkpoint
        of another format, sgq version, program, options or plan is a UserError naming the
        difference."""
        if os.path.exists(self.directory) and not os.path.isdir(self.directory):
            raise UserError(f"--checkpoint '{self.directory}' is not a directory")
        if not os.path.isfile(self.path):
            try:  # now, so a directory that cannot be made fails before the run, not at save
                os.makedirs(self.directory, exist_ok=True)
            except OSError as exc:
                raise UserError(
                    f"cannot create the --checkpoint directory "
                    f"'{self.directory}': {exc.strerror or exc}"
                ) from None
            return None
        data = self._read()
        where = f"checkpoint '{self.path}'"
        again = "delete it (or use another --checkpoint directory) to start over"
        if data.get("format") != FORMAT:
            raise UserError(
                f"{where} has format {data.get('format')!r}, this sgq reads "
                f"format {FORMAT}; {again}"
            )
        if data.get("sgq") != __version__:
            raise UserError(
                f"{where} was written by sgq {data.get('sgq')}, this is sgq {__version__}; {again}"
            )
        if data.get("fingerprint") != self.fingerprint:
            saved = data.get("settings") if isinstance(data.get("settings"), dict) else {}
            diff = [
                name
                for key, name in _SETTING_NAMES.items()
                if saved.get(key) != self.settings.get(key)
            ] or ["settings"]
            raise UserError(f"{where} was written for a different {', '.join(diff)}; {again}")
        layout = _layout(roots)
        if data.get("layout") != layout:
            raise UserError(f"{where} was written for a plan with other operators; {again}")
        try:
            position = Position(**data["position"])
            decode(data["state"], roots)
        except (StateError, KeyError, TypeError) as exc:
            raise UserError(f"{where} cannot be loaded ({exc}); {again}") from None
        return position

    def _read(self) -> dict:
        import gzip

        try:
            with gzip.open(self.path, "rb") as handle:
                data = json.loads(handle.read())
        except (OSError, EOFError, ValueError) as exc:  # BadGzipFile is an OSError
            raise UserError(
                f"checkpoint '{self.path}' is damaged ({exc}); delete it to start over"
            ) from None
        if not isinstance(data, dict):
            raise UserError(f"checkpoint '{self.path}' is not an sgq checkpoint")
        return data

    # ---- saving
    def save(self, roots: dict[str, Any], position: Position) -> None:
        """Write a checkpoint of `roots` at `position`, atomically. The output files must
        already be flushed and fsync'd up to `position`'s lengths."""
        import gzip

        started = time.perf_counter()
        try:
            state = encode(roots)
        except StateError as exc:
            raise UserError(f"cannot checkpoint this run: {exc}") from None
        position.checkpoints += 1
        data = {
            "format": FORMAT,
            "sgq": __version__,
            "settings": self.settings,
            "fingerprint": self.fingerprint,
            "layout": _layout(roots),
            "position": dataclasses.asdict(position),
            "saved_at": time.time(),
            "state": state,
        }
        blob = gzip.compress(
            json.dumps(data, separators=(",", ":")).encode("utf-8"), compresslevel=1, mtime=0
        )
        tmp = self.path + ".tmp"
        try:
            os.makedirs(self.directory, exist_ok=True)
            with open(tmp, "wb") as handle:
                half = len(blob) // 2
                handle.write(blob[:half])
                if self.kill.armed:
                    handle.flush()
                    self.kill.point("mid-write")
                handle.write(blob[half:])
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, self.path)
        except OSError as exc:  # the previous checkpoint, if any, is still in place
            raise UserError(
                f"cannot write checkpoint '{self.path}': {exc.strerror or exc}"
            ) from None
        fsync_dir(self.directory)
        self.bytes = len(blob)
        self.seconds += time.perf_counter() - started
        self.kill.point("written")


def _layout(roots: dict[str, Any]) -> list:
    """The operator names of the engine's dataflow (`#3 PATH[RL]` ...)."""
    engine = roots.get("engine")
    return list(getattr(getattr(engine, "dataflow", None), "names", []) or [])


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
