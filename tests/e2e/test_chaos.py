"""Runs in flight across profiles and worker keys while workers are killed, restarted
and runs interrupted under them, through the real binary.

Whatever the timing, every run the server started ends with exactly one
``run/completed``, each run's notifications are numbered 1..n with nothing
missing, and afterwards every profile and worker key serves a new run.
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
from typing import Any

import pytest

from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM

from .conftest import StartHost, assert_runs_ended_once_in_order, template_ready

TARGETS: list[dict[str, Any]] = [
    {"profile": "default"},
    {"profile": "work"},
    {"profile": "play"},
    {"profile": "default", "workerKey": "side"},
    {"profile": "work", "workerKey": "side"},
]


def stir(host: HostClient, rng: random.Random, rounds: int) -> list[str]:
    """Start runs in bursts and disturb them; the ids of the runs started."""
    started: list[tuple[str, str, dict[str, Any]]] = []  # run, session, target
    for i in range(rounds):
        pending = []
        for _ in range(rng.randrange(1, 6)):
            target = rng.choice(TARGETS)
            params = {"message": f"round {i}", **target}
            same = [sid for _, sid, t in started if t == target]
            if same and rng.random() < 0.3:
                params["sessionId"] = rng.choice(same)
            pending.append(("run/start", host.send_request("run/start", params), target))
        roll = rng.random()
        if roll < 0.2:
            target = rng.choice(TARGETS)
            pending.append(("worker/restart", host.send_request("worker/restart", target), None))
        elif roll < 0.4:
            pids = [w["pid"] for w in host.request("supervisor/status")["workers"] if w["pid"]]
            if pids:
                with contextlib.suppress(ProcessLookupError):  # it may have just exited
                    os.kill(rng.choice(pids), signal.SIGKILL)
        elif roll < 0.6 and started:
            run_id = rng.choice(started)[0]
            pending.append(
                ("run/interrupt", host.send_request("run/interrupt", {"runId": run_id}), None)
            )
        for method, msg_id, target in pending:
            answer = host.response(msg_id, timeout=90)
            if method == "run/start" and answer.error is None:
                started.append((answer.result["runId"], answer.result["sessionId"], target))
    return [run_id for run_id, _, _ in started]


@pytest.mark.parametrize(("mode", "seed"), [("spawned", 1), ("forked", 2)])
def test_runs_end_exactly_once_in_order_while_workers_are_killed_and_restarted_under_them(
    start_host: StartHost,
    llm: ScriptedLLM,
    monkeypatch: pytest.MonkeyPatch,
    mode: str,
    seed: int,
) -> None:
    stirred_host(start_host, llm, monkeypatch, mode, seed, rounds=15)


@pytest.mark.soak
@pytest.mark.parametrize("seed", range(3, 13))
def test_a_long_stir_loses_no_run(
    start_host: StartHost, llm: ScriptedLLM, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    stirred_host(start_host, llm, monkeypatch, "forked" if seed % 2 else "spawned", seed, 150)


def stirred_host(
    start_host: StartHost,
    llm: ScriptedLLM,
    monkeypatch: pytest.MonkeyPatch,
    mode: str,
    seed: int,
    rounds: int,
) -> None:
    monkeypatch.setattr(llm, "default_reply", Reply.text([f"w{i} " for i in range(30)], delay=0.01))
    host = start_host(*(["--no-worker-template"] if mode == "spawned" else []))
    host.initialize()
    if mode == "forked":
        template_ready(host)
    started = stir(host, random.Random(seed), rounds)
    assert len(started) > 20
    assert_runs_ended_once_in_order(host, started)
    # The kills may have crashed one worker 5 times in 3 minutes: it then backs off, as
    # documented, until the host restarts it.
    for worker in host.request("supervisor/status")["workers"]:
        if worker["state"] == "backoff":
            target = {"profile": worker["profile"], "workerKey": worker["workerKey"]}
            host.request("worker/restart", target, timeout=60)
    # Every profile and key serves a new run afterwards.
    for target in TARGETS:
        run = host.request("run/start", {"message": "after", **target}, timeout=60)
        done = host.wait_run_completed(run["runId"], timeout=60)
        assert done.params["status"] == "complete", (target, done.params)
