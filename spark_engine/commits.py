"""Checkpoints of the Spark engine: after every batch its state tables are persisted and the
batch committed, so a run killed between (or inside) batches resumes exactly once.

The directory holds

    settings.json       what the run's results depend on (program, options, input); another
                        run's settings are refused, naming what differs
    state/<batch>/      every state table after batch <batch> (Parquet, one `part` per
                        table: spark_engine/state_store.py)
    commit.json         the last committed batch: its number, the input edges consumed and
                        their CRC, the output file's rows and bytes, the delta view's state

A batch is committed in this order: its results are written and the output file fsync'd,
its state tables written, then `commit.json` replaced atomically (write, fsync, rename,
fsync the directory); only then are older state directories removed. A crash before the
rename leaves the previous commit in force: the rerun cuts the output back to the
committed length, reloads the committed tables and redoes the batch; one after it finds the
batch done. Either way every batch's results are in the output exactly once, and the file
ends byte-identical to an uninterrupted run's (rows are written sorted per batch).
"""

from __future__ import annotations

import dataclasses
import os
import shutil
from typing import Any

from ..base.durable import (
    START_OVER,
    KillSwitch,
    checkpoint_directory,
    read_checkpoint_json,
    write_json_atomic,
)
from ..base.errors import UserError
from ..base.version import VERSION

FORMAT = 1
SETTINGS = "settings.json"
COMMIT = "commit.json"
STATE = "state"


@dataclasses.dataclass
class Commit:
    """The last committed batch: `batch` its number, `edges` input edges consumed (`digest`
    their CRC, for input read on the driver), `rows` and `output_bytes` of the output file,
    `view` the delta view's encoded state (delta output), `state_rows` in the tables;
    `follow` where a run following a landing directory is (sgq/spark_follow.py)."""

    batch: int = -1
    edges: int = 0
    digest: int = 0
    rows: int = 0
    output_bytes: int = 0
    view: Any = None
    state_rows: int = 0
    follow: Any = None


class SparkCheckpoint:
    """The checkpoint directory of one Spark engine run."""

    def __init__(self, directory: str, settings: dict, kill_at: str | None = None) -> None:
        self.directory = directory
        self.settings = {"format": FORMAT, "sgq": VERSION, **settings}
        self.kill = KillSwitch(kill_at)

    def state_dir(self, batch: int) -> str:
        return os.path.join(self.directory, STATE, str(batch))

    def load(self) -> Commit | None:
        """The last commit (None: a fresh start, and the directory is set up now); a
        checkpoint of other settings is a UserError naming what differs."""
        again = START_OVER
        settings_path = os.path.join(self.directory, SETTINGS)
        if not checkpoint_directory(self.directory) or not os.path.isfile(settings_path):
            try:
                write_json_atomic(settings_path, self.settings)
            except OSError as exc:
                raise UserError(
                    f"cannot create the --checkpoint directory '{self.directory}': "
                    f"{exc.strerror or exc}"
                ) from None
            return None
        saved = read_checkpoint_json(settings_path)
        if saved != self.settings:
            diff = sorted(
                k for k in set(saved) | set(self.settings) if saved.get(k) != self.settings.get(k)
            )
            raise UserError(
                f"checkpoint '{self.directory}' was written for a different "
                f"{', '.join(diff)}; {again}"
            )
        commit_path = os.path.join(self.directory, COMMIT)
        if not os.path.isfile(commit_path):
            return None
        data = read_checkpoint_json(commit_path)
        try:
            commit = Commit(**data)
        except TypeError as exc:
            raise UserError(
                f"checkpoint '{commit_path}' cannot be loaded ({exc}); {again}"
            ) from None
        if commit.batch >= 0 and not os.path.isdir(self.state_dir(commit.batch)):
            raise UserError(
                f"checkpoint '{self.directory}' lacks the state of batch {commit.batch}; {again}"
            )
        return commit

    def save(self, commit: Commit) -> None:
        """Commit `commit` (its state directory already written), then drop older state."""
        write_json_atomic(os.path.join(self.directory, COMMIT), dataclasses.asdict(commit))
        self.kill.point("written")
        root = os.path.join(self.directory, STATE)
        for name in os.listdir(root) if os.path.isdir(root) else ():
            if name != str(commit.batch):
                shutil.rmtree(os.path.join(root, name), ignore_errors=True)
