"""One `sgq run --engine spark`: a plain driver loop over the input's batches, each run
through the Spark engine, its results written, its state committed.

Why a driver loop and not Structured Streaming's `readStream` + `foreachBatch` for a
finished input (an edge file, a `sgq prepare` directory): the loop gives the same batches
with less machinery. A batch is a slide bucket, known from the times alone, so there is no
need to wait for "a later bucket" to close one, and the batch number is the checkpoint's
offset. An input that grows (`--follow`, a landing directory) is a Structured Streaming
query whose `foreachBatch` function pushes the batches it completes into the same loop
(`start`, `push`; sgq/spark_follow.py).

Output: the single-process engine's formats (sgq/stream_io.py): interval rows
`src,trg,label,ts,exp`, sorted per batch by (ts, src, trg, label) so that a resumed run
writes the same bytes, or the delta view `time,op,src,trg,label`. Two sinks: `FileSink`
collects each batch's rows to the driver and writes one file (incremental/deltas.py's view
fed each batch's rows with the batch's end as the time frontier: every input before it is
in), for small runs; `DirectorySink` (`-o DIR/`) leaves the rows to Spark, whose executors
write one directory per batch (spark_engine/batch_output.py; deltas by the view on Spark,
spark_engine/delta_view.py). A progress line per batch goes to stderr.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator

import attrs

from .base.durable import cut_back, durable_size
from .base.errors import UserError
from .incremental.deltas import DELTA_FIELDS, INTERVAL_FIELDS, DeltaView
from .spark_engine.batch_grid import Batch
from .spark_engine.batch_output import BatchDirectory, is_directory
from .spark_engine.commits import Commit, SparkCheckpoint
from .spark_engine.delta_view import SparkDeltaView
from .spark_engine.engine import BatchReport, SparkEngine
from .spark_source import BatchInput
from .state_codec import StateError, decode, encode
from .stream_io import ResultWriter, open_output


class SparkRun:
    """A run of `engine` writing to `output` (a path, "-" for stdout, or a directory: a
    trailing `/` or an existing one) as `emit` ("intervals" or "deltas") in `fmt` ("csv" or
    "jsonl"; a directory is CSV), checkpointed in `ckpt`."""

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
        self.ckpt = ckpt
        self.report = report
        if output != "-" and is_directory(output):
            self.sink: FileSink | DirectorySink = DirectorySink(engine, output, emit)
        else:
            self.sink = FileSink(engine, output, emit, fmt, ckpt is not None)
        self.commit = Commit()
        self.resumed = False
        self.batches = 0
        self.peak_state = 0
        self._skipped_edges = 0
        self._skipped_digest = 0

    @property
    def rows(self) -> int:
        """Rows written: output rows to a file, interval rows to a directory."""
        return self.sink.rows

    def run(self, batches: Iterator[BatchInput]) -> None:
        """Every batch of the input, then the end of input (every expiry, for deltas)."""
        self.start()
        try:
            for got in batches:
                self.push(got)
            self.sink.close(self.last_batch())
        finally:
            self.sink.release()

    def start(self) -> None:
        """Resume from the checkpoint (if any), open the output."""
        if self.ckpt is not None:
            self._resume()
        self.sink.open(self.commit if self.resumed else None)

    def push(self, got: BatchInput) -> None:
        """Run one batch (or skip it, when the checkpoint already holds it)."""
        if got.batch.index <= self.commit.batch:
            self._skip(got)
        else:
            self._step(got)

    def last_batch(self) -> Batch | None:
        """The last batch run (or committed before a resume)."""
        if self.commit.batch < 0:
            return None
        return self.engine.grid.batch(self.commit.batch)

    # ---- one batch
    def _step(self, got: BatchInput) -> None:
        report = self.sink.step(got)
        report = attrs.evolve(report, edges=got.count)
        commit = self.commit
        commit.batch = got.batch.index
        commit.edges += got.count
        commit.digest = (commit.digest * 31 + got.digest) & 0xFFFFFFFF
        commit.state_rows = report.state
        self.batches += 1
        self.peak_state = max(self.peak_state, report.state)
        if self.ckpt is not None:
            self.sink.commit_to(commit)
            self.ckpt.kill.point("batch")
            self.engine.save_state(self.ckpt.state_dir(got.batch.index))
            self.ckpt.kill.point("state")
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
        if commit.batch >= 0:
            self.engine.load_state(self.ckpt.state_dir(commit.batch))
        self.sink.resume(commit, self.ckpt.directory)
        print(
            f"sgq run: resuming from checkpoint {self.ckpt.directory} (batch {commit.batch} "
            f"done, {commit.edges:,} edges)",
            file=sys.stderr,
        )


class FileSink:
    """Each batch's rows collected to the driver and written to one file (or stdout)."""

    def __init__(
        self, engine: SparkEngine, output: str, emit: str, fmt: str, checkpointed: bool
    ) -> None:
        if output == "-" and checkpointed:
            raise UserError("--checkpoint needs --output FILE: stdout cannot be cut back to resume")
        self.engine = engine
        self.output = output
        self.fmt = fmt
        self.view = DeltaView() if emit == "deltas" else None
        self.out = None
        self.writer: ResultWriter | None = None
        self.rows = 0

    def resume(self, commit: Commit, directory: str) -> None:
        if self.view is not None:
            try:
                decode(commit.view, {"view": self.view})
            except (StateError, KeyError, TypeError) as exc:
                raise UserError(f"checkpoint '{directory}' cannot be loaded ({exc})") from None

    def open(self, commit: Commit | None) -> None:
        if self.output == "-":
            self.out = sys.stdout
        elif commit is not None:
            cut_back(self.output, commit.output_bytes, "output file")
            self.out = open_output(self.output, "a", "output file")
        else:
            self.out = open_output(self.output, "w", "output file")
        fields = DELTA_FIELDS if self.view is not None else INTERVAL_FIELDS
        header = commit is None or commit.output_bytes == 0  # nothing written before
        self.writer = ResultWriter(self.out, fields, self.fmt, header=header)
        self.writer.rows = commit.rows if commit is not None else 0

    def step(self, got: BatchInput) -> BatchReport:
        rows, report = self.engine.step(got.batch, got.edges, got.labels)
        if self.view is not None:
            self.writer.write_groups(self.view.feed_grouped(rows, got.batch.end))
        else:
            self.writer.write_many(rows)
        return report

    def commit_to(self, commit: Commit) -> None:
        """The file's rows and durable length (and the view) into `commit`."""
        self.writer.flush()
        commit.rows = self.writer.rows
        commit.output_bytes = durable_size(self.out)
        if self.view is not None:
            commit.view = encode({"view": self.view})

    def close(self, last: Batch | None) -> None:
        if self.view is not None:
            self.writer.write_groups(self.view.close_grouped())

    def release(self) -> None:
        if self.writer is not None:
            self.writer.flush()
            self.rows = self.writer.rows
        if self.out is not None and self.out is not sys.stdout:
            self.out.close()


