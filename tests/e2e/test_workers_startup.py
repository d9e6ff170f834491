"""Worker processes through the real binary: another python, prewarming, tool scan, bursts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from hermes_stdio.protocol.types import RunErrorType
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM
from hermes_stdio.wire import ErrorType, RpcError

from .conftest import StartHost, started_worker, template_ready, worker_pids


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
    start_host: StartHost,
) -> None:
    host = start_host("--no-worker-template")  # a cold start: the burst arrives before it ends
    host.initialize()
    ids = [
        host.send_request("session/status", {"sessionId": f"s{i}", "profile": "work"})
        for i in range(300)
    ]
    # Answered after the supervisor read (and dispatched) every request before it.
    assert host.request("supervisor/status")["workers"][0]["state"] == "starting"
    threads = len(os.listdir(f"/proc/{host.proc.pid}/task"))
    assert threads < 40, f"{threads} threads for 300 waiting requests"
    answers = [host.response(i, timeout=60) for i in ids]
    assert all(a.error is None and a.result["loaded"] is False for a in answers)
