"""One `sgq run` in progress: the engine, the output and rejects files, checkpoints, the
progress bar and metrics, fed batch by batch by a reader (a finished input in
sgq/commands/run.py, a growing one in sgq/live.py).

Every batch's results are written as soon as the engine gives them (specs/semantics.md §5); with
`--checkpoint` the run's state is saved at batch boundaries (sgq/checkpoint.py), where every
edge handed over is in the engine and its results are in the output file.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable

from .base.durable import cut_back, durable_size
from .checkpoint import Checkpoints, Position, edge_digest
from .evaluation import Evaluation
from .incremental.deltas import DELTA_FIELDS, INTERVAL_FIELDS, csv_plain
from .metrics import RunMetrics
from .progress import Progress, human
from .rejects import Rejects, rejects_path
from .stream_io import ResultWriter, open_output, path_text


class RunJob:
    """The state of one run. `n` edges handed over so far (`digest` their CRC); `live`: the
    output is flushed after every batch (a followed input: readers see results at once);
    `properties`: the input's property names (None: it has none)."""

    def __init__(
        self,
        args: argparse.Namespace,
        query,
        ckpt: Checkpoints | None,
        *,
        live: bool = False,
        total: int | None = None,
        properties: tuple[str, ...] | None = None,
    ) -> None:
        self.args = args
        self.ckpt = ckpt
        self.live = live
        self.deltas = args.emit == "deltas"
        self.evaluation = Evaluation(
            query,
            args.emit,
            paths=args.paths,
            sort_rows=ckpt is not None,
            segments=True,
            properties=properties,
        )
        self.engine = self.evaluation.engine
        #: every output label is a name CSV writes as it is (a quoted predicate name may not
        #: be): with `Engine.plain_vertices`, delta lines need no check (`write_groups`)
        self.plain_labels = all(
            csv_plain(label) for label in self.engine.dataflow.output_labels.values()
        )
        # the delta view is the engine's own (its native producers write to it): one root
        self.roots = {"engine": self.engine}
        self.resume: Position | None = ckpt.load(self.roots) if ckpt is not None else None
        self.state = self.resume if self.resume is not None else Position()
        self.n = self.state.edges
        self.digest = self.state.digest
        self.last_saved = self.n
        self.out = None
        self.writer: ResultWriter | None = None
        self.rejects: Rejects | None = None
        self.metrics: RunMetrics | None = None
        self.progress = Progress(total, enabled=False if args.no_progress else None)

    # ---- set-up
    def open_rejects(self, replay: bool) -> Rejects:
        """The rejects file; `replay`: a resumed reader reads the input again from its start."""
        self.rejects = Rejects(rejects_path(self.args), self.resume, replay=replay)
        return self.rejects

    def open_output(self) -> None:
        """The output file (cut back to the checkpoint's length when resuming) and its writer;
        opened once the input is known to be readable, so a bad input leaves it alone."""
        args = self.args
        if args.output == "-":
            self.out = sys.stdout
        elif self.resume is not None:
            cut_back(args.output, self.resume.output_bytes, "output file")
            self.out = open_output(args.output, "a", "output file")
        else:
            self.out = open_output(args.output, "w", "output file")
        self.writer = self._writer()

    def _writer(self) -> ResultWriter:
        args = self.args
        if self.deltas:
            fields = DELTA_FIELDS
        else:
            fields = INTERVAL_FIELDS + (("path",) if args.paths else ())
        out_fmt = output_format(args)
        writer = ResultWriter(self.out, fields, out_fmt, header=self.resume is None)
        if self.resume is not None:
            writer.rows = self.resume.rows
        return writer

    def start_metrics(self, program: str) -> None:
        """`--metrics-port` / `--metrics-file`, if asked for."""
        args = self.args
        if args.metrics_port is None and args.metrics_file is None:
            return
        info = {"program": program, "emit": args.emit}
        self.metrics = RunMetrics(args.metrics_port, args.metrics_file, args.metrics_interval, info)
        self.publish(force=True)

    def announce_resume(self, where: str) -> None:
        print(
            f"sgq run: resuming from checkpoint {self.args.checkpoint} "
            f"({self.resume.edges:,} edges done{where})",
            file=sys.stderr,
        )

    # ---- batches
    def push(self, batch: list, may_checkpoint: bool = True) -> None:
        """Hand one batch to the engine and write what it made final."""
        started = time.perf_counter() if self.metrics is not None else 0.0
        self.write(self.evaluation.push(batch))
        self.n += len(batch)
        ckpt = self.ckpt
        if ckpt is not None:
            self.digest = edge_digest(batch, self.digest)
            ckpt.kill.point("batch", before=self.writer.flush)
            if may_checkpoint and self.checkpoint_due():
                self.checkpoint()
        if self.live:
            self.writer.flush()
        if self.metrics is not None:
            self.metrics.batch_done(time.perf_counter() - started)
            if self.metrics.due():
                self.publish()

    def left_out(self, count: int) -> None:
        """`count` edges read but left out before the engine (their labels no rule reads):
        counted as the engine counts those it ignores."""
        self.n += count
        self.engine.count_ignored(count)

    def advance(self, t: int) -> None:
        """No edge before `t` will come: write what that makes final."""
        if t > self.engine.time:
            self.write(self.evaluation.advance(t))

    def write(self, results: list) -> None:
        """Interval rows (tuples, `Engine.drain_rows`, or segments, `Engine.drain_segments`)
        or delta groups, as the evaluation gives them."""
        writer = self.writer
        if self.deltas:
            writer.write_groups(results, self.plain_labels and self.engine.plain_vertices)
        elif self.evaluation.segments:
            writer.write_segments(results, self.engine.plain_vertices)
        elif self.args.paths:
            writer.write_many([(*r[:5], path_text(r[5])) for r in results])
        else:
            writer.write_results(results)

    def draw_progress(self, done: int | None) -> None:
        stats = self.engine.stats()
        self.progress.update(
            done, edges=self.n, results=self.writer.rows, state=stats.get("state", 0)
        )

    # ---- checkpoints
    def checkpoint_due(self) -> bool:
        return self.ckpt is not None and self.n - self.last_saved >= self.args.checkpoint_every

    def checkpoint(self, before_save: Callable[[int], None] | None = None) -> None:
        """Save the run's state now (a batch boundary). `before_save(k)` writes what the
        reader keeps beside the k-th checkpoint (sgq/live.py) before it is put in place."""
        self.writer.flush()
        state = self.state
        state.edges, state.digest, state.rows = self.n, self.digest, self.writer.rows
        state.output_bytes = durable_size(self.out)
        state.rejects_bytes, state.skipped, state.dropped = self.rejects.durable()
        if before_save is not None:
            before_save(state.checkpoints + 1)
        self.ckpt.save(self.roots, state)
        self.last_saved = self.n
        if self.metrics is not None:
            self.metrics.checkpoint_done()
            self.publish(force=True)

    def final_checkpoint(self) -> None:
        """At the end of the input, before close: a rerun only redoes the end."""
        if self.ckpt is not None and (self.n != self.last_saved or self.state.checkpoints == 0):
            self.checkpoint()

    # ---- the end
    def close_input(self) -> None:
        """The input has ended: time runs on, every result's expiry is written."""
        self.write(self.evaluation.close())

    def publish(self, force: bool = False) -> None:
        """A metrics snapshot (at most one per SNAPSHOT_SECONDS unless `force`)."""
        metrics = self.metrics
        if metrics is None or not (force or metrics.due()):
            return
        stats = self.engine.stats()
        rejects = self.rejects
        t = stats["time"]
        metrics.publish(
            {
                "sgq_edges_in_total": self.n,
                "sgq_edges_rejected_total": rejects.skipped if rejects else 0,
                "sgq_edges_late_total": rejects.dropped if rejects else 0,
                "sgq_edges_ignored_total": stats["ignored_edges"],
                "sgq_results_out_total": self.writer.rows if self.writer else 0,
                "sgq_unmatched_deletions_total": stats["unmatched_deletions"],
                "sgq_checkpoints_total": self.state.checkpoints
                - (self.resume.checkpoints if self.resume else 0),
                "sgq_state_entries": stats["state"],
                "sgq_state_entries_peak": stats["peak_state"],
                "sgq_event_time": t if math.isfinite(t) else None,
            },
            stats["operators"],
        )

    def close(self) -> None:
        """Close every file (also after an error); the metrics get their final snapshot."""
        self.progress.done()
        try:
            if self.metrics is not None:
                self.publish(force=True)
                self.metrics.close()
        finally:
            if self.rejects is not None:
                self.rejects.close()
            if self.writer is not None:
                self.writer.flush()
            if self.out is not None and self.out is not sys.stdout:
                self.out.close()

    def summary(self) -> str:
        """The final stats line: `sgq run: N edges, M results in ...`."""
        stats = self.engine.stats()
        elapsed = self.progress.elapsed
        rate = self.n / elapsed if elapsed > 0 else 0.0
        extra = ""
        rejects = self.rejects
        if rejects is not None and (rejects.skipped or rejects.dropped):
            extra = (
                f", {rejects.skipped:,} bad lines skipped, {rejects.dropped:,} late edges "
                f"dropped (see {rejects.path})"
            )
        unmatched = stats.get("unmatched_deletions", 0)
        if unmatched:
            extra += f", {unmatched:,} deletions matched nothing"
        ckpt = self.ckpt
        if ckpt is not None and ckpt.bytes:
            extra += (
                f", checkpoint {ckpt.bytes / 1e6:.1f} MB ({self.state.checkpoints:,} written, "
                f"{ckpt.seconds:.2f}s)"
            )
        rows = self.writer.rows if self.writer is not None else 0
        return (
            f"sgq run: {self.n:,} edges, {rows:,} "
            f"{'deltas' if self.deltas else 'results'} in {elapsed:.2f}s ({human(rate)} edges/s), "
            f"peak state {stats.get('peak_state', stats.get('state', 0)):,}{extra}"
        )


def output_format(args: argparse.Namespace) -> str:
    """jsonl for an output file named .jsonl or .ndjson, else csv."""
    return "jsonl" if args.output.lower().endswith((".jsonl", ".ndjson")) else "csv"
