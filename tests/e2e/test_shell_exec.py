"""shell/exec through the real binary and real hermes-agent: a command the host
runs itself, in the profile's environment, under hermes' rules, ended on time or
on cancel."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import yaml

from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM
from hermes_stdio.wire import ErrorType

from .conftest import (
    DEFAULT_SECRET,
    WORK_SECRET,
    received,
    refused,
    until_created,
    wait_gone,
    worker_pids,
)


def shell(host: HostClient, *argv: str, **params: Any) -> dict[str, Any]:
    return host.request("shell/exec", {"command": list(argv), **params})  # type: ignore[no-any-return]


def test_a_command_runs_in_the_workspace_and_answers_its_exit_and_outputs(
    host: HostClient, tmp_path: Path
) -> None:
    script = "pwd; echo oops >&2; exit 3"
    got = shell(host, "bash", "-c", script, workspace=str(tmp_path))
    assert got == {
        "exitCode": 3,
        "signal": None,
        "timedOut": False,
        "stdout": f"{tmp_path}\n",
        "stderr": "oops\n",
        "truncated": False,
        "durationMs": got["durationMs"],
        "workspace": str(tmp_path),
    }
    assert isinstance(got["durationMs"], int) and got["durationMs"] >= 0


def test_text_given_as_stdin_is_piped_through_the_command(host: HostClient) -> None:
    got = shell(host, "sort", stdin="pear\napple\nkiwi\n")
    assert (got["exitCode"], got["stdout"]) == (0, "apple\nkiwi\npear\n")
    # Without stdin the command reads /dev/null: it ends at once.
    assert shell(host, "cat")["stdout"] == ""


def test_it_sees_its_own_profiles_env_without_provider_keys_and_no_other_profiles(
    host: HostClient, home: Path
) -> None:
    host.request("env/set", {"profile": "work", "name": "OPENROUTER_API_KEY", "value": "sk-x"})
    script = 'echo "[$WORK_SECRET][$DEFAULT_SECRET][$OPENROUTER_API_KEY]"; pwd'
    got = shell(host, "bash", "-c", script, profile="work")
    assert got["stdout"] == f"[{WORK_SECRET}][][]\n{home / 'profiles' / 'work'}\n"
    assert shell(host, "bash", "-c", 'echo "[$WORK_SECRET][$DEFAULT_SECRET]"')["stdout"] == (
        f"[][{DEFAULT_SECRET}]\n"
    )


def test_a_sessions_command_runs_in_the_workspace_of_its_turns(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    llm.enqueue(Reply.text(["ok"]))
    run = host.request("run/start", {"message": "hi", "workspace": str(tmp_path)})
    host.wait_run_completed(run["runId"])
    got = shell(host, "pwd", sessionId=run["sessionId"])
    assert (got["stdout"], got["workspace"]) == (f"{tmp_path}\n", str(tmp_path))


def test_a_dangerous_command_waits_for_the_users_confirmation(
    host: HostClient, tmp_path: Path
) -> None:
    victim = tmp_path / "victim"
    (victim / "inner").mkdir(parents=True)
    params = {"command": ["rm", "-r", str(victim)], "workspace": str(tmp_path)}
    err = refused(host, "shell/exec", params)
    assert err.kind is ErrorType.COMMAND_DANGEROUS
    assert err.data["description"]
    assert victim.exists()
    assert host.request("shell/exec", {**params, "approved": True})["exitCode"] == 0
    assert not victim.exists()


def test_what_the_profile_denies_never_runs_even_approved(
    start_host: Any, home: Path, tmp_path: Path
) -> None:
    config_file = home / "profiles" / "work" / "config.yaml"
    config = yaml.safe_load(config_file.read_text())
    config["approvals"]["deny"] = ["touch *"]
    config_file.write_text(yaml.safe_dump(config))
    host = start_host()
    host.initialize()
    marker = tmp_path / "marker"
    params = {"command": ["touch", str(marker)], "profile": "work", "approved": True}
    err = refused(host, "shell/exec", params)
    assert err.kind is ErrorType.COMMAND_BLOCKED
    assert err.data["description"] == "the profile's approvals.deny rule 'touch *'"
    assert not marker.exists()
    # The default profile has no such rule.
    assert shell(host, "touch", str(marker))["exitCode"] == 0 and marker.exists()


def test_streamed_output_is_pushed_in_order_before_the_answer(host: HostClient) -> None:
    script = "for i in 1 2 3; do echo line$i; done; echo warn >&2"
    got = shell(host, "bash", "-c", script, streamId="sh-1")
    pushed = received(host, "shell/output")
    assert {n.params["streamId"] for n in pushed} == {"sh-1"}
    by_stream = {
        name: "".join(n.params["text"] for n in pushed if n.params["stream"] == name)
        for name in ("stdout", "stderr")
    }
    assert by_stream == {"stdout": "line1\nline2\nline3\n", "stderr": "warn\n"}
    assert (got["stdout"], got["stderr"], got["exitCode"]) == ("", "", 0)


def test_past_its_timeout_a_command_is_ended_with_what_it_left_running(
    host: HostClient, tmp_path: Path
) -> None:
    pid_file = tmp_path / "child.pid"
    script = f"sleep 60 & echo $! > {pid_file}; wait"
    got = shell(host, "bash", "-c", script, timeoutMs=500)
    assert (got["timedOut"], got["exitCode"], got["signal"]) == (True, None, "SIGTERM")
    assert wait_gone(int(pid_file.read_text()), timeout=10)


def test_with_disable_timeout_a_command_outlives_its_timeout_ms_until_it_exits(
    host: HostClient,
) -> None:
    params = {
        "command": ["bash", "-c", "echo ready; read line; echo got $line"],
        "streamId": "t-1",
        "interactive": True,
        "timeoutMs": 1,  # would end it at once
        "disableTimeout": True,
    }
    msg_id = host.send_request("shell/exec", params)
    host.wait_for(lambda n: n.method == "shell/output" and n.params["text"] == "ready\n")
    host.request("shell/write", {"streamId": "t-1", "text": "hello\n"})
    resp = host.response(msg_id)
    assert resp.result is not None, resp.error
    assert (resp.result["timedOut"], resp.result["exitCode"]) == (False, 0)
    said = [n.params["text"] for n in received(host, "shell/output")]
    assert "".join(said) == "ready\ngot hello\n"


def running(host: HostClient, stream_id: str) -> tuple[Any, int]:
    """Send a command that runs until ended; its request id and pid, once it runs
    (it says so on its streamed output)."""
    params = {"command": ["bash", "-c", "echo $$; exec sleep 60"], "streamId": stream_id}
    msg_id = host.send_request("shell/exec", params)
    said = host.wait_for(lambda n: n.method == "shell/output" and n.params["streamId"] == stream_id)
    return msg_id, int(said.params["text"])


def test_a_cancelled_command_is_ended_and_answered_request_cancelled(host: HostClient) -> None:
    msg_id, pid = running(host, "c-1")
    host.notify("$/cancelRequest", {"id": msg_id})
    resp = host.response(msg_id)
    assert resp.error is not None and resp.error["code"] == ErrorType.REQUEST_CANCELLED.code
    assert wait_gone(pid, timeout=10)
    assert shell(host, "true")["exitCode"] == 0  # the worker is free for the next one


def test_a_restarted_worker_ends_its_commands(host: HostClient) -> None:
    msg_id, pid = running(host, "r-1")
    host.request("worker/restart", {})
    assert wait_gone(pid, timeout=10)
    resp = host.response(msg_id)
    assert resp.error is not None
    assert resp.error["code"] == ErrorType.REQUEST_CANCELLED.code


def test_bad_commands_are_invalid_params_naming_the_field(host: HostClient) -> None:
    for params, field in [
        ({"command": []}, "params.command"),
        ({"command": ["echo", "a\u0000b"]}, "params.command[1]"),
        ({"command": ["/no/such/program"]}, "params.command"),
        ({"command": ["true"], "timeoutMs": 0}, "params.timeoutMs"),
        ({"command": ["true"], "workspace": "relative"}, "params.workspace"),
        ({"command": ["true"], "streamId": ""}, "params.streamId"),
    ]:
        err = refused(host, "shell/exec", params)
        assert (err.kind, err.data["field"]) == (ErrorType.INVALID_PARAMS, field), params


def test_a_worker_running_a_command_is_not_stopped_as_idle(start_host: Any) -> None:
    host = start_host("--worker-idle-timeout", "0.5")
    host.initialize()
    got = shell(host, "bash", "-c", "sleep 2; echo done", timeoutMs=20_000)
    assert (got["exitCode"], got["stdout"]) == (0, "done\n")
    # Idle for 0.5 s once the command had ended, not before.
    exited = host.wait_for(lambda n: n.method == "worker/exited", timeout=20)
    assert exited.params["reason"] == "idle"


def test_a_killed_workers_commands_are_ended_and_answered_worker_crashed(
    host: HostClient,
) -> None:
    msg_id, pid = running(host, "k-1")
    worker = worker_pids(host)[("default", None)]
    os.kill(worker, signal.SIGKILL)
    resp = host.response(msg_id)
    assert resp.error is not None and resp.error["code"] == ErrorType.WORKER_CRASHED.code
    assert wait_gone(pid, timeout=10)  # found by the tag in its environment, then killed


def test_past_eight_running_commands_a_worker_refuses_more_until_one_ends(
    host: HostClient, tmp_path: Path
) -> None:
    go = tmp_path / "go"
    held = host.send_request("shell/exec", {"command": ["bash", "-c", until_created(go, "true")]})
    running_ones = [running(host, f"m-{n}") for n in range(7)]
    err = refused(host, "shell/exec", {"command": ["true"]})
    assert err.kind is ErrorType.TOO_MANY_COMMANDS
    go.touch()  # the held one ends: its place is free once it is answered
    assert host.response(held).result["exitCode"] == 0
    assert shell(host, "true")["exitCode"] == 0
    for msg_id, pid in running_ones:
        host.notify("$/cancelRequest", {"id": msg_id})
        assert wait_gone(pid, timeout=10)


def output(host: HostClient, stream_id: str) -> str:
    """All ``stream_id``'s shell/output so far, in order."""
    notes = received(host, "shell/output")
    return "".join(n.params["text"] for n in notes if n.params["streamId"] == stream_id)


