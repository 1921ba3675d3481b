"""Checkpoints of `sgq run`: save the run's state now and then, resume from it after a crash.

A checkpoint is one file, `DIR/checkpoint.json.gz`: gzip'd JSON (no pickle, no eval) holding

- `format` (this module's FORMAT) and `sgq` (the version that wrote it): another format or
  another sgq version is refused, because the engine's state classes may differ;
- `settings` and their `fingerprint`: the program text's SHA-256 and every option that shapes
  the results, the engine's state or the input read (window, slide, emit, paths, the plan
  options of base/options.py, columns, format, lateness, on-error, output format); a
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
import time
import zlib
from typing import Any

from .base.durable import (
    START_OVER,
    KillSwitch,
    checkpoint_directory,
    read_checkpoint_json,
    text_digest,
    write_atomic,
)
from .base.errors import UserError
from .base.version import VERSION
from .state_codec import StateError, decode, encode

FORMAT = 6  # the layout above: settings with the plan options, each part's own state()
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
    "rewrites": "--rewrite",
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
    """The running CRC-32 of `edges` `(src, trg, label, ts, op[, props])` (all of one input:
    with properties or without): a resumed run checks that the input it skips is the input
    the checkpoint consumed. O(1) per edge (per property)."""
    crc32 = zlib.crc32
    if edges and len(edges[0]) > 5:
        for e in edges:
            crc = crc32(
                f"{e[0]}\x1f{e[1]}\x1f{e[2]}\x1f{e[3]}\x1f{e[4]}\x1f{e[5]!r}\n".encode(), crc
            )
        return crc
    for e in edges:
        crc = crc32(f"{e[0]}\x1f{e[1]}\x1f{e[2]}\x1f{e[3]}\x1f{e[4]}\n".encode(), crc)
    return crc


def _fingerprint(settings: dict) -> str:
    return text_digest(json.dumps(settings, sort_keys=True, separators=(",", ":")))


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
        if not checkpoint_directory(self.directory) or not os.path.isfile(self.path):
            return None
        import gzip  # only with a checkpoint: a few ms of every start otherwise

        data = read_checkpoint_json(self.path, gzip.open)
        where = f"checkpoint '{self.path}'"
        again = START_OVER
        if data.get("format") != FORMAT:
            raise UserError(
                f"{where} has format {data.get('format')!r}, this sgq reads "
                f"format {FORMAT}; {again}"
            )
        if data.get("sgq") != VERSION:
            raise UserError(
                f"{where} was written by sgq {data.get('sgq')}, this is sgq {VERSION}; {again}"
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
            "sgq": VERSION,
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
        try:
            os.makedirs(self.directory, exist_ok=True)
            write_atomic(self.path, blob, self.kill)
        except OSError as exc:  # the previous checkpoint, if any, is still in place
            raise UserError(
                f"cannot write checkpoint '{self.path}': {exc.strerror or exc}"
            ) from None
        self.bytes = len(blob)
        self.seconds += time.perf_counter() - started
        self.kill.point("written")


def _layout(roots: dict[str, Any]) -> list:
    """The operator names of the engine's dataflow (`#3 PATH[RL]` ...)."""
    engine = roots.get("engine")
    return list(getattr(getattr(engine, "dataflow", None), "names", []) or [])
