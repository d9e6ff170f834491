"""Backpressure: a host that stops reading while a run streams.

Contract: ``backpressure(ctx)`` starts the supervisor with synthetic workers,
starts one run of ``Config.bp_deltas`` 20-byte deltas as fast as the worker
can produce them, stops reading the supervisor's stdout for
``Config.bp_pause_s`` (the measured window, not a synchronisation), then reads
everything. It reports the RSS of the supervisor and the worker at the start
and the end of the pause, the deltas produced and received (counted by their
stamps, so coalesced deltas count in full), the frames they arrived in, and
whether ``seq`` stayed gapless with exactly one ``run/completed``.
"""

from __future__ import annotations

import sys
import time
from typing import Any

from ..testing.host import HostClient
from ..worker.synthetic import parse_stamps
from .common import Ctx, bench_message
from .stats import rss_mb


def backpressure(ctx: Ctx) -> dict[str, Any]:
    cfg = ctx.config
    host = HostClient(
        ["--synthetic-agent"], ctx.env, command=[sys.executable, "-m", "hermes_stdio"]
    )
    try:
        host.initialize()
        host.request("session/status", {"sessionId": "bp-warm"})  # start the worker first
        (worker,) = host.request("supervisor/status")["workers"]
        run = host.request("run/start", {"message": bench_message(cfg.bp_deltas, 20, 0)})
        host.pause_reading()
        before = {"supervisor": rss_mb(host.proc.pid), "worker": rss_mb(worker["pid"])}
        time.sleep(cfg.bp_pause_s)
        after = {"supervisor": rss_mb(host.proc.pid), "worker": rss_mb(worker["pid"])}
        host.resume_reading()
        done = host.wait_run_completed(run["runId"], timeout=cfg.timeout)
        notes = host.run_notifications(run["runId"])
        deltas = [n for n in notes if n.method == "run/delta"]
        received = sum(len(parse_stamps(n.params["text"], 20)) for n in deltas)
        return {
            "pause_s": cfg.bp_pause_s,
            "deltas_produced": cfg.bp_deltas,
            "deltas_received": received,
            "lost": cfg.bp_deltas - received,
            "frames": len(deltas),
            "seq_gapless": [n.params["seq"] for n in notes] == list(range(1, len(notes) + 1)),
            "completed": done.params["status"],
            "completed_count": sum(1 for n in notes if n.method == "run/completed"),
            "rss_mb_pause_start": before,
            "rss_mb_pause_end": after,
        }
    finally:
        host.close()