def shows(host: HostClient, stream_id: str, text: str) -> None:
    """Wait (bounded) until ``stream_id``'s output holds ``text``."""
    if text not in output(host, stream_id):
        host.wait_for(lambda _n: text in output(host, stream_id), timeout=20)


def test_an_interactive_command_reads_what_the_host_writes_until_its_input_closes(
    host: HostClient,
) -> None:
    script = 'read -r -p "name? " who; echo "hi $who"; cat; echo "bye"'
    params = {"command": ["bash", "-c", script], "streamId": "i-1", "interactive": True}
    msg_id = host.send_request("shell/exec", params)
    assert host.request("shell/write", {"streamId": "i-1", "text": "ada\n"}) == {}
    shows(host, "i-1", "hi ada")
    host.request("shell/write", {"streamId": "i-1", "text": "more\n", "closeInput": True})
    resp = host.response(msg_id)
    assert resp.result["exitCode"] == 0 and resp.result["stdout"] == ""
    assert output(host, "i-1") == "hi ada\nmore\nbye\n"  # read -p prompts only on a terminal
    late = refused(host, "shell/write", {"streamId": "i-1", "text": "late"})
    assert late.kind is ErrorType.COMMAND_NOT_RUNNING and late.data["streamId"] == "i-1"


def test_a_terminal_command_is_typed_into_resized_and_interrupted_like_a_terminals(
    host: HostClient, tmp_path: Path
) -> None:
    script = (
        'stty size; read -r -p "name? " who; echo "hi $who"; read -r _; stty size;'
        ' trap "echo interrupted; exit 7" INT; echo waiting; sleep 60 & wait'
    )
    params = {
        "command": ["bash", "-c", script],
        "streamId": "t-1",
        "terminal": {"rows": 24, "cols": 80},
        "workspace": str(tmp_path),
    }
    msg_id = host.send_request("shell/exec", params)
    shows(host, "t-1", "name? ")
    host.request("shell/write", {"streamId": "t-1", "text": "ada\r"})
    shows(host, "t-1", "hi ada")
    size = {"streamId": "t-1", "size": {"rows": 40, "cols": 120}}
    assert host.request("shell/resize", size) == {}
    host.request("shell/write", {"streamId": "t-1", "text": "\r"})
    shows(host, "t-1", "waiting")
    host.request("shell/write", {"streamId": "t-1", "text": "\u0003"})  # ^C
    resp = host.response(msg_id)
    assert resp.result["exitCode"] == 7
    assert output(host, "t-1") == (
        "24 80\r\nname? ada\r\nhi ada\r\n\r\n40 120\r\nwaiting\r\n^Cinterrupted\r\n"
    )
    assert {n.params["stream"] for n in received(host, "shell/output")} == {"stdout"}


