"""Real-agent measurements: hermes-stdio, the agent in-process, and tui_gateway.

Contract:
- Every peer runs the same hermes-agent against the same ``ScriptedLLM``.
  Each section leaves its peer live and registers its turns as contenders
  for ``rounds.head_to_head``, which measures latency and throughput of all
  of them in alternating rounds; tui_gateway's cheapest request goes to
  ``rtt.rtt_rounds``, which times round trips the same way. hermes-stdio is
  a contender both ways its peers are driven: each turn in a new session (a
  new agent, as tui_gateway) and every turn in one warm session (one agent,
  as in-process).
- Sections measure here only the throughput with the agent's process alone on
  CPU 0 and the rest (LLM, supervisor, host) on the other CPUs, the median of
  ``Config.tp_reps`` turns: that separates CPU sharing between processes on a
  small machine from per-delta overhead on the agent's thread.
- ``real_supervisor(ctx)`` returns a live ``Live`` (client + result dict)
  after cold start, warm starts, pinned throughput and memory over
  ``Config.short_runs`` short runs; the caller measures idle and closes it.
  Its workers fork from the worker template (``starts`` measures the same
  starts with ``--no-worker-template``); ``new_profile_starts`` and
  ``new_profile_ready`` time a not yet started profile's first delta and its
  worker's readiness.
- ``tui_gateway(ctx)`` likewise for ``python -m tui_gateway.entry`` (fresh
  session per turn: its busy-input policy would otherwise queue the next
  prompt as an interruption); ``in_process(ctx)`` leaves its child to
  ``ctx.closers``.
- A failing peer raises; the caller records the error and goes on.
"""

from __future__ import annotations

import json
import os
import queue
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .client import FramedClient, LineClient, Stream
from .common import TRIM_SETTLE_S, Ctx, memory_series, pinned
from .rounds import HERMES_NEW, HERMES_WARM, IN_PROCESS, TUI_GATEWAY, Turn, token_rate
from .rtt import TUI_GATEWAY as TUI_RESIZE
from .rtt import RttPeer
from .stats import pss_mb, rss_mb, summary


@dataclass
class Live:
    client: FramedClient | LineClient
    result: dict[str, Any]
    pids: list[int] = field(default_factory=list)


