"""Idle workers through the real binary: a worker with no run that nothing has used for
--worker-idle-timeout is stopped (worker/exited, expected), never while a run is in
progress, and the next request starts a new one whose sessions resume from the DB."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM

from .conftest import StartHost, until_created, wait_deleted
from .test_approvals import respond, waiting

IDLE_S = "1"


def test_an_unused_worker_is_stopped_and_the_next_run_resumes_its_session(
    start_host: StartHost, llm: ScriptedLLM
) -> None:
    host = start_host("--worker-idle-timeout", IDLE_S)
    host.initialize()
    llm.enqueue(Reply.text(["I will remember KIWI."]))
    first = host.request("run/start", {"message": "remember KIWI"})
    host.wait_run_completed(first["runId"])
    exited = host.wait_for(lambda n: n.method == "worker/exited", timeout=30)
    assert exited.params["expected"] is True and exited.params["profile"] == "default"
    assert exited.params["reason"] == "idle"
    assert host.request("supervisor/status")["workers"][0]["state"] == "exited"
    host.wait_stderr(lambda line: "unused for 1 s" in line)

    llm.enqueue(Reply.text(["KIWI"]))
    again = host.request("run/start", {"sessionId": first["sessionId"], "message": "which?"})
    done = host.wait_run_completed(again["runId"]).params
    assert done["status"] == "complete" and done["result"]["messageCount"] == 4


def test_a_worker_whose_run_waits_on_the_host_is_not_stopped(
    start_host: StartHost, llm: ScriptedLLM, tmp_path: Path
) -> None:
    host = start_host("--worker-idle-timeout", IDLE_S)
    host.initialize()
    _victim, run, ask = waiting(host, llm, tmp_path)
    # Three idle periods pass while the run waits for the approval: nothing stops.
    with pytest.raises(TimeoutError):
        host.wait_for(lambda n: n.method == "worker/exited", timeout=3)
    respond(host, run, ask, "deny")
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"
    # Idle from the end of its run on.
    exited = host.wait_for(lambda n: n.method == "worker/exited", timeout=30)
    assert exited.params["expected"] is True


def test_an_unused_session_is_unloaded_and_its_next_run_resumes_it(
    start_host: StartHost, llm: ScriptedLLM
) -> None:
    host = start_host("--session-idle-timeout", IDLE_S, "--worker-idle-timeout", "0")
    host.initialize()
    llm.enqueue(Reply.text(["I will remember KIWI."]))
    first = host.request("run/start", {"message": "remember KIWI"})
    host.wait_run_completed(first["runId"])
    sid = first["sessionId"]
    host.wait_stderr(lambda line: f"unloading session {sid}" in line)
    assert host.request("session/status", {"sessionId": sid})["loaded"] is False
    assert host.request("supervisor/status")["workers"][0]["state"] == "ready"
    llm.enqueue(Reply.text(["KIWI"]))
    again = host.request("run/start", {"sessionId": sid, "message": "which?"})
    done = host.wait_run_completed(again["runId"]).params
    assert done["status"] == "complete" and done["result"]["messageCount"] == 4


def test_an_idle_keyed_worker_with_nothing_routed_to_it_is_forgotten_and_comes_back_on_use(
    start_host: StartHost, llm: ScriptedLLM
) -> None:
    host = start_host("--worker-idle-timeout", IDLE_S)
    host.initialize()
    for key in ("keeper", "helper"):  # keeper goes idle first
        llm.enqueue(Reply.text([f"hi from {key}"]))
        run = host.request("run/start", {"message": "hi", "workerKey": key})
        host.wait_run_completed(run["runId"])
        if key == "helper":  # done with it: nothing is routed to that worker any more
            host.request("session/destroy", {"sessionId": run["sessionId"], "workerKey": key})
    host.wait_stderr(lambda line: "forgetting worker default/helper" in line, timeout=30)
    listed = {w["workerKey"]: w for w in host.request("supervisor/status")["workers"]}
    assert "helper" not in listed
    # Its session is routed to it, so keeper stays listed, stopped.
    assert (listed["keeper"]["state"], listed["keeper"]["sessions"]) == ("exited", 1)

    llm.enqueue(Reply.text(["back"]))
    again = host.request("run/start", {"message": "again", "workerKey": "helper"})
    assert host.wait_run_completed(again["runId"]).params["status"] == "complete"
    listed = {w["workerKey"]: w for w in host.request("supervisor/status")["workers"]}
    assert (listed["helper"]["state"], listed["helper"]["restarts"]) == ("ready", 0)
    assert listed["keeper"]["sessions"] == 1


def test_a_worker_and_a_session_whose_background_process_runs_are_kept_until_it_ends(
    start_host: StartHost, llm: ScriptedLLM, tmp_path: Path
) -> None:
    host = start_host("--worker-idle-timeout", IDLE_S, "--session-idle-timeout", IDLE_S)
    host.initialize()
    go = tmp_path / "go"  # the process runs until the test creates it (bounded: 30 s)
    serve = until_created(go, "echo served")
    llm.enqueue(
        Reply.tool_call("terminal", {"command": serve, "background": True}),
        Reply.text(["it runs"]),
    )
    run = host.request("run/start", {"message": "serve it"})
    host.wait_run_completed(run["runId"])
    sid = run["sessionId"]
    # Each idle period passes and finds the process running: neither is stopped.
    host.wait_stderr(lambda line: f"keeping session {sid}" in line, timeout=30)
    host.wait_stderr(lambda line: "keeping worker" in line and sid in line, timeout=30)
    assert not [n for _, n in host.received if getattr(n, "method", "") == "worker/exited"]
    [proc] = host.request("process/list", {"sessionId": sid})["processes"]
    assert proc["status"] == "running"

    go.touch()  # the process ends by itself; then the worker goes idle
    exited = host.wait_for(lambda n: n.method == "worker/exited", timeout=30)
    assert exited.params["reason"] == "idle"


def shell_state_of(temp: Path, marker: str) -> list[Path]:
    """hermes' saved shell state (its local environment's snapshot, which it keeps in
    ``$TMPDIR``) holding ``marker``."""
    return [p for p in temp.glob("hermes-snap-*.sh") if marker in p.read_text("utf-8")]


def test_a_terminal_environment_idle_past_its_lifetime_is_reaped_each_time_it_idles(
    host: HostClient, llm: ScriptedLLM, home: Path, tmp_path: Path
) -> None:
    # hermes reaps on a thread that wakes every second and looks once a minute; the
    # worker's timer is set for the expiry itself, so a 1 s lifetime ends in seconds.
    temp = tmp_path / "shell-temp"
    temp.mkdir()
    with (home / ".env").open("a", encoding="utf-8") as env:
        env.write(f"TERMINAL_LIFETIME_SECONDS=1\nTMPDIR={temp}\n")
    for round_ in ("first", "second"):  # the timer is set again once a tool runs again
        marker = f"reaped-{round_}-{uuid.uuid4().hex}"
        command = {"command": f"export MARK={marker}; echo set"}
        llm.enqueue(Reply.tool_call("terminal", command), Reply.text(["done"]))
        run = host.request("run/start", {"sessionId": "s1", "message": "set it"})
        assert host.wait_run_completed(run["runId"]).params["status"] == "complete"
        saved = shell_state_of(temp, marker)
        assert len(saved) == 1
        assert wait_deleted(saved[0], 20)