def test_input_for_a_worker_not_running_starts_none_and_a_pipe_has_no_size(
    host: HostClient,
) -> None:
    for method, params in [
        ("shell/write", {"streamId": "x", "text": "hi", "profile": "work"}),
        ("shell/resize", {"streamId": "x", "size": {"rows": 5, "cols": 5}, "profile": "work"}),
    ]:
        err = refused(host, method, params)
        assert err.kind is ErrorType.COMMAND_NOT_RUNNING and err.data["streamId"] == "x"
    assert not received(host, "worker/started")
    msg_id = host.send_request(
        "shell/exec", {"command": ["cat"], "streamId": "p-1", "interactive": True}
    )
    host.wait_for(lambda n: n.method == "worker/started", timeout=30)
    resize = {"streamId": "p-1", "size": {"rows": 5, "cols": 5}}
    err = refused(host, "shell/resize", resize)
    assert err.kind is ErrorType.INVALID_PARAMS and err.data["field"] == "params.streamId"
    host.request("shell/write", {"streamId": "p-1", "closeInput": True})
    assert host.response(msg_id).result["exitCode"] == 0


def test_input_a_command_has_not_read_past_one_mib_is_refused_command_busy(
    host: HostClient,
) -> None:
    params = {"command": ["sleep", "60"], "streamId": "b-1", "interactive": True}
    msg_id = host.send_request("shell/exec", params)
    chunk = "x" * 1_000_000  # the pipe takes 64 KiB; the rest waits, unread
    assert host.request("shell/write", {"streamId": "b-1", "text": chunk}) == {}
    busy = refused(host, "shell/write", {"streamId": "b-1", "text": chunk})
    assert busy.kind is ErrorType.COMMAND_BUSY and busy.data["streamId"] == "b-1"
    host.notify("$/cancelRequest", {"id": msg_id})
    assert host.response(msg_id).error is not None
