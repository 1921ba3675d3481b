"""Metrics of one `sgq run`: Prometheus text on `--metrics-port`, JSON lines in `--metrics-file`.

The run loop hands over a snapshot of its counters now and then (`publish`, at most every
`SNAPSHOT_SECONDS` unless forced) and the wall time of every engine batch (`batch_done`). The
HTTP server (prometheus_client, its own thread) renders the last snapshot when scraped, so it
never touches the engine while the run loop changes it. The JSON lines file gets one object
per `interval` seconds and one at the end, with the same names. docs/metrics.md lists them.
"""

from __future__ import annotations

import bisect
import json
import math
import sys
import time
from typing import Any

from .base.errors import UserError
from .stream_io import open_output

SNAPSHOT_SECONDS = 0.5
BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

# name, Prometheus type, help; a snapshot holds a value under each name
COUNTERS = (
    ("sgq_edges_in_total", "input edges handed to the engine"),
    ("sgq_edges_rejected_total", "bad input lines skipped (--on-error skip)"),
    ("sgq_edges_late_total", "edges dropped as too late (--max-lateness, --idle-flush)"),
    ("sgq_edges_ignored_total", "edges of labels no rule reads"),
    ("sgq_results_out_total", "result rows written (interval rows or deltas)"),
    ("sgq_unmatched_deletions_total", "'-' edges that matched no valid edge"),
    ("sgq_checkpoints_total", "checkpoints written by this process"),
)
GAUGES = (
    ("sgq_state_entries", "state entries of all operators"),
    ("sgq_state_entries_peak", "the largest sgq_state_entries seen"),
    ("sgq_event_time", "the engine's frontier: every input before this time is in"),
    ("sgq_checkpoint_age_seconds", "seconds since the last checkpoint was written"),
)
OPERATOR_GAUGE = ("sgq_operator_state_entries", "state entries of one operator")
HISTOGRAM = ("sgq_batch_seconds", "wall time of one engine batch, its results written")
INFO = ("sgq_run_info", "the run's program and output mode (value 1)")


def parse_port(text: str) -> tuple[str, int]:
    """`--metrics-port [HOST:]PORT` -> (host, port); host defaults to every interface."""
    host, _, port = text.rpartition(":")
    try:
        number = int(port)
    except ValueError:
        raise UserError(f"--metrics-port '{text}' is not [HOST:]PORT") from None
    if not 0 <= number <= 65535:
        raise UserError(f"--metrics-port {number} is not a port (0..65535)")
    return host.strip("[]") or "0.0.0.0", number


class Histogram:
    """Cumulative-bucket counts of observed seconds (what Prometheus histograms hold)."""

    def __init__(self, bounds: tuple[float, ...] = BUCKETS) -> None:
        self.bounds = bounds
        self.counts = [0] * (len(bounds) + 1)  # the last: above every bound
        self.sum = 0.0

    def observe(self, seconds: float) -> None:
        self.counts[bisect.bisect_left(self.bounds, seconds)] += 1
        self.sum += seconds

    def snapshot(self) -> dict:
        """`{"count", "sum", "buckets": {le: cumulative count}}` (le "+Inf" last)."""
        out, total = {}, 0
        for bound, n in zip((*self.bounds, math.inf), self.counts):
            total += n
            out["+Inf" if bound == math.inf else repr(bound)] = total
        return {"count": total, "sum": self.sum, "buckets": out}