class DirectorySink:
    """Each batch's rows written by Spark into its own directory under `output`."""

    def __init__(self, engine: SparkEngine, output: str, emit: str) -> None:
        self.engine = engine
        self.directory = BatchDirectory(engine.spark, output)
        self.view = None
        if emit == "deltas":
            labels = sorted({root.label for root in engine.outputs})
            self.view = SparkDeltaView(engine.store, engine.view_part(), labels)
        self.fields = DELTA_FIELDS if self.view is not None else INTERVAL_FIELDS
        self.rows = 0

    def resume(self, commit: Commit, directory: str) -> None:
        self.rows = commit.rows

    def open(self, commit: Commit | None) -> None:
        self.directory.clear(after=None if commit is None else commit.batch)

    def step(self, got: BatchInput) -> BatchReport:
        began, jobs = time.perf_counter(), self.engine.store.jobs
        frame, report = self.engine.step_frame(got.batch, got.edges, got.labels)
        if self.view is not None:
            self.view.feed(frame, got.batch)
            self.engine.store.flush()
            frame = self.view.events(got.batch)
        self._write(frame.selectExpr(f"{got.batch.index} AS batch", *self.fields))
        self.rows += report.rows
        return attrs.evolve(
            report,
            jobs=self.engine.store.jobs - jobs,
            seconds=time.perf_counter() - began,
            state=self.engine.store.rows(),
        )

    def commit_to(self, commit: Commit) -> None:
        commit.rows = self.rows

    def close(self, last: Batch | None) -> None:
        if self.view is not None and last is not None:
            self._write(self.view.closing(last, self.engine.grid))

    def release(self) -> None:
        pass

    def _write(self, frame) -> None:
        partitions = int(self.engine.spark.conf.get("spark.sql.shuffle.partitions"))
        self.directory.write(frame, self.fields, partitions)
        self.engine.store.jobs += 1


def progress_line(report: BatchReport) -> str:
    """The line `sgq run --engine spark` prints for a batch."""
    b = report.batch
    return (
        f"batch {b.index} [{b.start}, {b.end}): {report.edges:,} edges, {report.rows:,} rows, "
        f"{report.rounds} closure rounds, {report.jobs} jobs, {report.seconds:.2f}s, "
        f"state {report.state:,} rows"
    )
