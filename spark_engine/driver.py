"""One `sgq run --engine spark`: a plain driver loop over the input's batches, each run
through the Spark engine, its results written, its state committed.

Why a driver loop and not Structured Streaming's `readStream` + `foreachBatch` (the issue's
suggestion): for a finished input (an edge file, a `sgq prepare` directory) the loop gives
the same batches with less machinery. A batch is a slide bucket, known from the times
alone, so there is no need to wait for "a later bucket" to close one; the batch number is
the checkpoint's offset, so Spark's own offset log and commit log would only duplicate
spark_engine/commits.py; and the file source orders files by modification time, not by
bucket. `SparkEngine.step(batch, edges, labels)` is what a `foreachBatch` function would
call, so a streaming source (Kafka) can drive the same engine later.

Output: the single-process engine's formats (sgq/stream_io.py): interval rows
`src,trg,label,ts,exp`, sorted per batch by (ts, src, trg, label) so that a resumed run
writes the same bytes, or the delta view `time,op,src,trg,label` (incremental/deltas.py,
fed each batch's rows with the batch's end as the time frontier: every input before it is
in). A progress line per batch goes to stderr.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator

import attrs

from ..checkpoint import cut_back, durable_size
from ..errors import UserError
from ..incremental.deltas import DeltaView
from ..state_codec import StateError, decode, encode
from ..stream_io import DELTA_FIELDS, INTERVAL_FIELDS, ResultWriter, open_output
from .commits import Commit, SparkCheckpoint
from .engine import BatchReport, SparkEngine
from .source import BatchInput


class SparkRun:
    """A run of `engine` writing to `output` (a path, or "-" for stdout) as `emit`
    ("intervals" or "deltas") in `fmt` ("csv" or "jsonl"), checkpointed in `ckpt`."""

    def __init__(
        self,
        engine: SparkEngine,
        output: str,
        emit: str = "intervals",
        fmt: str = "csv",
        ckpt: SparkCheckpoint | None = None,
        report: Callable[[BatchReport], None] | None = None,
    ) -> None:
        self.engine = engine
        self.output = output
        self.emit = emit
        self.fmt = fmt
        self.ckpt = ckpt
        self.report = report
        self.view = DeltaView() if emit == "deltas" else None
        self.commit = Commit()
        self.resumed = False
        self.batches = 0
        self.peak_state = 0
        self.rows = 0
        self._skipped_edges = 0
        self._skipped_digest = 0

    def run(self, batches: Iterator[BatchInput]) -> None:
        """Every batch of the input, then the end of input (every expiry, for deltas)."""
        if self.ckpt is not None:
            self._resume()
        out = self._open()
        writer = ResultWriter(
            out,
            DELTA_FIELDS if self.view is not None else INTERVAL_FIELDS,
            self.fmt,
            header=not self.resumed,
        )
        writer.rows = self.commit.rows
        try:
            for got in batches:
                if got.batch.index <= self.commit.batch:
                    self._skip(got)
                    continue
                self._step(got, writer, out)
            if self.view is not None:
                writer.write_groups(self.view.close_grouped())
        finally:
            writer.flush()
            if out is not sys.stdout:
                out.close()
        self.rows = writer.rows

    # ---- one batch
    def _step(self, got: BatchInput, writer: ResultWriter, out) -> None:
        rows, report = self.engine.step(got.batch, got.edges, got.labels)
        report = attrs.evolve(report, edges=got.count)
        if self.view is not None:
            writer.write_groups(self.view.feed_grouped(rows, got.batch.end))
        else:
            writer.write_many(rows)
        commit = self.commit
        commit.batch = got.batch.index
        commit.edges += got.count
        commit.digest = (commit.digest * 31 + got.digest) & 0xFFFFFFFF
        commit.rows = writer.rows
        commit.state_rows = report.state
        self.batches += 1
        self.peak_state = max(self.peak_state, report.state)
        if self.ckpt is not None:
            writer.flush()
            commit.output_bytes = durable_size(out)
            self.ckpt.kill.point("batch")
            self.engine.save_state(self.ckpt.state_dir(got.batch.index))
            self.ckpt.kill.point("state")
            if self.view is not None:
                commit.view = encode({"view": self.view})
            self.ckpt.save(commit)
        if self.report is not None:
            self.report(report)

    def _skip(self, got: BatchInput) -> None:
        """A batch the checkpoint holds: consumed again from the input, checked, not run."""
        self._skipped_edges += got.count
        self._skipped_digest = (self._skipped_digest * 31 + got.digest) & 0xFFFFFFFF
        if got.batch.index == self.commit.batch and (
            self._skipped_edges != self.commit.edges or self._skipped_digest != self.commit.digest
        ):
            raise UserError(
                f"the input's first {self._skipped_edges:,} edges (to batch {got.batch.index}) "
                f"differ from the {self.commit.edges:,} the checkpoint consumed; is it the "
                "same input? (delete the checkpoint to start over)"
            )

    # ---- set-up
    def _resume(self) -> None:
        commit = self.ckpt.load()
        if commit is None:
            return
        self.commit = commit
        self.resumed = True
        self.engine.load_state(self.ckpt.state_dir(commit.batch))
        if self.view is not None:
            try:
                decode(commit.view, {"view": self.view})
            except (StateError, KeyError, TypeError) as exc:
                raise UserError(
                    f"checkpoint '{self.ckpt.directory}' cannot be loaded ({exc})"
                ) from None
        print(
            f"sgq run: resuming from checkpoint {self.ckpt.directory} (batch {commit.batch} "
            f"done, {commit.edges:,} edges)",
            file=sys.stderr,
        )

    def _open(self):
        if self.output == "-":
            if self.ckpt is not None:
                raise UserError(
                    "--checkpoint needs --output FILE: stdout cannot be cut back to resume"
                )
            return sys.stdout
        if self.resumed:
            cut_back(self.output, self.commit.output_bytes, "output file")
            return open_output(self.output, "a", "output file")
        return open_output(self.output, "w", "output file")


def progress_line(report: BatchReport) -> str:
    """The line `sgq run --engine spark` prints for a batch."""
    b = report.batch
    return (
        f"batch {b.index} [{b.start}, {b.end}): {report.edges:,} edges, {report.rows:,} rows, "
        f"{report.rounds} closure rounds, {report.jobs} jobs, {report.seconds:.2f}s, "
        f"state {report.state:,} rows"
    )