class RunMetrics:
    """What `--metrics-port` serves and `--metrics-file` writes for one run."""

    def __init__(
        self,
        port: str | None,
        file: str | None,
        interval: float,
        info: dict[str, str],
    ) -> None:
        self.info = info
        self.histogram = Histogram()
        self.interval = interval
        self.snapshot: dict[str, Any] = {}
        self.checkpoint_wall: float | None = None
        self._published = -math.inf
        self._written = -math.inf
        self._server = None
        self._file = open_output(file, "a", "metrics file") if file else None
        self.address: tuple[str, int] | None = None
        if port is not None:
            self._serve(*parse_port(port))

    def _serve(self, host: str, port: int) -> None:
        from prometheus_client import start_http_server
        from prometheus_client.registry import CollectorRegistry

        registry = CollectorRegistry(auto_describe=True)
        registry.register(_Collector(self))
        try:
            self._server, _ = start_http_server(port, addr=host, registry=registry)
        except OSError as exc:
            raise UserError(
                f"--metrics-port: cannot listen on {host}:{port}: {exc.strerror or exc}"
            ) from None
        self.address = (host, self._server.server_port)
        print(
            f"sgq run: metrics on http://{host}:{self.address[1]}/metrics",
            file=sys.stderr,
            flush=True,
        )

    # ---- fed by the run loop
    def batch_done(self, seconds: float) -> None:
        self.histogram.observe(seconds)

    def checkpoint_done(self) -> None:
        self.checkpoint_wall = time.time()

    def due(self) -> bool:
        """Whether a new snapshot is wanted (one per SNAPSHOT_SECONDS at most)."""
        return time.monotonic() - self._published >= SNAPSHOT_SECONDS

    def publish(self, counters: dict[str, Any], operators: dict[str, int]) -> None:
        """A new snapshot: `counters` by metric name, state entries per operator."""
        now = time.monotonic()
        self._published = now
        snap = dict(counters)
        snap[OPERATOR_GAUGE[0]] = dict(operators)
        snap[HISTOGRAM[0]] = self.histogram.snapshot()
        self.snapshot = snap  # one assignment: the server thread sees old or new
        if self._file is not None and now - self._written >= self.interval:
            self._write_line()

    def _write_line(self) -> None:
        self._written = time.monotonic()
        line = {"time": round(time.time(), 3), **self.info, **self.snapshot}
        line["sgq_checkpoint_age_seconds"] = self.checkpoint_age()
        self._file.write(json.dumps(line) + "\n")
        self._file.flush()

    def checkpoint_age(self) -> float | None:
        if self.checkpoint_wall is None:
            return None
        return round(time.time() - self.checkpoint_wall, 3)

    def close(self) -> None:
        """The last JSON line (the final counters); the server stops."""
        if self._file is not None:
            if self.snapshot:
                self._write_line()
            self._file.close()
            self._file = None
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None


class _Collector:
    """Renders RunMetrics' last snapshot for prometheus_client (called by its server)."""

    def __init__(self, metrics: RunMetrics) -> None:
        self.metrics = metrics

    def describe(self):
        return []

    def collect(self):
        from prometheus_client.core import (
            CounterMetricFamily,
            GaugeMetricFamily,
            HistogramMetricFamily,
        )

        m = self.metrics
        snap = m.snapshot
        info = GaugeMetricFamily(INFO[0], INFO[1], labels=sorted(m.info))
        info.add_metric([m.info[k] for k in sorted(m.info)], 1)
        yield info
        for name, help_text in COUNTERS:
            yield CounterMetricFamily(name[: -len("_total")], help_text, value=snap.get(name, 0))
        for name, help_text in GAUGES:
            if name == "sgq_checkpoint_age_seconds":
                age = m.checkpoint_age()
                value = math.nan if age is None else age
            else:
                value = snap.get(name, math.nan)
            yield GaugeMetricFamily(name, help_text, value=_finite_or_inf(value))
        ops = GaugeMetricFamily(*OPERATOR_GAUGE, labels=["operator"])
        for op, size in sorted(snap.get(OPERATOR_GAUGE[0], {}).items()):
            ops.add_metric([op], size)
        yield ops
        hist = snap.get(HISTOGRAM[0]) or m.histogram.snapshot()
        yield HistogramMetricFamily(
            *HISTOGRAM,
            buckets=list(hist["buckets"].items()),
            sum_value=hist["sum"],
        )


def _finite_or_inf(value) -> float:
    return float(value) if value is not None else math.nan