def _tp_median(ctx: Ctx, label: str, turn: Turn) -> dict[str, Any]:
    """Throughput of ``Config.tp_reps`` turns of ``Config.real_tp_chunks`` chunks: the
    median turn's figures, with every turn's rate."""
    cfg = ctx.config
    reps: list[dict[str, Any]] = []
    for i in range(cfg.tp_reps):
        ctx.arm_chunks(cfg.real_tp_chunks, 0)
        received, _stream = turn(f"{label}.{i}")
        reps.append(token_rate(ctx, received, cfg.real_tp_chunks))
    reps_sorted = sorted(reps, key=lambda r: r.get("deltas_per_s") or 0)
    return {
        **reps_sorted[len(reps) // 2],
        "samples_per_s": [r.get("deltas_per_s") for r in reps],
    }


# --- hermes-stdio ------------------------------------------------------------


class Runner:
    def __init__(self, ctx: Ctx, client: FramedClient) -> None:
        self.ctx, self.client = ctx, client

    def run(self, sid: str, mode: str = "tokens", message: str = "hi") -> tuple[Stream, int]:
        """One turn in session ``sid``; returns the stream and the run/start send time."""
        timeout = self.ctx.config.timeout
        stream = self.client.watch(sid, Stream(mode))
        params = {"message": message, "sessionId": sid, "conversationHistory": []}
        t0 = time.monotonic_ns()
        # Sent right after the last turn's run/completed: the session is free by then.
        self.client.request("run/start", params, timeout)
        stream.wait_done(timeout)
        return stream, t0


def real_supervisor(ctx: Ctx) -> Live:
    cfg = ctx.config
    ctx.reply_ok()
    client = ctx.supervisor("supervisor-real", synthetic=False)
    res: dict[str, Any] = {}
    live = Live(client, res, [client.pid])
    client.request("initialize", {"protocolVersion": 1, "clientInfo": {"name": "bench"}})
    res["initialize_ms"] = round((time.monotonic_ns() - client.spawned_ns) / 1e6, 2)
    client.notify("initialized", {})
    mem: dict[str, Any] = {"supervisor_start_mb": rss_mb(client.pid)}
    runner = Runner(ctx, client)

    cold, t0 = runner.run("real-cold", "count")
    res["cold_first_delta_ms"] = round((cold.first_ns - t0) / 1e6, 1)
    workers = client.request("supervisor/status", {}, cfg.timeout)["workers"]
    worker_pid = int(workers[0]["pid"])
    live.pids.append(worker_pid)
    ctx.settle("real.warm_worker")
    warm, t0 = runner.run("real-warm-worker", "count")
    res["warm_worker_first_delta_ms"] = round((warm.first_ns - t0) / 1e6, 1)
    ctx.settle("real.warm_session")
    again, t0 = runner.run("real-warm-worker", "count")
    res["warm_session_first_delta_ms"] = round((again.first_ns - t0) / 1e6, 1)
    # New profiles: a new worker each while another is warm (the template is ready now).
    res["new_profiles"] = ctx.new_profiles
    samples = new_profile_starts(runner, "real", ctx.new_profiles)
    res["new_profile_first_delta_ms_samples"] = samples
    res["cold_second_profile_first_delta_ms"] = statistics.median(samples)
    res["new_profile_ready"] = new_profile_ready(runner, "real", ctx.ready_profiles)
    res["fresh_profile_ready"] = new_profile_ready(runner, "real.fresh", ctx.fresh_profiles)
    status = client.request("supervisor/status", {}, cfg.timeout)
    workers = status["workers"]
    live.pids.extend(int(w["pid"]) for w in workers if w.get("pid") and w["pid"] != worker_pid)
    res["start_modes"] = {w["profile"]: w["startMode"] for w in workers}
    res["fork_fallbacks"] = {w["profile"]: w["forkFallback"] for w in workers if w["forkFallback"]}
    res["template"] = status.get("template")
    mem["worker_pss_mb"] = {w["profile"]: pss_mb(int(w["pid"])) for w in workers if w.get("pid")}
    template_pid = (status.get("template") or {}).get("pid")
    if template_pid:
        live.pids.append(int(template_pid))
        mem["template_mb"] = rss_mb(int(template_pid))
        mem["template_pss_mb"] = pss_mb(int(template_pid))
    time.sleep(TRIM_SETTLE_S)
    mem["worker_after_1_run_mb"] = rss_mb(worker_pid)  # before the latency and throughput runs
    mem["supervisor_after_1_run_mb"] = rss_mb(client.pid)

    def turn_in(sid: Callable[[str], str]) -> Turn:
        def turn(label: str) -> tuple[dict[int, int], Stream | None]:
            ctx.settle(label)
            stream, _ = runner.run(sid(label))
            return stream.token_ns, stream

        return turn

    new_turn = turn_in(lambda label: label)  # a new session (agent) per turn, as tui_gateway's
    warm_turn = turn_in(lambda _label: "real-warm-worker")  # one warm session, as in-process
    with pinned([worker_pid], [client.pid, ctx.llm_pid]) as ok:
        if ok:
            label = "real.throughput_pinned_warm"
            res["throughput_pinned_warm"] = _tp_median(ctx, label, warm_turn)
    ctx.contenders[HERMES_NEW], ctx.contenders[HERMES_WARM] = new_turn, warm_turn
    roles = {"worker": worker_pid, "supervisor": client.pid}
    ctx.contender_pids[HERMES_NEW] = ctx.contender_pids[HERMES_WARM] = roles

    ctx.reply_ok()
    short = memory_series(
        lambda i: runner.run(f"real-short-{i % 2}", "count"), worker_pid, cfg.short_runs, client.pid
    )
    mem["short_runs"] = short["runs"]
    mem["worker_after_short_run_mb"] = short["after_1_mb"]
    mem["worker_after_n_mb"] = short["after_n_mb"]
    mem["supervisor_after_n_mb"] = short["series"][-1][2]
    mem["worker_growth_mb"] = short["growth_mb"]
    mem["series"] = short["series"]
    mem["worker_start_mb_note"] = "worker RSS at ready is racy (hermes preloads in background)"
    res["memory"] = mem
    return live


def tools_turn(ctx: Ctx, live: Live) -> str:
    """One turn of the real worker's warm session that runs a command and reads a
    file, as most sessions' turns do: hermes starts timers of its own for such
    work, which the idle window that follows would then see."""
    assert isinstance(live.client, FramedClient)
    ctx.call_tools(("terminal", {"command": "echo idle"}), ("read_file", {"path": __file__}))
    Runner(ctx, live.client).run("real-warm-worker", "count")
    return "terminal and read_file in the real worker's warm session"


def new_profile_ready(runner: Runner, tag: str, profiles: list[str]) -> dict[str, Any]:
    """A not yet started profile's worker: ``worker/restart`` (start it, answered once it
    is ready) round trip in ms, for each of ``profiles``, and how each started."""
    timeout = runner.ctx.config.timeout
    samples, modes = [], []
    for profile in profiles:
        runner.ctx.settle(f"{tag}.ready.{profile}")
        t0 = time.monotonic_ns()
        worker = runner.client.request("worker/restart", {"profile": profile}, timeout)["worker"]
        samples.append(round((time.monotonic_ns() - t0) / 1e6, 1))
        modes.append(worker["startMode"])
    return {"samples_ms": samples, "median_ms": statistics.median(samples), "start_modes": modes}


def new_profile_starts(runner: Runner, tag: str, profiles: list[str]) -> list[float]:
    """run/start -> first delta (ms) of one run in each of ``profiles``, not yet started."""
    timeout = runner.ctx.config.timeout
    samples = []
    for profile in profiles:
        sid = f"{tag}-cold-{profile}"
        runner.ctx.settle(f"{tag}.new_profile.{profile}")
        stream = runner.client.watch(sid, Stream("count"))
        t0 = time.monotonic_ns()
        params = {"message": "hi", "sessionId": sid, "profile": profile}
        runner.client.request("run/start", params, timeout)
        stream.wait_done(timeout)
        samples.append(round((stream.first_ns - t0) / 1e6, 1))
    return samples


# --- in-process --------------------------------------------------------------


class InProcess:
    """The ``inproc`` child: one agent, turns over JSON lines (see ``bench.inproc``)."""

    def __init__(self, ctx: Ctx) -> None:
        self._timeout = ctx.config.timeout
        self._log = ctx.log("in-process").open("ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "hermes_stdio.bench.inproc"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
            env=ctx.env,
            start_new_session=True,
        )
        self._lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._read, name="inproc-reader", daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in iter(self.proc.stdout.readline, b""):
            self._lines.put(line)

    def answer(self) -> dict[str, Any]:
        try:
            data: dict[str, Any] = json.loads(self._lines.get(timeout=self._timeout))
        except queue.Empty:
            raise TimeoutError("in-process agent did not answer") from None
        return data

    def turn(self) -> dict[int, int]:
        """One turn; the first callback time of each token chunk."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps({"message": "hi"}).encode() + b"\n")
        self.proc.stdin.flush()
        reply = self.answer()
        if reply.get("error"):
            raise RuntimeError(f"in-process turn failed: {reply['error']}")
        received: dict[int, int] = {}
        for t_ns, text in reply["deltas"]:
            for part in text.split(";"):
                if part.startswith("t") and part[1:].isdigit():
                    received.setdefault(int(part[1:]), t_ns)
        return received

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, 9)
            self.proc.wait(5)
        self._log.close()


def in_process(ctx: Ctx) -> dict[str, Any]:
    """Warm-up, pinned throughput and memory; the child stays live as a contender."""
    cfg = ctx.config
    ctx.reply_ok()
    peer = InProcess(ctx)
    ctx.closers.append(peer.close)
    try:
        peer.answer()  # ready
        peer.turn()  # warm-up

        def turn(label: str) -> tuple[dict[int, int], Stream | None]:
            ctx.settle(label)
            return peer.turn(), None

        result: dict[str, Any] = {}
        with pinned([peer.proc.pid], [ctx.llm_pid]) as ok:
            if ok:
                result["throughput_pinned"] = _tp_median(ctx, "in_process.throughput_pinned", turn)
        result["rss_mb"] = rss_mb(peer.proc.pid)
        ctx.reply_ok()
        # The same short runs as the worker's, with no stdio layer: hermes' own growth.
        result["memory"] = memory_series(lambda _i: peer.turn(), peer.proc.pid, cfg.short_runs)
        ctx.contenders[IN_PROCESS] = turn
        ctx.contender_pids[IN_PROCESS] = {"agent": peer.proc.pid}
        return result
    finally:
        ctx.reply_ok()


# --- tui_gateway -------------------------------------------------------------


def _tui_turn(
    ctx: Ctx, client: LineClient, mode: str = "tokens", settle: str | None = None
) -> tuple[Stream, int, str]:
    """One prompt in a new session. With ``settle``, the machine is left to go quiet
    after ``session.create``, which starts a helper process that imports hermes."""
    timeout = ctx.config.timeout
    created = client.request("session.create", {"cols": 80}, timeout)
    sid = str(created["session_id"])
    if settle is not None:
        ctx.settle(settle)
    stream = client.watch(sid, Stream(mode))
    t0 = time.monotonic_ns()
    client.request("prompt.submit", {"session_id": sid, "text": "hi"}, timeout)
    stream.wait_done(timeout)
    if stream.completion is not None and stream.completion.get("type") == "error":
        raise RuntimeError(f"tui_gateway turn failed: {stream.completion}")
    return stream, t0, sid


def tui_gateway(ctx: Ctx) -> Live:
    cfg = ctx.config
    ctx.reply_ok()
    client = LineClient(
        [sys.executable, "-m", "tui_gateway.entry"], ctx.env, ctx.log("tui-gateway")
    )
    client.keep_events = lambda m: (m.get("params") or {}).get("type") == "gateway.ready"
    res: dict[str, Any] = {}
    live = Live(client, res, [client.pid])
    ready = client.wait_event(lambda _m: True, cfg.timeout)
    res["ready_ms"] = round((ready - client.spawned_ns) / 1e6, 1)
    res["rss_start_mb"] = rss_mb(client.pid)
    cold, t0, sid = _tui_turn(ctx, client, "count")
    res["cold_first_delta_ms"] = round((cold.first_ns - t0) / 1e6, 1)
    ctx.settle("tui_gateway.warm")
    warm, t0, _ = _tui_turn(ctx, client, "count")
    res["warm_first_delta_ms"] = round((warm.first_ns - t0) / 1e6, 1)
    ctx.settle("tui_gateway.rtt")
    resize = {"session_id": sid, "cols": 80}
    samples = client.round_trips("terminal.resize", resize, 50 + cfg.rtt_calls, cfg.timeout)
    res["rtt_terminal_resize"] = summary(samples[50:])

    def turn(label: str) -> tuple[dict[int, int], Stream | None]:
        stream, _, _ = _tui_turn(ctx, client, settle=label)
        return stream.token_ns, stream

    ctx.contenders[TUI_GATEWAY] = turn
    ctx.contender_pids[TUI_GATEWAY] = {"gateway": client.pid}
    ctx.rtt_peers[TUI_RESIZE] = RttPeer(
        lambda n: client.round_trips("terminal.resize", resize, n, cfg.timeout), [client.pid]
    )
    res["rss_after_runs_mb"] = rss_mb(client.pid)
    return live
