"""Profiles and worker processes through the real binary: isolation, crashes, routing."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from hermes_stdio.protocol.types import RunErrorType
from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM
from hermes_stdio.wire import ErrorType, Notification, RpcError, encode_frame, encode_request

from .conftest import (
    DEFAULT_SECRET,
    WORK_SECRET,
    StartHost,
    run_in_a_long_tool,
    started_worker,
    template_ready,
    wait_gone,
    worker_pids,
)


def terminal_output(host: HostClient, llm: ScriptedLLM, command: str, **params: str) -> str:
    llm.enqueue(Reply.tool_call("terminal", {"command": command}), Reply.text(["ok"]))
    run = host.request("run/start", {"message": "run it", **params})
    host.wait_run_completed(run["runId"])
    events = [
        n.params["event"] for n in host.run_notifications(run["runId"]) if n.method == "run/event"
    ]
    result = next(e["result"] for e in events if e["type"] == "tool.completed")
    return str(json.loads(result)["output"])


def echo_env_run(host: HostClient, llm: ScriptedLLM, profile: str) -> str:
    command = 'echo "W=${WORK_SECRET:-unset} D=${DEFAULT_SECRET:-unset}"'
    return terminal_output(host, llm, command, profile=profile)


@pytest.mark.parametrize("mode", ["spawned", "forked"])
def test_two_profiles_run_in_two_worker_processes_that_never_see_each_others_secrets(
    start_host: StartHost, llm: ScriptedLLM, mode: str
) -> None:
    # The host's own environment carries the default profile's secret too.
    args = ["--no-worker-template"] if mode == "spawned" else []
    host = start_host(*args, env={"DEFAULT_SECRET": DEFAULT_SECRET})
    host.initialize()
    if mode == "forked":
        template_ready(host)
    work_out = echo_env_run(host, llm, "work")
    default_out = echo_env_run(host, llm, "default")
    assert f"W={WORK_SECRET}" in work_out and "D=unset" in work_out
    assert f"D={DEFAULT_SECRET}" in default_out and "W=unset" in default_out
    pids = worker_pids(host)
    assert pids[("work", None)] != pids[("default", None)]
    assert os.getpgid(pids[("work", None)]) == pids[("work", None)]  # own process group
    modes = {w["startMode"] for w in host.request("supervisor/status")["workers"]}
    assert modes == {mode}


def test_a_worker_key_isolates_a_session_in_its_own_process(
    host: HostClient, llm: ScriptedLLM
) -> None:
    llm.enqueue(Reply.text(["a"]), Reply.text(["b"]))
    a = host.request("run/start", {"message": "a"})
    host.wait_run_completed(a["runId"])
    b = host.request("run/start", {"message": "b", "workerKey": "compression"})
    host.wait_run_completed(b["runId"])
    pids = worker_pids(host)
    assert pids[("default", "compression")] != pids[("default", None)]
    # The session is routed to the process that holds it.
    status = host.request("session/status", {"sessionId": b["sessionId"]})
    assert status["loaded"] is True


@pytest.mark.parametrize("mode", ["spawned", "forked"])
def test_a_worker_key_that_looks_like_an_option_is_only_a_key_of_the_named_profile(
    start_host: StartHost, llm: ScriptedLLM, mode: str
) -> None:
    host = start_host(*(["--no-worker-template"] if mode == "spawned" else []))
    host.initialize()
    if mode == "forked":
        template_ready(host)
    key = "--profile=work"
    command = 'echo "W=${WORK_SECRET:-unset} D=${DEFAULT_SECRET:-unset}"'
    out = terminal_output(host, llm, command, profile="default", workerKey=key)
    assert out == f"W=unset D={DEFAULT_SECRET}"
    workers = host.request("supervisor/status")["workers"]
    assert [(w["profile"], w["workerKey"], w["startMode"]) for w in workers] == [
        ("default", key, mode)
    ]


def test_sessions_in_one_worker_share_exported_variables_but_not_their_directories(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    # hermes runs every top-level session's commands in one terminal environment, as in
    # its gateway and ACP adapter; a worker key gives a session a shell of its own.
    project = tmp_path / "project"
    project.mkdir()
    command = f"export HS_SHARED=from-a && cd {project} && echo set"
    assert terminal_output(host, llm, command, sessionId="shell-a") == "set"
    probe = 'echo "[$HS_SHARED] $(pwd)"'
    assert terminal_output(host, llm, probe, sessionId="shell-a") == f"[from-a] {project}"
    seen = terminal_output(host, llm, probe, sessionId="shell-b")
    assert seen.startswith("[from-a] ") and seen != f"[from-a] {project}"
    alone = terminal_output(host, llm, probe, sessionId="shell-c", workerKey="alone")
    assert alone.startswith("[] ")


def test_killing_a_worker_mid_run_completes_the_run_with_worker_crashed_and_the_next_run_works(
    any_host: HostClient, llm: ScriptedLLM
) -> None:
    host = any_host
    llm.enqueue(Reply.text([f"t{i} " for i in range(100)], delay=0.1))
    run = host.request("run/start", {"message": "long"})
    host.wait_for(lambda n: n.method == "run/delta" and n.params["runId"] == run["runId"])
    pid = worker_pids(host)[("default", None)]
    os.kill(pid, signal.SIGKILL)
    done = host.wait_run_completed(run["runId"], timeout=20)
    assert done.params["status"] == "error"
    assert done.params["error"]["type"] == RunErrorType.WORKER_CRASHED
    notes = host.run_notifications(run["runId"])
    assert [n.params["seq"] for n in notes] == list(range(1, len(notes) + 1))
    assert [n.method for n in notes].count("run/completed") == 1
    exited = host.wait_for(lambda n: n.method == "worker/exited")
    assert exited.params == {
        "profile": "default",
        "workerKey": None,
        "pid": pid,
        "exitCode": None,
        "signal": "SIGKILL",
        "expected": False,
        "reason": "crashed",
    }
    result = host.request("run/result", {"runId": run["runId"]})
    assert result["status"] == "error" and result["error"]["type"] == RunErrorType.WORKER_CRASHED
    # The session died with its worker; the next request gets a fresh worker.
    assert (
        host.request("session/status", {"sessionId": run["sessionId"], "ifLoaded": True})["loaded"]
        is False
    )
    llm.clear()
    llm.enqueue(Reply.text(["back"]))
    again = host.request("run/start", {"message": "again"})
    assert host.wait_run_completed(again["runId"]).params["status"] == "complete"
    status = host.request("supervisor/status")
    (worker,) = [w for w in status["workers"] if w["profile"] == "default"]
    assert worker["pid"] != pid and worker["restarts"] == 1 and worker["state"] == "ready"


def test_a_crash_looping_worker_backs_off_until_worker_restart(
    start_host: StartHost, llm: ScriptedLLM
) -> None:
    host = start_host()
    host.initialize()
    for _ in range(5):
        llm.enqueue(Reply.text(["x"] * 30, delay=0.1))
        run = host.request("run/start", {"message": "crash", "profile": "play"})
        host.wait_for(lambda n, r=run: n.method == "run/delta" and n.params["runId"] == r["runId"])
        os.kill(worker_pids(host)[("play", None)], signal.SIGKILL)
        host.wait_run_completed(run["runId"], timeout=20)
        host.wait_for(lambda n: n.method == "worker/exited")
        llm.clear()
    with pytest.raises(RpcError) as err:
        host.request("run/start", {"message": "again", "profile": "play"})
    assert err.value.kind is ErrorType.WORKER_UNAVAILABLE
    (worker,) = [w for w in host.request("supervisor/status")["workers"] if w["profile"] == "play"]
    assert worker["state"] == "backoff" and worker["restarts"] == 5
    restarted = host.request("worker/restart", {"profile": "play"})
    assert restarted["worker"]["state"] == "ready" and restarted["worker"]["pid"]
    llm.enqueue(Reply.text(["fine"]))
    run = host.request("run/start", {"message": "again", "profile": "play"})
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"


def test_session_status_if_loaded_never_starts_a_worker_or_records_a_route(
    host: HostClient,
) -> None:
    status = host.request(
        "session/status", {"sessionId": "sess_unknown", "profile": "work", "ifLoaded": True}
    )
    assert status["loaded"] is False and status["running"] is False
    assert host.request("supervisor/status")["workers"] == []
    assert host.request("session/list", {"profile": "work"}) == {"sessions": []}
    assert host.request("supervisor/status")["workers"] == []


@pytest.mark.parametrize(
    "name", ["../etc", "a/b", "", "UPPER", "x" * 65, "-dash", "a\x00b", ".hidden"]
)
def test_profile_names_that_could_escape_the_home_are_refused(host: HostClient, name: str) -> None:
    with pytest.raises(RpcError) as err:
        host.request("run/start", {"message": "hi", "profile": name})
    assert err.value.kind is ErrorType.INVALID_PROFILE
    assert host.request("supervisor/status")["workers"] == []


def test_a_profile_symlinked_outside_the_home_is_refused(
    host: HostClient, home: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (home / "profiles" / "sneaky").symlink_to(outside)
    with pytest.raises(RpcError) as err:
        host.request("run/start", {"message": "hi", "profile": "sneaky"})
    assert err.value.kind is ErrorType.INVALID_PROFILE


def test_a_missing_profile_is_unknown_profile(host: HostClient) -> None:
    with pytest.raises(RpcError) as err:
        host.request("run/start", {"message": "hi", "profile": "nobody"})
    assert err.value.kind is ErrorType.UNKNOWN_PROFILE


def test_a_session_cannot_be_moved_to_another_profile(host: HostClient, llm: ScriptedLLM) -> None:
    llm.enqueue(Reply.text(["ok"]))
    run = host.request("run/start", {"message": "hi", "profile": "work"})
    host.wait_run_completed(run["runId"])
    with pytest.raises(RpcError) as err:
        host.request(
            "run/start", {"message": "hi", "sessionId": run["sessionId"], "profile": "play"}
        )
    assert err.value.kind is ErrorType.INVALID_PARAMS


def test_two_run_starts_naming_one_new_session_for_two_workers_create_it_once(
    host: HostClient, llm: ScriptedLLM
) -> None:
    llm.enqueue(Reply.text(["one"]), Reply.text(["two"]))
    frames = [
        encode_frame(
            encode_request(f"r{i}", "run/start", {"message": "hi", "sessionId": "dup", **target})
        )
        for i, target in enumerate([{}, {"workerKey": "k1"}])
    ]
    host.write_raw(b"".join(frames))  # in one write: both arrive before either is answered
    answers = [host.response(f"r{i}", 60) for i in range(2)]
    accepted = [a for a in answers if a.error is None]
    refused = [a for a in answers if a.error is not None]
    assert len(accepted) == 1 and len(refused) == 1
    assert refused[0].error["code"] == ErrorType.INVALID_PARAMS.code
    host.wait_run_completed(accepted[0].result["runId"])
    history = host.request("session/history", {"sessionId": "dup"})["messages"]
    assert [m["role"] for m in history] == ["user", "assistant"]


@pytest.mark.parametrize("method", ["session/estimateContext", "session/undo"])
def test_two_requests_loading_one_stored_session_into_two_workers_load_it_once(
    host: HostClient, llm: ScriptedLLM, method: str
) -> None:
    llm.enqueue(Reply.text(["stored"]))
    run = host.request("run/start", {"message": "hi", "sessionId": "kept"})
    host.wait_run_completed(run["runId"])
    host.request("worker/restart", {"profile": "default"})  # its route goes with the worker
    frames = [
        encode_frame(encode_request(f"q{i}", method, {"sessionId": "kept", **target}))
        for i, target in enumerate([{}, {"workerKey": "k1"}])
    ]
    host.write_raw(b"".join(frames))  # both arrive before either is answered
    answers = [host.response(f"q{i}", 60) for i in range(2)]
    refused = [a for a in answers if a.error is not None]
    assert [a.error["code"] for a in refused] == [ErrorType.INVALID_PARAMS.code]
    assert refused[0].error["data"]["field"] == "params.profile"
    status = host.request("session/status", {"sessionId": "kept", "ifLoaded": True})
    assert status["loaded"] is True


def test_a_failed_request_leaves_no_route_for_the_session_it_named(
    host: HostClient, llm: ScriptedLLM
) -> None:
    llm.enqueue(Reply.text(["stored"]))
    run = host.request("run/start", {"message": "hi", "sessionId": "kept"})
    host.wait_run_completed(run["runId"])
    host.request("session/destroy", {"sessionId": "kept"})  # stored, and routed nowhere now
    bad = {"sessionId": "kept", "workerKey": "k1", "model": "m", "provider": "no-such-provider"}
    with pytest.raises(RpcError):
        host.request("session/switchModel", bad)
    # Not claimed by k1: another worker may load it.
    assert host.request("session/estimateContext", {"sessionId": "kept", "workerKey": "k2"})


def test_a_run_that_ended_before_its_worker_restarted_is_still_known_as_finished(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    run, _pids = run_in_a_long_tool(host, llm, tmp_path)
    host.request("worker/restart", {"profile": "default"})  # ends the run
    done = host.wait_run_completed(run["runId"]).params
    assert (done["status"], done["error"]["type"]) == ("error", RunErrorType.WORKER_STOPPED)
    target = {"runId": run["runId"]}
    assert host.request("run/interrupt", target) == {"interrupted": False}
    assert host.request("run/steer", {**target, "text": "more"}) == {"accepted": False}
    with pytest.raises(RpcError) as err:
        host.request("approval/respond", {**target, "approvalId": "appr_x", "decision": "once"})
    assert err.value.kind is ErrorType.UNKNOWN_APPROVAL


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


def test_a_request_pending_in_a_worker_that_dies_fails_with_worker_crashed(
    any_host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    host = any_host
    run, tool_pids = run_in_a_long_tool(host, llm, tmp_path)
    # destroy answers only after the run's tool was interrupted (about a second).
    pending = host.send_request("session/destroy", {"sessionId": run["sessionId"]})
    os.kill(worker_pids(host)[("default", None)], signal.SIGKILL)
    resp = host.response(pending)
    assert resp.error is not None
    assert resp.error["code"] == ErrorType.WORKER_CRASHED.code
    assert resp.error["data"]["type"] == ErrorType.WORKER_CRASHED.type
    done = host.wait_run_completed(run["runId"])
    assert done.params["error"]["type"] == RunErrorType.WORKER_CRASHED
    host.wait_for(lambda n: n.method == "worker/exited")
    # The killed worker's tool command (in a session of its own) does not outlive it.
    assert all(wait_gone(pid, 10) for pid in tool_pids)


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


def test_a_session_continues_from_its_stored_history_after_its_worker_was_killed(
    host: HostClient, llm: ScriptedLLM
) -> None:
    llm.enqueue(Reply.text(["Noted: zebra."]))
    first = host.request("run/start", {"message": "Remember the word zebra."})
    assert host.wait_run_completed(first["runId"]).params["status"] == "complete"
    pid = worker_pids(host)[("default", None)]
    os.kill(pid, signal.SIGKILL)
    host.wait_for(lambda n: n.method == "worker/exited" and n.params["pid"] == pid)

    llm.clear()
    llm.enqueue(Reply.text(["It was zebra."]))
    again = host.request("run/start", {"message": "Which word?", "sessionId": first["sessionId"]})
    done = host.wait_run_completed(again["runId"])
    assert done.params["status"] == "complete"
    assert done.params["result"]["messageCount"] == 4
    sent = [(m["role"], m.get("content")) for m in llm.requests[0]["messages"]]
    assert ("user", "Remember the word zebra.") in sent
    assert ("assistant", "Noted: zebra.") in sent
    assert sent[-1] == ("user", "Which word?")
    # A new id the database does not know starts empty, as before.
    llm.enqueue(Reply.text(["hi"]))
    fresh = host.request("run/start", {"message": "hi", "sessionId": "sess-never-seen"})
    assert host.wait_run_completed(fresh["runId"]).params["result"]["messageCount"] == 2


def test_another_profiles_session_resumes_by_its_id_alone_after_a_crash_and_a_restart(
    host: HostClient, llm: ScriptedLLM
) -> None:
    llm.enqueue(Reply.text(["Noted: zebra."]))
    first = host.request("run/start", {"message": "Remember zebra.", "profile": "work"})
    sid = first["sessionId"]
    host.wait_run_completed(first["runId"])
    pid = worker_pids(host)[("work", None)]
    os.kill(pid, signal.SIGKILL)
    host.wait_for(lambda n: n.method == "worker/exited" and n.params["pid"] == pid)

    # Named alone, it reaches work's database again: not a new session under default.
    llm.enqueue(Reply.text(["It was zebra."]))
    again = host.request("run/start", {"message": "Which word?", "sessionId": sid})
    done = host.wait_run_completed(again["runId"]).params
    assert done["status"] == "complete" and done["result"]["messageCount"] == 4
    assert ("default", None) not in worker_pids(host)

    host.request("worker/restart", {"profile": "work"})
    llm.enqueue(Reply.text(["Still zebra."]))
    third = host.request("run/start", {"message": "And now?", "sessionId": sid})
    done = host.wait_run_completed(third["runId"]).params
    assert done["status"] == "complete" and done["result"]["messageCount"] == 6
    with pytest.raises(RpcError) as caught:
        host.request("run/start", {"message": "moved?", "sessionId": sid, "profile": "default"})
    assert caught.value.kind is ErrorType.INVALID_PARAMS


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


def test_a_run_started_while_a_wedged_worker_restarts_runs_in_the_new_worker_and_ends_once(
    host: HostClient, llm: ScriptedLLM
) -> None:
    old = started_worker(host, llm)
    llm.enqueue(Reply.text([f"a{i} " for i in range(100)], delay=0.1))
    first = host.request("run/start", {"message": "A"})
    host.wait_for(lambda n: n.method == "run/delta" and n.params["runId"] == first["runId"])
    os.kill(old, signal.SIGSTOP)  # deaf to worker/shutdown: the stop escalates to SIGKILL
    restart = host.send_request("worker/restart", {"profile": "default"})
    deadline = time.monotonic() + 10
    while [w["state"] for w in host.request("supervisor/status")["workers"]] != ["stopping"]:
        assert time.monotonic() < deadline, "the restart never began stopping the worker"
    llm.enqueue(Reply.text([f"b{i} " for i in range(20)]))
    second = host.request("run/start", {"message": "B"}, timeout=60)  # waits for the stop
    assert host.response(restart, 60).error is None
    a_done = host.wait_run_completed(first["runId"], timeout=30).params
    assert a_done["error"]["type"] == RunErrorType.WORKER_STOPPED
    assert host.wait_run_completed(second["runId"], timeout=30).params["status"] == "complete"
    notes = host.run_notifications(second["runId"])
    assert [n.params["seq"] for n in notes] == list(range(1, len(notes) + 1))
    assert [n.method for n in notes].count("run/completed") == 1
    assert notes[-1].method == "run/completed"
    [exited] = [m for _, m in host.received if getattr(m, "method", "") == "worker/exited"]
    assert exited.params["pid"] == old and exited.params["expected"] is True
    assert exited.params["reason"] == "restart"
    assert worker_pids(host)[("default", None)] != old


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


def test_a_burst_of_restarts_for_one_worker_costs_at_most_two_restarts_and_each_is_answered(
    host: HostClient, llm: ScriptedLLM
) -> None:
    old = started_worker(host, llm, "play")
    ids = [f"restart-{i}" for i in range(10)]
    params = {"profile": "play"}
    # In one write, so all ten arrive while the first restart is still stopping the worker.
    host.write_raw(b"".join(encode_frame(encode_request(i, "worker/restart", params)) for i in ids))
    answers = [host.response(i, timeout=60) for i in ids]
    assert [a.error for a in answers] == [None] * 10
    pids = {a.result["worker"]["pid"] for a in answers}
    current = worker_pids(host)[("play", None)]
    # The first restart's group, and at most one formed while it was starting the new one.
    assert current in pids and old not in pids and len(pids) <= 2
    exits = [
        msg
        for _, msg in list(host.received)
        if isinstance(msg, Notification)
        and msg.method == "worker/exited"
        and msg.params["profile"] == "play"
    ]
    assert [n.params["reason"] for n in exits] in (["restart"], ["restart", "restart"])
    assert exits[0].params["pid"] == old
