"""`sgq run --engine spark --follow DIR`: the Spark engine over a landing directory that grows,
as a Structured Streaming query (`readStream` of sgq/spark_landing.py,
`writeStream.foreachBatch`), each micro-batch's new `sgq prepare` outputs handed to the
batch loop of sgq/spark_run.py.

A stream micro-batch is not an engine batch: the outputs that land carry edges of any
instants, and an engine batch (a slide bucket, spark_engine/batch_grid.py) is run only once
it is complete, i.e. once a later one has been seen (an edge of a later time: the outputs
are read in time order), on `--idle-flush` after S seconds without a new output, and, at a
stop without `--checkpoint`, the open one. Until then its edges are *held*: the part files
that hold them are kept in a list (with the time from which they are still to be run), not
their rows, so the driver keeps no edge and nothing is copied; the landing directory must
keep its files while they are held, as it must for the single-process `--follow`, whose
checkpoint also points into it. Each run batch reads its edges from the held files with
Spark's Parquet reader (sgq/spark_source.py `parquet_batches`).

Order (specs/semantics.md §1), with the single-process `--follow`'s rules and messages
(sgq/reorder.py `Reorder`): an output whose first time is before the last time read is
walked on the driver from its start, so that an edge that goes back in time stops the run
(`FILE:ROW: time t is earlier than ...`), and, once `--idle-flush` has run a batch, an edge
of that batch or before is dropped as late (reported in the rejects file, `--rejects` or
OUT.rejects.csv). The unit that closes is the batch, not the instant: an edge after the
last time read but within a batch that `--idle-flush` ran is late too.

Exactly once, with `--checkpoint DIR`: Spark's own checkpoint (`DIR/stream/`) records which
outputs each micro-batch took (its offset log) and which micro-batches are done (its commit
log); ours (`DIR/commit.json`, spark_engine/commits.py) records, with every batch committed,
where the reader is: the last micro-batch taken, the last output read, the held files, the
times seen. A micro-batch is taken in one commit before any batch runs; after a kill
between that commit and Spark's commit log, Spark runs the micro-batch again and it is
skipped (its number is not above the one committed); after a kill before it, nothing of it
was kept and it is taken again. The batches a taken micro-batch closed are run from the
held files whenever the run starts again.

Stop: SIGINT/SIGTERM (sgq/live.py `StopRequest`) waits for the micro-batch under way to
end; a micro-batch Spark starts after that fails unrun, so Spark runs it again on restart.
As with the single-process `--follow`, the end of input is not written (the stream has not
ended: expiries to come are not written).
"""

from __future__ import annotations

import math
import os
import threading
import time
from types import SimpleNamespace

from .base.errors import UserError
from .parquet_input import manifest, read_prepared, time_range
from .rejects import Rejects
from .reorder import Reorder
from .spark_landing import NAME, LandingSource
from .spark_run import SparkRun
from .spark_source import parquet_batches

#: how often Spark looks for new outputs
TRIGGER = "1 second"


class _Stopped(Exception):
    """A micro-batch started after a stop request: failed unrun, for a restart to run."""


