"""Worker processes through the real binary: another python, prewarming, tool scan, bursts,
and the ``worker/started`` each process is announced by."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from unittest.mock import ANY

import pytest
import yaml

from hermes_stdio.protocol.types import RunErrorType
from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM
from hermes_stdio.wire import ErrorType, RpcError

from .conftest import (
    StartHost,
    opened_by_reader,
    received,
    started_worker,
    template_ready,
    worker_pids,
)


def _python_without_hermes() -> str:
    base = getattr(sys, "_base_executable", sys.executable)
    probe = subprocess.run([base, "-c", "import run_agent"], capture_output=True, timeout=60)
    if os.path.abspath(base) == os.path.abspath(sys.executable) or probe.returncode == 0:
        pytest.skip("no interpreter without hermes-agent on this machine")
    return base


@pytest.mark.parametrize("how", ["flag", "env"])
def test_a_worker_runs_under_another_python_and_reports_a_missing_agent_as_agent_unavailable(
    start_host: StartHost, how: str
) -> None:
    python = _python_without_hermes()
    if how == "flag":
        host = start_host("--agent-python", python)
    else:
        host = start_host(env={"HERMES_AGENT_PYTHON": python})
    host.initialize()
    run = host.request("run/start", {"message": "hi"})
    done = host.wait_run_completed(run["runId"])
    assert done.params["status"] == "error"
    assert done.params["error"]["type"] == RunErrorType.AGENT_UNAVAILABLE
    assert [n.method for n in host.run_notifications(run["runId"])] == ["run/completed"]
    assert worker_pids(host)[("default", None)]


def test_prewarmed_profiles_have_a_ready_worker_before_any_run(
    start_host: StartHost, llm: ScriptedLLM
) -> None:
    host = start_host()
    host.request(
        "initialize", {"protocolVersion": 1, "options": {"prewarmProfiles": ["work", "default"]}}
    )
    status = host.request("supervisor/status")
    # No run was asked for: these workers exist because of prewarming.
    assert {w["profile"] for w in status["workers"]} == {"work", "default"}
    assert {w["state"] for w in status["workers"]} <= {"starting", "ready"}
    llm.enqueue(Reply.text(["warm"]))
    run = host.request("run/start", {"message": "hi", "profile": "work"})
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"
    (work,) = [w for w in host.request("supervisor/status")["workers"] if w["profile"] == "work"]
    assert work["restarts"] == 0 and work["state"] == "ready"


def test_prewarming_an_unknown_profile_fails_initialize_and_leaves_it_uninitialized(
    start_host: StartHost,
) -> None:
    host = start_host()
    for name, kind in (
        ("nobody", ErrorType.UNKNOWN_PROFILE),
        ("../etc", ErrorType.INVALID_PROFILE),
    ):
        with pytest.raises(RpcError) as err:
            host.request(
                "initialize", {"protocolVersion": 1, "options": {"prewarmProfiles": [name]}}
            )
        assert err.value.kind is kind
    with pytest.raises(RpcError) as err:
        host.request("supervisor/status")
    assert err.value.kind is ErrorType.SERVER_NOT_INITIALIZED


@pytest.mark.parametrize("mode", ["spawned", "forked"])
def test_the_first_worker_saves_hermes_tool_scan_and_later_workers_start_from_it(
    mode: str, start_host: StartHost, llm: ScriptedLLM, tmp_path: Path
) -> None:
    xdg = tmp_path / "xdg"
    args = ["--no-worker-template"] if mode == "spawned" else []
    host = start_host(*args, env={"XDG_CACHE_HOME": str(xdg)})
    host.initialize()
    if mode == "forked":
        template_ready(host)
    started_worker(host, llm, "default")
    [cache] = (xdg / "hermes-stdio").glob("tool-scan-*.json")
    saved = cache.stat()
    verdicts = json.loads(cache.read_text())["files"]
    assert any(path.endswith("/tools/terminal_tool.py") for path in verdicts)

    started_worker(host, llm, "work")  # every verdict served from the file: nothing rewritten
    after = cache.stat()
    assert (after.st_ino, after.st_mtime_ns) == (saved.st_ino, saved.st_mtime_ns)
    status = host.request("supervisor/status")
    modes = {w["profile"]: w["startMode"] for w in status["workers"]}
    assert modes == {"default": mode, "work": mode}


def test_estimate_context_names_an_agent_that_cannot_be_imported_or_built(
    start_host: StartHost, home: Path
) -> None:
    host = start_host("--agent-python", _python_without_hermes())
    host.initialize()
    with pytest.raises(RpcError) as err:
        host.request("session/estimateContext", {"sessionId": "sess-no-agent"})
    assert err.value.kind is ErrorType.AGENT_UNAVAILABLE

    config = home / "profiles" / "play" / "config.yaml"
    cfg = yaml.safe_load(config.read_text())
    cfg["model"]["provider"] = "no-such-provider"
    config.write_text(yaml.safe_dump(cfg))
    host = start_host()
    host.initialize()
    with pytest.raises(RpcError) as err:
        host.request("session/estimateContext", {"sessionId": "sess-bad", "profile": "play"})
    assert err.value.kind is ErrorType.AGENT_ERROR
    assert host.request("supervisor/status")["pid"] == host.proc.pid


def test_a_burst_of_requests_to_a_starting_worker_waits_on_one_thread_and_all_are_answered(
    start_host: StartHost, tmp_path: Path
) -> None:
    gate = tmp_path / "gate"
    os.mkfifo(gate)
    launcher = tmp_path / "agent-python"  # a worker's Python starts once the gate opens
    launcher.write_text(
        "#!/bin/sh\n"
        f'case "$*" in *hermes_stdio.worker*) read go < {gate} ;; esac\n'
        f'exec {sys.executable} "$@"\n'
    )
    launcher.chmod(0o755)
    host = start_host("--agent-python", str(launcher), "--no-worker-template")
    host.initialize()
    ids = [
        host.send_request("session/status", {"sessionId": f"s{i}", "profile": "work"})
        for i in range(300)
    ]
    # Answered after the supervisor read (and dispatched) every request before it.
    assert host.request("supervisor/status")["workers"][0]["state"] == "starting"
    threads = len(os.listdir(f"/proc/{host.proc.pid}/task"))
    assert threads < 40, f"{threads} threads for 300 waiting requests"
    opening = opened_by_reader(gate)
    os.write(opening, b"go\n")
    os.close(opening)
    answers = [host.response(i, timeout=60) for i in ids]
    assert all(a.error is None and a.result["loaded"] is False for a in answers)


def _index(host: HostClient, message: object) -> int:
    return next(i for i, (_, m) in enumerate(host.received) if m is message)


def _response_index(host: HostClient, msg_id: object) -> int:
    return next(i for i, (_, m) in enumerate(host.received) if getattr(m, "id", None) == msg_id)


def test_each_worker_process_announces_itself_with_worker_started_before_anything_from_it(
    any_host: HostClient, llm: ScriptedLLM
) -> None:
    host = any_host
    mode = "spawned" if not host.request("supervisor/status")["template"] else "forked"
    llm.enqueue(Reply.text(["hello"]))
    start_id = host.send_request("run/start", {"message": "hi"})
    run = host.response(start_id).result
    host.wait_run_completed(run["runId"])
    [started] = received(host, "worker/started")
    [info] = host.request("supervisor/status")["workers"]
    # The whole WorkerInfo, as supervisor/status gives it once the run has ended.
    assert started.params == {"worker": {**info, "lastUsedAt": ANY, "sessions": 0}}
    assert info["state"] == "ready" and info["startMode"] == mode and info["pid"]
    [run_started] = [n for n in host.run_notifications(run["runId"]) if n.method == "run/started"]
    assert _index(host, started) < _response_index(host, start_id) < _index(host, run_started)

    # A crash, then the next request: a new process, announced after the old one's exit.
    os.kill(info["pid"], signal.SIGKILL)
    exited = host.wait_for(lambda n: n.method == "worker/exited")
    started_worker(host, llm)
    [_, again] = received(host, "worker/started")
    assert _index(host, exited) < _index(host, again)
    assert again.params["worker"]["pid"] == worker_pids(host)[("default", None)] != info["pid"]
    assert again.params["worker"]["restarts"] == 1

    # worker/restart: its result comes after the new process's worker/started.
    restart_id = host.send_request("worker/restart", {"profile": "default"})
    restarted = host.response(restart_id).result["worker"]
    [*_, third] = received(host, "worker/started")
    assert third.params["worker"]["pid"] == restarted["pid"] != again.params["worker"]["pid"]
    assert _index(host, third) < _response_index(host, restart_id)

    # A workerKey is a worker of its own, announced with its key.
    host.request("session/status", {"sessionId": "s-keyed", "workerKey": "side"})
    [*_, keyed] = received(host, "worker/started")
    assert (keyed.params["worker"]["profile"], keyed.params["worker"]["workerKey"]) == (
        "default",
        "side",
    )
    assert len(received(host, "worker/started")) == 4


def test_prewarmed_workers_announce_themselves_without_a_request(
    start_host: StartHost,
) -> None:
    host = start_host()
    host.request(
        "initialize", {"protocolVersion": 1, "options": {"prewarmProfiles": ["work", "play"]}}
    )
    first = host.wait_for(lambda n: n.method == "worker/started", timeout=60)
    second = host.wait_for(lambda n: n.method == "worker/started", timeout=60)
    announced = {n.params["worker"]["profile"]: n.params["worker"]["pid"] for n in (first, second)}
    assert announced == {p: pid for (p, _k), pid in worker_pids(host).items()}
    assert set(announced) == {"work", "play"}
