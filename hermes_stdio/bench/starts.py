"""Start-up measurements without the worker template, for comparison with ``agent``'s.

Contract: ``spawned_starts(ctx)`` runs a supervisor with ``--no-worker-template``
and returns the cold first delta, new profiles' first deltas and their workers'
readiness (``agent.new_profile_starts`` / ``new_profile_ready``, in profiles of
its own: ``Ctx.spawned_new_profiles`` / ``spawned_ready_profiles``), how each
worker started, their PSS, and the first delta in a worker prewarmed at
``initialize`` and left idle ``PREWARM_IDLE_S`` seconds.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

from .agent import Runner, new_profile_ready, new_profile_starts
from .common import Ctx
from .stats import pss_mb

PREWARM_IDLE_S = 5.0


def spawned_starts(ctx: Ctx) -> dict[str, Any]:
    """First runs with every worker spawned cold (``--no-worker-template``)."""
    ctx.reply_ok()
    client = ctx.supervisor("supervisor-spawned", synthetic=False, template=False)
    try:
        client.request("initialize", {"protocolVersion": 1, "clientInfo": {"name": "bench"}})
        client.notify("initialized", {})
        runner = Runner(ctx, client)
        cold, t0 = runner.run("spawned-cold", "count")
        first = round((cold.first_ns - t0) / 1e6, 1)
        samples = new_profile_starts(runner, "spawned", ctx.spawned_new_profiles)
        ready = new_profile_ready(runner, "spawned", ctx.spawned_ready_profiles)
        workers = client.request("supervisor/status", {}, ctx.config.timeout)["workers"]
        pss = {w["profile"]: pss_mb(int(w["pid"])) for w in workers if w.get("pid")}
        return {
            "cold_first_delta_ms": first,
            "new_profiles": ctx.spawned_new_profiles,
            "cold_second_profile_first_delta_ms": statistics.median(samples),
            "new_profile_first_delta_ms_samples": samples,
            "new_profile_ready": ready,
            "start_modes": {w["profile"]: w["startMode"] for w in workers},
            "worker_pss_mb": pss,
            "prewarmed_first_delta_ms": _prewarmed_first_delta(ctx),
        }
    finally:
        client.close()


def _prewarmed_first_delta(ctx: Ctx) -> float:
    """run/start -> first delta in a worker prewarmed at ``initialize`` and then left idle
    for ``PREWARM_IDLE_S`` (a user who reads before typing): its background preload is done."""
    client = ctx.supervisor("supervisor-prewarmed", synthetic=False, template=False)
    try:
        init = {"protocolVersion": 1, "clientInfo": {"name": "bench"}}
        client.request("initialize", {**init, "options": {"prewarmProfiles": ["default"]}})
        client.notify("initialized", {})
        time.sleep(PREWARM_IDLE_S)
        [worker] = client.request("supervisor/status", {}, ctx.config.timeout)["workers"]
        if worker["state"] != "ready":
            raise RuntimeError(f"prewarmed worker not ready after {PREWARM_IDLE_S} s: {worker}")
        run, t0 = Runner(ctx, client).run("prewarmed", "count")
        return round((run.first_ns - t0) / 1e6, 1)
    finally:
        client.close()
