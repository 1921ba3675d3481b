"""`sgq run --follow`: the run loop of an input that grows (sources in sgq/follow.py).

Edges are handed to the engine as soon as their instant is complete: a later time has been
read (with `--max-lateness D`, a time more than D later), so no edge of it can still come; the
engine's frontier then moves there and every result before it is written and flushed. The
edges of the last instant wait in `pending` for more of their time.

`--idle-flush S`: when no edge has arrived for S seconds of wall clock, the stream is taken as
complete up to the last time read: the held edges are handed over and the frontier moves past
that time, so every result and expiry up to it is written. An edge that arrives later with a
time at or before it is late: dropped and reported in the rejects file, as edges beyond
`--max-lateness` are (so a writer should end its bursts at the end of an instant).

SIGINT and SIGTERM stop the loop at the next edge or tick (a second SIGINT stops at once).
With `--checkpoint` a final checkpoint is written; the reader's place and the edges read but
not yet handed over are kept beside it (`follow-K.json`, K the checkpoint's number, written
before the checkpoint is put in place), so the same command resumes exactly there, even in
another generation of a rotated file. Without `--checkpoint`, the edges read are handed over
first. The engine is not closed: the stream has not ended, so expiries to come are not
written.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import signal
import time

from .base.errors import UserError
from .evaluation import BATCH_EDGES, batches
from .follow import FileTail, LandingDir, check_landing_dir, landed, tail_edges
from .parquet_input import prepared_properties
from .reorder import Reorder
from .run_job import RunJob
from .stream_io import TICK, StreamError, file_properties, guess_format

SIDECAR = "follow-{}.json"


class StopRequest:
    """Set by SIGINT/SIGTERM while installed; a second SIGINT interrupts at once."""

    def __init__(self) -> None:
        self.requested = False
        self._old: dict = {}

    def _handle(self, signum, frame) -> None:
        if self.requested and signum == signal.SIGINT:
            raise KeyboardInterrupt
        self.requested = True

    def __enter__(self) -> StopRequest:
        for sig in (signal.SIGINT, signal.SIGTERM):
            self._old[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(self, *exc) -> None:
        for sig, old in self._old.items():
            signal.signal(sig, old)


def check_arguments(args: argparse.Namespace) -> None:
    """What `--follow` and `--idle-flush` need, as one-line errors."""
    if args.idle_flush is not None and not args.follow:
        raise UserError("--idle-flush needs --follow (a finished input is flushed at its end)")
    if not args.follow:
        return
    if args.input == "-":
        raise UserError("--follow needs --input FILE or DIR (stdin streams already)")
    if args.input.endswith(".gz"):
        raise UserError("--follow reads a plain text file as it grows, not a .gz file")
    if os.path.isdir(args.input) and (args.format or args.columns):
        raise UserError("--format and --columns do not apply to a directory of sgq prepare outputs")


def follow_properties(args: argparse.Namespace, columns) -> tuple[str, ...] | None:
    """The property names of a followed input (None: it has none; specs/semantics.md §1):
    those of the file's head as it is now, or of the first output landed in the directory.
    An input that holds no line yet has none."""
    path = args.input
    if os.path.isdir(path):
        check_landing_dir(path)
        first = landed(path, None, limit=1)
        return prepared_properties(os.path.join(path, first[0])) if first else None
    if not os.path.isfile(path):
        return None
    return file_properties(path, args.format, columns)


def follow_input(job: RunJob, args: argparse.Namespace, columns) -> None:
    """Read the growing input until a stop request, handing complete instants to `job`."""
    saved = _load_sidecar(job, args)
    position = [saved["line"] if saved else 0]
    rejects = job.open_rejects(replay=False)
    on_error = rejects.bad_line if args.on_error == "skip" else None
    # --max-lateness and --idle-flush accept that some edges come too late: dropped, reported
    late_ok = args.on_error == "skip" or args.max_lateness is not None or args.idle_flush
    on_late = rejects.late_edge if late_ok else None
    if os.path.isdir(args.input):
        source = LandingDir(args.input, resume=saved["source"] if saved else None)
        items = source.edges(position)
    else:
        source = FileTail(args.input, resume=saved["source"] if saved else None)
        fmt = args.format or guess_format(args.input)
        names = job.evaluation.properties
        items = tail_edges(source, fmt, columns, on_error, position, position[0], names)
    reorder = Reorder(args.input, position, args.max_lateness, on_late, job.evaluation.limit)
    loop = _Loop(job, source, reorder, position, args.idle_flush)
    if saved:
        reorder.restore(saved["reorder"])
        loop.pending = [tuple(e) for e in saved["pending"]]
        job.announce_resume(", reading on where it stopped")
    job.open_output()
    try:
        with StopRequest() as stop:
            loop.run(items, stop)
    finally:
        if hasattr(source, "close"):
            source.close()


class _Loop:
    """The loop itself: edges and ticks in, batches to the job."""

    def __init__(self, job: RunJob, source, reorder: Reorder, position, idle: float | None):
        self.job, self.source, self.reorder = job, source, reorder
        self.position = position
        self.idle = idle
        self.pending: list = []  # edges released in time order, not yet handed over
        self.per_instant = job.ckpt is not None
        self.slide = job.evaluation.limit.windowed_slide

    def run(self, items, stop: StopRequest) -> None:
        try:
            self._read(items, stop)
        except StreamError:  # bad input: what came before it is still handed over first
            self.hand_over_all()
            raise
        if self.job.ckpt is not None:
            self.checkpoint()
        else:
            self.hand_over_all()

    def _read(self, items, stop: StopRequest) -> None:
        job, reorder, pending = self.job, self.reorder, self.pending
        last_edge = time.monotonic()
        quiet = True  # no edge since the last idle flush
        for item in items:
            if item is TICK:
                self.hand_over()
                if stop.requested:
                    return
                if self.idle is not None and not quiet:
                    if time.monotonic() - last_edge >= self.idle:
                        self.flush_idle()
                        quiet = True
                job.publish()
                continue
            last_edge = time.monotonic()
            quiet = False
            pending.extend(reorder.add(item))
            if len(pending) >= 2 * BATCH_EDGES:
                self.hand_over()
                if stop.requested:
                    return

    def hand_over(self) -> None:
        """Hand the complete instants to the engine (and long runs of the last one, in the
        cuts `batches` makes), move its frontier to the earliest time still possible."""
        pending, job = self.pending, self.job
        safe = self.reorder.safe
        cut = len(pending)
        while cut and pending[cut - 1][3] >= safe:
            cut -= 1
        for batch in batches(pending[:cut], self.per_instant, self.slide):
            job.push(batch, may_checkpoint=False)
        rest = pending[cut:]
        while len(rest) >= 2 * BATCH_EDGES:
            job.push(rest[: 2 * BATCH_EDGES], may_checkpoint=False)
            rest = rest[2 * BATCH_EDGES :]
        pending[:] = rest
        if safe != -math.inf:
            job.advance(safe)
        job.writer.flush()
        job.rejects.flush()
        if job.checkpoint_due():
            self.checkpoint()
        if job.progress.enabled:
            job.draw_progress(None)

    def flush_idle(self) -> None:
        """The stream is quiet: everything up to the last time read is complete."""
        self.pending.extend(self.reorder.release_all())
        self.hand_over()

    def hand_over_all(self) -> None:
        """Every edge read goes to the engine (a stop without checkpoints, bad input)."""
        self.pending.extend(self.reorder.release_all())
        for batch in batches(self.pending, self.per_instant, self.slide):
            self.job.push(batch)
        self.pending.clear()
        self.job.writer.flush()
        self.job.rejects.flush()

    def checkpoint(self) -> None:
        """A checkpoint, with the reader's place beside it; older places are removed after."""
        self.job.checkpoint(self._save_place)
        directory = self.job.ckpt.directory
        keep = SIDECAR.format(self.job.state.checkpoints)
        for name in os.listdir(directory):
            if name.startswith("follow-") and name != keep:
                os.remove(os.path.join(directory, name))

    def _save_place(self, number: int) -> None:
        """Where the reader is and what it holds, beside checkpoint `number`."""
        data = {
            "checkpoint": number,
            "source": self.source.mark(),
            "line": self.position[0],
            "reorder": self.reorder.state(),
            "pending": [list(e) for e in self.pending],
        }
        path = os.path.join(self.job.ckpt.directory, SIDECAR.format(number))
        tmp = path + ".tmp"
        try:
            with open(tmp, "w", encoding="utf-8") as handle:
                json.dump(data, handle, separators=(",", ":"))
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, path)
        except OSError as exc:
            raise UserError(f"cannot write '{path}': {exc.strerror or exc}") from None


def _load_sidecar(job: RunJob, args: argparse.Namespace) -> dict | None:
    """The reader's place kept with the checkpoint being resumed, if any."""
    if job.resume is None:
        return None
    path = os.path.join(args.checkpoint, SIDECAR.format(job.resume.checkpoints))
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except FileNotFoundError:
        raise UserError(
            f"checkpoint '{args.checkpoint}' was written without --follow: resume it "
            "without --follow, or delete it to start over"
        ) from None
    except (OSError, ValueError) as exc:
        raise UserError(
            f"cannot read '{path}' ({exc}); delete the checkpoint to start over"
        ) from None
    if data.get("checkpoint") != job.resume.checkpoints:
        raise UserError(
            f"'{path}' belongs to another checkpoint; delete the checkpoint to start over"
        )
    return data
