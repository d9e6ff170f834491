"""Profiles and worker processes through the real binary: isolation, names, routing."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM
from hermes_stdio.wire import ErrorType, RpcError, encode_frame, encode_request

from .conftest import DEFAULT_SECRET, WORK_SECRET, StartHost, template_ready, worker_pids


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
