"""The worker limit through the real binary: at --max-workers, the least recently used
free worker is stopped (worker/exited, reason limit) to start another, and its sessions
resume from the DB; a worker whose run waits on the host, or whose background process
runs, is never stopped, and the request that needed room fails with worker_limit until
that run or process ends. Also a worker that never gets ready exits as start_failed."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermes_stdio.testing.llm_server import Reply, ScriptedLLM
from hermes_stdio.wire import ErrorType, RpcError

from .conftest import StartHost, received, until_created
from .test_approvals import respond, waiting


def states(host: object) -> dict[str, str]:
    workers = host.request("supervisor/status")["workers"]  # type: ignore[attr-defined]
    return {w["profile"]: w["state"] for w in workers}


def test_at_the_limit_the_least_recently_used_free_worker_makes_room_and_resumes_later(
    start_host: StartHost, llm: ScriptedLLM
) -> None:
    host = start_host("--max-workers", "1")
    host.initialize()
    llm.enqueue(Reply.text(["I will remember KIWI."]))
    first = host.request("run/start", {"message": "remember KIWI", "profile": "work"})
    host.wait_run_completed(first["runId"])

    llm.enqueue(Reply.text(["hello from play"]))
    other = host.request("run/start", {"message": "hi", "profile": "play"})
    # Stopped before the new worker starts, so before the run's notifications.
    exited = host.wait_for(lambda n: n.method == "worker/exited", timeout=30)
    assert exited.params["profile"] == "work" and exited.params["expected"] is True
    assert exited.params["reason"] == "limit"
    assert host.wait_run_completed(other["runId"]).params["status"] == "complete"
    assert states(host) == {"work": "exited", "play": "ready"}
    host.wait_stderr(lambda line: "least recently used" in line)

    # The stopped worker's session keeps its route: named alone, it comes back from
    # work's database, in a new worker that in turn takes play's place.
    llm.enqueue(Reply.text(["KIWI"]))
    resume = {"sessionId": first["sessionId"], "message": "which?"}
    again = host.request("run/start", resume)
    done = host.wait_run_completed(again["runId"]).params
    assert done["status"] == "complete" and done["result"]["messageCount"] == 4
    assert states(host) == {"work": "ready", "play": "exited"}


def test_a_worker_whose_run_waits_on_the_host_is_never_stopped_for_room(
    start_host: StartHost, llm: ScriptedLLM, tmp_path: Path
) -> None:
    host = start_host("--max-workers", "1")
    host.initialize()
    victim, run, ask = waiting(host, llm, tmp_path)  # the default profile's worker
    with pytest.raises(RpcError) as caught:
        host.request("session/listStored", {"profile": "work"})
    assert caught.value.kind is ErrorType.WORKER_LIMIT and caught.value.data["limit"] == 1
    assert states(host) == {"default": "ready", "work": "exited"}

    respond(host, run, ask, "deny")
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"
    assert victim.exists()
    # The run ended: now the same request makes room.
    assert host.request("session/listStored", {"profile": "work"})["sessions"] == []
    assert states(host) == {"default": "exited", "work": "ready"}


def test_a_worker_whose_background_process_runs_is_never_stopped_for_room(
    start_host: StartHost, llm: ScriptedLLM, tmp_path: Path
) -> None:
    host = start_host("--max-workers", "1")
    host.initialize()
    go = tmp_path / "go"  # the dev server runs until the test creates it (bounded: 30 s)
    serve = until_created(go, "echo served")
    llm.enqueue(
        Reply.tool_call("terminal", {"command": serve, "background": True}),
        Reply.text(["it runs"]),
    )
    run = host.request("run/start", {"message": "serve it"})  # the default profile's worker
    host.wait_run_completed(run["runId"])
    with pytest.raises(RpcError) as caught:
        host.request("session/listStored", {"profile": "work"})
    assert caught.value.kind is ErrorType.WORKER_LIMIT and caught.value.data["limit"] == 1
    assert states(host) == {"default": "ready", "work": "exited"}
    [proc] = host.request("process/list", {"sessionId": run["sessionId"]})["processes"]
    assert proc["status"] == "running"

    go.touch()  # the process ends by itself: now the same request makes room
    host.wait_for(lambda n: n.method == "process/exited", timeout=30)
    assert host.request("session/listStored", {"profile": "work"})["sessions"] == []
    exited = host.wait_for(lambda n: n.method == "worker/exited", timeout=30)
    assert (exited.params["profile"], exited.params["reason"]) == ("default", "limit")
    assert states(host) == {"default": "exited", "work": "ready"}


def test_prewarming_more_profiles_than_the_limit_fails_initialize_and_changes_nothing(
    start_host: StartHost,
) -> None:
    host = start_host("--max-workers", "1")
    too_many = {"protocolVersion": 1, "options": {"prewarmProfiles": ["work", "play"]}}
    with pytest.raises(RpcError) as caught:
        host.request("initialize", too_many)
    assert caught.value.kind is ErrorType.INVALID_PARAMS
    assert caught.value.data["field"] == "params.options.prewarmProfiles"
    # Nothing started; a name given twice is one profile.
    twice = {"protocolVersion": 1, "options": {"prewarmProfiles": ["work", "work"]}}
    host.request("initialize", twice)
    assert set(states(host)) == {"work"}


def test_a_worker_that_never_gets_ready_exits_as_start_failed(
    start_host: StartHost, tmp_path: Path
) -> None:
    silent = tmp_path / "silent-python"  # a worker that starts and never says ready
    silent.write_text("#!/bin/sh\nexec sleep 60\n")
    silent.chmod(0o755)
    host = start_host(
        "--agent-python", str(silent), "--worker-ready-timeout", "0.5", "--no-worker-template"
    )
    host.initialize()
    with pytest.raises(RpcError) as caught:
        host.request("session/listStored", {})
    assert caught.value.kind is ErrorType.WORKER_UNAVAILABLE
    exited = host.wait_for(lambda n: n.method == "worker/exited", timeout=30)
    assert exited.params["expected"] is True and exited.params["reason"] == "start_failed"
    assert not received(host, "worker/started")  # it never got ready
