"""Wire measurements: the raw-pipe floor and the supervisor with synthetic workers.

Contract:
- ``raw_pipe(ctx)`` spawns ``echo.py`` and measures request round trips,
  single-stream event latency and small/large throughput over a bare pipe;
  the echo process stays live (``ctx.rtt_peers``, closed with ``ctx``).
- ``synthetic(ctx)`` spawns ``hermes-stdio --synthetic-agent`` and measures,
  with the same host code: ``supervisor/status`` and worker-routed
  ``session/status`` round trips, event latency (stamp in the worker's agent
  callback -> host receipt) for 1 session and for ``Config.sessions``
  concurrent sessions split over two profiles, the same latency for a flood
  from an agent thread busy ``BUSY_WORK_US`` between deltas (``busy_stream``:
  how long batching holds a delta when the agent keeps the interpreter lock,
  protocol.md's ``run/delta``), and throughput for 20 B and
  4 KiB deltas, then the worker's RSS over ``Config.short_runs`` one-delta
  runs (the stdio layer's own growth, no hermes-agent); it stays live too,
  for the round trips in ``rtt.rtt_rounds``. Both return plain JSON-able
  dicts; their processes are closed with ``ctx``. Round trips are sequential
  (one request in flight, read on the calling thread: ``round_trips``), after
  a warm-up of 50 calls that is not counted.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

from .client import FramedClient, Stream
from .common import PROFILE2, Ctx, memory_series, rate, run_framed, start_params
from .rtt import RAW_PIPE, SESSION_STATUS, SUPERVISOR_STATUS, RttPeer
from .stats import summary

ECHO = str(Path(__file__).with_name("echo.py"))
WARMUP = 50
LARGE = 4096

# hermes' own CPU per streamed chunk here (the in-process agent's): a flood at its pace.
BUSY_WORK_US = 130


def _rtt(client: FramedClient, method: str, params: Any, calls: int, timeout: float) -> list[int]:
    return client.round_trips(method, params, WARMUP + calls, timeout)[WARMUP:]


def _throughput(ctx: Ctx, client: FramedClient, kind: str, tag: str) -> dict[str, Any]:
    cfg = ctx.config
    out: dict[str, Any] = {}
    for label, count, size in (
        ("small_20B", cfg.tp_small, 20),
        ("large_4KiB", cfg.tp_large, LARGE),
    ):
        ctx.settle(f"{tag}.throughput.{label}")
        stream, _t0 = run_framed(client, kind, f"{tag}-tp-{label}", count, size, 0, cfg.timeout)
        out[label] = rate(stream, count)
    return out


def raw_pipe(ctx: Ctx) -> dict[str, Any]:
    cfg = ctx.config
    client = FramedClient([sys.executable, ECHO], ctx.env, ctx.log("raw-pipe"))
    ctx.closers.append(client.close)  # live for rtt.py's rounds
    ctx.settle("raw_pipe.rtt")
    rtt = _rtt(client, "echo", {}, cfg.rtt_calls, cfg.timeout)
    ctx.settle("raw_pipe.latency")
    lat, _ = run_framed(
        client, "pipe", "pipe-lat", cfg.latency_count, 20, cfg.latency_interval_ms, cfg.timeout
    )
    result = {
        "rtt_echo": summary(rtt),
        "latency_1": {**summary(lat.latencies_ns), "lost": cfg.latency_count - lat.units},
        "throughput": _throughput(ctx, client, "pipe", "pipe"),
    }
    ctx.rtt_peers[RAW_PIPE] = RttPeer(
        lambda n: client.round_trips("echo", {}, n, cfg.timeout), [client.pid]
    )
    return result


def _concurrent(ctx: Ctx, client: FramedClient, sessions: int) -> dict[str, Any]:
    cfg = ctx.config
    ctx.settle(f"synthetic.latency_{sessions}")
    streams: list[Stream] = []
    pendings = []
    for i in range(sessions):
        sid = f"syn-lat{sessions}-{i}"
        profile = PROFILE2 if i % 2 else None
        stream = client.watch(sid, Stream("stamp", 20))
        method, params = start_params(
            "supervisor", sid, cfg.latency_count, 20, cfg.latency_interval_ms, profile
        )
        pendings.append(client.send(method, params))
        streams.append(stream)
    for pending in pendings:
        if not pending.event.wait(cfg.timeout):
            raise TimeoutError("run/start not answered")
        assert pending.msg is not None and pending.msg.get("error") is None, pending.msg
    for stream in streams:
        stream.wait_done(cfg.timeout)
    samples = [v for s in streams for v in s.latencies_ns]
    expected = sessions * cfg.latency_count
    statuses = sorted({str((s.completion or {}).get("status")) for s in streams})
    return {**summary(samples), "lost": expected - len(samples), "statuses": statuses}


def synthetic(ctx: Ctx) -> dict[str, Any]:
    cfg = ctx.config
    client = ctx.supervisor("supervisor-synthetic", synthetic=True)
    ctx.closers.append(client.close)  # live for rtt.py's rounds
    client.request("initialize", {"protocolVersion": 1, "clientInfo": {"name": "bench"}})
    init_ms = (time.monotonic_ns() - client.spawned_ns) / 1e6
    client.notify("initialized", {})
    # Warm both profiles' workers (and create the session session/status asks about).
    for profile in (None, PROFILE2):
        warm, _ = run_framed(
            client, "supervisor", f"syn-warm-{profile}", 10, 20, 0, cfg.timeout, profile
        )
        if warm.units != 10:
            raise RuntimeError(f"workers are not running the synthetic agent: {warm.units}/10")
    ctx.settle("synthetic.rtt_supervisor_status")
    rtt_sup = _rtt(client, "supervisor/status", {}, cfg.rtt_calls, cfg.timeout)
    ctx.settle("synthetic.rtt_session_status")
    rtt_sess = _rtt(
        client, "session/status", {"sessionId": "syn-warm-None"}, cfg.rtt_calls, cfg.timeout
    )
    ctx.settle("synthetic.latency_1")
    lat1, _ = run_framed(
        client,
        "supervisor",
        "syn-lat1",
        cfg.latency_count,
        20,
        cfg.latency_interval_ms,
        cfg.timeout,
    )
    ctx.settle("synthetic.busy_stream")
    busy, _ = run_framed(
        client, "supervisor", "syn-busy", cfg.busy_deltas, 20, 0, cfg.timeout, work_us=BUSY_WORK_US
    )
    status = client.request("supervisor/status", {}, cfg.timeout)
    default = next(w for w in status["workers"] if w["profile"] == "default")
    # Short runs through the whole stdio layer with no hermes-agent: the layer's own
    # growth. History is reset per run, as in the real worker's short runs.
    fresh: dict[str, Any] = {"conversationHistory": []}
    memory = memory_series(
        lambda i: run_framed(
            client, "supervisor", f"syn-short-{i % 2}", 1, 20, 0, cfg.timeout, None, fresh
        ),
        int(default["pid"]),
        cfg.short_runs,
        client.pid,
    )
    ctx.rtt_peers[SUPERVISOR_STATUS] = RttPeer(
        lambda n: client.round_trips("supervisor/status", {}, n, cfg.timeout), [client.pid]
    )
    warm_session = {"sessionId": "syn-warm-None"}
    ctx.rtt_peers[SESSION_STATUS] = RttPeer(
        lambda n: client.round_trips("session/status", warm_session, n, cfg.timeout),
        [client.pid, int(default["pid"])],
    )
    return {
        "initialize_ms": round(init_ms, 2),
        "rtt_supervisor_status": summary(rtt_sup),
        "rtt_session_status": summary(rtt_sess),
        "latency_1": {**summary(lat1.latencies_ns), "lost": cfg.latency_count - lat1.units},
        f"latency_{cfg.sessions}": _concurrent(ctx, client, cfg.sessions),
        "busy_stream": {
            **summary(busy.latencies_ns),
            "lost": cfg.busy_deltas - busy.units,
            "frames": busy.frames,
            "work_us": BUSY_WORK_US,
        },
        "throughput": _throughput(ctx, client, "supervisor", "syn"),
        "workers": len(status.get("workers", [])),
        "memory": memory,
    }
