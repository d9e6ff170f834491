"""Summaries of samples and readings of /proc.

Contract:
- ``summary(ns_samples)`` gives ``{n, p50, p99, max, mean}`` in milliseconds
  (nearest-rank percentiles); an empty sample gives ``{"n": 0}``.
- ``rss_mb(pid)`` is VmRSS in MiB (None once the process is gone);
  ``cpu_seconds(pid)`` is utime+stime of the whole process from
  ``/proc/<pid>/stat``; ``ctx_switches(pid)`` sums voluntary and involuntary
  context switches over every thread in ``/proc/<pid>/task`` (a thread that
  exits in between is not counted, so deltas are a lower bound).
- ``machine_cpu()`` is (busy, total) jiffies of all CPUs from ``/proc/stat``;
  ``settle()`` waits, bounded, until the machine is quiet (see there).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Sequence
from typing import Any

from ..transport.process import proc_stat

_TICKS = os.sysconf("SC_CLK_TCK")
SETTLE_WINDOW_S = 0.25
SETTLE_BUSY = 0.10  # of all CPUs
SETTLE_LIMIT_S = 15.0


def percentile(sorted_values: Sequence[float], q: float) -> float:
    if not sorted_values:
        return float("nan")
    rank = max(1, min(len(sorted_values), int(-(-q * len(sorted_values) // 1))))
    return float(sorted_values[rank - 1])


def summary(ns_samples: Iterable[int]) -> dict[str, Any]:
    values = sorted(v / 1e6 for v in ns_samples)
    if not values:
        return {"n": 0}
    return {
        "n": len(values),
        "p50": round(percentile(values, 0.50), 4),
        "p99": round(percentile(values, 0.99), 4),
        "max": round(values[-1], 4),
        "mean": round(sum(values) / len(values), 4),
    }


def _kb_field_mb(path: str, field: str) -> float | None:
    try:
        with open(path, encoding="ascii") as f:
            for line in f:
                if line.startswith(field):
                    return round(int(line.split()[1]) / 1024, 2)
    except OSError:
        return None
    return None


def rss_mb(pid: int) -> float | None:
    return _kb_field_mb(f"/proc/{pid}/status", "VmRSS:")


def pss_mb(pid: int) -> float | None:
    """Proportional set size: shared pages (a forked worker's and its template's) split."""
    return _kb_field_mb(f"/proc/{pid}/smaps_rollup", "Pss:")


def cpu_seconds(pid: int) -> float | None:
    fields = proc_stat(pid)
    if fields is None:
        return None
    return (int(fields[11]) + int(fields[12])) / _TICKS  # utime, stime


def ctx_switches(pid: int) -> dict[str, int] | None:
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return None
    voluntary = involuntary = 0
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/status", encoding="ascii") as f:
                for line in f:
                    if line.startswith("voluntary_ctxt_switches:"):
                        voluntary += int(line.split()[1])
                    elif line.startswith("nonvoluntary_ctxt_switches:"):
                        involuntary += int(line.split()[1])
        except OSError:
            continue
    return {"voluntary": voluntary, "involuntary": involuntary, "threads": len(tids)}


def ratio(a: float | None, b: float | None) -> float | None:
    if a is None or b is None or b == 0 or a != a or b != b:
        return None
    return round(a / b, 3)


def machine_cpu() -> tuple[int, int]:
    with open("/proc/stat", encoding="ascii") as f:
        fields = [int(v) for v in f.readline().split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    total = sum(fields[:8])  # guest time is already counted in user
    return total - idle, total


def settle(limit_s: float = SETTLE_LIMIT_S) -> float:
    """Wait until less than ``SETTLE_BUSY`` of the machine's CPU was busy over
    one ``SETTLE_WINDOW_S`` window; return the seconds waited (``limit_s`` at most).

    Background work left by the previous step (a peer's helper process still
    importing, a template preloading) would otherwise both compete with a
    measurement and keep CPUs out of idle, which makes pipe wake-ups look
    cheaper than they are on a quiet machine. Polling here is the measurement
    harness waiting for quiet, not synchronisation.
    """
    t0 = time.monotonic()
    busy0, total0 = machine_cpu()
    while True:
        time.sleep(SETTLE_WINDOW_S)
        busy1, total1 = machine_cpu()
        waited = time.monotonic() - t0
        span = total1 - total0
        if (span > 0 and (busy1 - busy0) / span < SETTLE_BUSY) or waited >= limit_s:
            return round(waited, 2)
        busy0, total0 = busy1, total1