class FollowRun:
    """`run` (a SparkRun) fed from the landing directory `landing`; Spark's streaming
    checkpoint in `stream_dir`; late edges reported to `rejects` (a path, or None: they stop
    the run); `idle`: the seconds of `--idle-flush`."""

    def __init__(
        self,
        run: SparkRun,
        landing: str,
        stream_dir: str,
        rejects: str | None = None,
        idle: float | None = None,
    ) -> None:
        self.run = run
        self.engine = run.engine
        self.landing = landing
        self.stream_dir = stream_dir
        self.rejects_path = rejects
        self.idle = idle
        self.lock = threading.Lock()
        self.stopping = False
        self.error: Exception | None = None
        self.query = None
        self.position = [0]
        self.reorder = Reorder(landing, self.position)
        self.rejects: Rejects | None = None
        self.stream = -1  # the last micro-batch taken
        self.after: str | None = None  # the last output read
        self.held: list[dict] = []  # {"name", "files", "first", "last"}: outputs to run
        self.last_data = time.monotonic()
        self.idle_done = True  # nothing landed since the last idle flush

    # ---- start, stop
    def start(self) -> None:
        """Resume (run what a taken micro-batch closed), then start the streaming query."""
        self.run.start()
        place = self.run.commit.follow
        if self.run.resumed and place is None:
            raise UserError(
                f"checkpoint '{self.run.ckpt.directory}' was written without --follow: resume "
                "it without --follow, or delete it to start over"
            )
        if place is not None:
            self.stream, self.after, self.held = place["stream"], place["after"], place["held"]
            self.reorder.restore(place["reorder"])
        if self.rejects_path is not None:
            saved = SimpleNamespace(
                rejects_bytes=place["rejects"][0] if place else 0,
                skipped=0,
                dropped=place["rejects"][1] if place else 0,
            )
            self.rejects = Rejects(self.rejects_path, saved if place else None, replay=False)
            self.reorder.on_late = self.rejects.late_edge
        self._evaluate()
        spark = self.engine.spark
        spark.dataSource.register(LandingSource)
        names = spark.readStream.format(NAME).option("path", self.landing).load()
        self.query = (
            names.writeStream.foreachBatch(self._micro_batch)
            .option("checkpointLocation", self.stream_dir)
            .trigger(processingTime=TRIGGER)
            .queryName(f"sgq-follow-{os.getpid()}")
            .start()
        )

    def follow(self, stop) -> None:
        """Until `stop.requested` (sgq/live.py StopRequest): idle flushes, errors."""
        while not stop.requested:
            try:
                if self.query.awaitTermination(0.2):
                    break
            except Exception:  # the query failed: stop() says why
                break
            if self.idle is not None and not self.idle_done:
                if time.monotonic() - self.last_data >= self.idle:
                    self.idle_flush()
        self.stop()

    def process_available(self) -> None:
        """Take every output landed so far (tests; `StreamingQuery.processAllAvailable`)."""
        try:
            self.query.processAllAvailable()
        except Exception:
            self._raise_error()
            raise

    def idle_flush(self) -> None:
        """The stream is quiet: run the open batch too."""
        with self.lock:
            if self.stopping:
                return
            self.idle_done = True
            self._evaluate(open_too=True)

    def stop(self) -> None:
        """Stop the query after the micro-batch under way; without a checkpoint, run the
        open batch (every edge read is handed over, as the single-process `--follow` does)."""
        with self.lock:
            self.stopping = True
        if self.query is not None:
            self.query.stop()
        try:
            self._raise_error()
            if self.run.ckpt is None:
                self._evaluate(open_too=True)
        finally:
            if self.rejects is not None:
                self.rejects.close()
            self.run.sink.release()

    def _raise_error(self) -> None:
        """The error that ended the query, as the UserError it was, if one."""
        if self.error is not None:
            raise self.error
        exc = self.query.exception() if self.query is not None else None
        if exc is not None and "_Stopped" not in str(exc):
            first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            raise UserError(f"the streaming query failed: {first}")

    # ---- one micro-batch
    def _micro_batch(self, frame, number: int) -> None:
        with self.lock:
            if self.stopping:
                raise _Stopped(number)
            try:
                if number > self.stream:
                    self._take(sorted(r["name"] for r in frame.collect()), number)
                    self._evaluate()
            except Exception as exc:
                self.error = exc
                raise

    def _take(self, names: list[str], number: int) -> None:
        """The outputs of micro-batch `number`: checked for order, held; then committed."""
        for name in names:
            if self.after is None or name > self.after:
                self._land(name)
                self.after = name
        self.stream = number
        self.last_data = time.monotonic()
        self.idle_done = False
        self._commit()
        if self.run.ckpt is not None:
            self.run.ckpt.kill.point("stream")

    def _land(self, name: str) -> None:
        path = os.path.join(self.landing, name)
        files = [os.path.join(path, rel) for rel in manifest(path)["edges"]]
        span = time_range(files)
        if span is None:
            return
        reorder = self.reorder
        high = -math.inf if reorder.high is None else reorder.high
        if span[0] < max(high, reorder.floor):
            self._walk(path, max(high, reorder.floor))
        reorder.high = span[1] if reorder.high is None else max(reorder.high, span[1])
        self.held.append({"name": name, "files": files, "first": span[0], "last": span[1]})

    def _walk(self, path: str, bound: float) -> None:
        """The rows of `path` before `bound` through the order check: late ones reported
        (and left out: they are before every batch still to run), any other an error."""
        self.reorder.filename = path
        for row, edge in enumerate(read_prepared(path), start=1):
            if edge[3] >= bound:
                break
            self.position[0] = row
            self.reorder.add(edge)
        if self.rejects is not None:
            self.rejects.flush()

    # ---- running batches
    def _evaluate(self, open_too: bool = False) -> None:
        """Run the complete batches among the held edges (and the open one: `open_too`),
        each committed with the reader's place; drop the outputs fully run."""
        high = self.reorder.high
        if high is None:
            return
        grid, run = self.engine.grid, self.run
        since = grid.batch(run.commit.batch).end if run.commit.batch >= 0 else None
        open_batch = grid.batch(grid.batch_of(high))
        stop_at = open_batch.end if open_too else open_batch.start
        first = min((h["first"] for h in self.held), default=stop_at)
        if max(first, -math.inf if since is None else since) >= stop_at:
            return
        if open_too:  # from now on, an edge of the open batch or before is late
            self.reorder.floor = max(self.reorder.floor, open_batch.end)
        files = [f for held in self.held for f in held["files"]]
        for got in parquet_batches(
            self.engine.spark,
            files,
            grid,
            self.engine.labels,
            self.landing,
            since,
            self.engine.keys,
        ):
            if got.batch.end > stop_at:
                break
            run.commit.follow = self._place()
            run.push(got)
        done = grid.batch(run.commit.batch).end if run.commit.batch >= 0 else -math.inf
        self.held = [h for h in self.held if h["last"] >= done]
        self._commit()

    def _place(self) -> dict:
        rejects = [0, 0]
        if self.rejects is not None:
            size, _, dropped = self.rejects.durable()
            rejects = [size, dropped]
        return {
            "stream": self.stream,
            "after": self.after,
            "held": self.held,
            "reorder": self.reorder.state(),
            "rejects": rejects,
        }

    def _commit(self) -> None:
        """The reader's place into the checkpoint (with the last batch's commit)."""
        self.run.commit.follow = self._place()
        if self.run.ckpt is not None:
            self.run.ckpt.save(self.run.commit)
