"""WorkerService's shell/exec with a fake adapter: checks on the reader, hermes'
rating, a thread per command, cancel and stop."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from worker_service_helpers import WAIT, error_of

from hermes_stdio.protocol.shell import MAX_COMMAND_ARGS, MAX_SHELL_STDIN, MAX_SHELL_TIMEOUT_MS
from hermes_stdio.transport.process import WORKER_TAG
from hermes_stdio.wire import ErrorType, Notification, Request
from hermes_stdio.worker import shell_methods
from hermes_stdio.worker.shell_methods import MAX_COMMANDS


class Rules:
    """Rates lines with "hardline" blocked and "rm " dangerous; env is ours plus one."""

    def refusal(self, command: str) -> tuple[str, str] | None:
        if "hardline" in command:
            return ("blocked", "never this")
        return ("dangerous", "recursive delete") if "rm " in command else None

    def env(self) -> dict[str, str]:
        return {**os.environ, "FROM_POLICY": "yes"}


@pytest.fixture
def shell(harness: Any) -> Any:
    harness.adapter.shell_policy = Rules
    return harness


def send(harness: Any, msg_id: int, params: dict[str, Any]) -> None:
    harness.service.on_request(harness.peer, Request(msg_id, "shell/exec", params))


def answer(harness: Any, msg_id: int) -> dict[str, Any]:
    return harness.peer.wait_for(  # type: ignore[no-any-return]
        lambda log: next((m for m in log if m.get("id") == msg_id and "method" not in m), None)
    )


def test_a_command_runs_off_the_reader_in_the_workspace_with_the_policys_env(
    shell: Any, tmp_path: Path
) -> None:
    script = 'pwd; echo "$FROM_POLICY" >&2'
    result = shell.call(
        "shell/exec", {"command": ["bash", "-c", script], "workspace": str(tmp_path)}
    )
    assert result["result"] == {
        "exitCode": 0,
        "signal": None,
        "timedOut": False,
        "stdout": f"{tmp_path}\n",
        "stderr": "yes\n",
        "truncated": False,
        "durationMs": result["result"]["durationMs"],
        "workspace": str(tmp_path),
    }


def test_without_a_workspace_or_session_it_runs_in_the_workers_directory(shell: Any) -> None:
    result = shell.call("shell/exec", {"command": ["pwd"]})["result"]
    assert result["stdout"] == os.getcwd() + "\n" and result["workspace"] == os.getcwd()


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"command": []}, "params.command"),
        ({"command": [""]}, "params.command"),
        ({"command": ["echo", "a\0b"]}, "params.command[1]"),
        ({"command": ["echo"] * (MAX_COMMAND_ARGS + 1)}, "params.command"),
        ({"command": ["echo", "x" * 200_000]}, "params.command"),
        ({"command": ["cat"], "stdin": "x" * (MAX_SHELL_STDIN + 1)}, "params.stdin"),
        ({"command": ["true"], "timeoutMs": 0}, "params.timeoutMs"),
        ({"command": ["true"], "timeoutMs": MAX_SHELL_TIMEOUT_MS + 1}, "params.timeoutMs"),
        ({"command": ["true"], "workspace": "relative/dir"}, "params.workspace"),
        ({"command": ["/no/such/program"]}, "params.command"),
        ({"command": ["cat"], "interactive": True}, "params.streamId"),
        ({"command": ["cat"], "terminal": {"rows": 24, "cols": 80}}, "params.streamId"),
        (
            {"command": ["cat"], "streamId": "t", "terminal": {"rows": 0, "cols": 80}},
            "params.terminal.rows",
        ),
        (
            {"command": ["cat"], "streamId": "t", "terminal": {"rows": 24, "cols": 10_001}},
            "params.terminal.cols",
        ),
        (
            {"command": ["/no/such/program"], "streamId": "t", "terminal": {"rows": 1, "cols": 1}},
            "params.command",
        ),
    ],
)
def test_bad_params_are_invalid_params_naming_the_field(
    shell: Any, params: dict[str, Any], field: str
) -> None:
    got = shell.call("shell/exec", params)
    assert error_of(got) is ErrorType.INVALID_PARAMS
    assert got["error"]["data"]["field"] == field


def test_an_agent_that_runs_no_commands_is_agent_unavailable(harness: Any) -> None:
    got = harness.call("shell/exec", {"command": ["true"]})
    assert error_of(got) is ErrorType.AGENT_UNAVAILABLE


def test_a_blocked_command_never_runs_even_approved(shell: Any, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    params = {"command": ["bash", "-c", f"touch {marker} # hardline"], "approved": True}
    got = shell.call("shell/exec", params)
    assert error_of(got) is ErrorType.COMMAND_BLOCKED
    assert got["error"]["data"]["description"] == "never this"
    assert not marker.exists()


def test_a_dangerous_command_runs_only_once_approved(shell: Any, tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.mkdir()
    params: dict[str, Any] = {"command": ["rm", "-r", str(victim)]}
    got = shell.call("shell/exec", params)
    assert error_of(got) is ErrorType.COMMAND_DANGEROUS
    assert got["error"]["data"]["description"] == "recursive delete"
    assert victim.exists()
    assert shell.call("shell/exec", {**params, "approved": True})["result"]["exitCode"] == 0
    assert not victim.exists()


def test_streamed_output_the_host_opted_out_of_is_never_written(shell: Any) -> None:
    from hermes_stdio.protocol.opt_out import OptOut

    shell.service.opt_out = OptOut(frozenset({"shell/output"}))
    got = shell.call("shell/exec", {"command": ["echo", "one"], "streamId": "s-1"})
    assert got["result"]["exitCode"] == 0 and got["result"]["stdout"] == ""
    assert [m for m in shell.peer.snapshot() if m.get("method") == "shell/output"] == []


def test_streamed_output_is_notified_before_the_answer_and_not_repeated_in_it(
    shell: Any,
) -> None:
    got = shell.call(
        "shell/exec", {"command": ["bash", "-c", "echo one; echo two >&2"], "streamId": "s-1"}
    )
    notes = [m for m in shell.peer.snapshot() if m.get("method") == "shell/output"]
    assert sorted((n["params"]["stream"], n["params"]["text"]) for n in notes) == [
        ("stderr", "two\n"),
        ("stdout", "one\n"),
    ]
    assert {n["params"]["streamId"] for n in notes} == {"s-1"}
    log = shell.peer.snapshot()
    assert max(log.index(n) for n in notes) < log.index(got)
    assert (got["result"]["stdout"], got["result"]["stderr"]) == ("", "")


def started(shell: Any, msg_id: int, ready: Path) -> None:
    """Send a command that runs until ended, and wait (bounded) until it runs."""
    send(shell, msg_id, {"command": ["bash", "-c", f"touch {ready}; exec sleep 30"]})
    deadline = time.monotonic() + WAIT
    while not ready.exists():
        assert time.monotonic() < deadline, "the command never started"
        time.sleep(0.01)


def test_a_cancel_ends_its_command_and_is_answered_request_cancelled(
    shell: Any, tmp_path: Path
) -> None:
    started(shell, 7, tmp_path / "ready")
    shell.service.on_notification(shell.peer, Notification("$/cancelRequest", {"id": 7}), b"")
    assert error_of(answer(shell, 7)) is ErrorType.REQUEST_CANCELLED


def test_past_its_timeout_a_command_is_ended_and_answered(shell: Any) -> None:
    got = shell.call("shell/exec", {"command": ["sleep", "30"], "timeoutMs": 100})["result"]
    assert (got["timedOut"], got["exitCode"], got["signal"]) == (True, None, "SIGTERM")


def test_with_disable_timeout_a_command_outlives_its_timeout_ms_which_is_not_checked(
    shell: Any,
) -> None:
    script = ["bash", "-c", "sleep 0.3; echo done"]
    params = {"command": script, "timeoutMs": 0, "disableTimeout": True}
    got = shell.call("shell/exec", params)["result"]
    assert (got["timedOut"], got["exitCode"], got["stdout"]) == (False, 0, "done\n")


def test_more_than_the_limit_at_once_is_too_many_commands(shell: Any, tmp_path: Path) -> None:
    for n in range(MAX_COMMANDS):
        started(shell, 100 + n, tmp_path / f"ready{n}")
    assert error_of(shell.call("shell/exec", {"command": ["true"]})) is ErrorType.TOO_MANY_COMMANDS
    for n in range(MAX_COMMANDS):
        shell.service.cancel_command(100 + n)
        assert error_of(answer(shell, 100 + n)) is ErrorType.REQUEST_CANCELLED
    assert shell.call("shell/exec", {"command": ["true"]})["result"]["exitCode"] == 0


def test_a_stopping_worker_ends_its_commands_and_refuses_new_ones(
    shell: Any, tmp_path: Path
) -> None:
    started(shell, 9, tmp_path / "ready")
    shell.service.stop_runs()
    assert error_of(answer(shell, 9)) is ErrorType.REQUEST_CANCELLED
    assert not shell.service.commands
    assert error_of(shell.call("shell/exec", {"command": ["true"]})) is ErrorType.SHUTTING_DOWN


def test_a_command_carries_the_workers_tag_whatever_hermes_env_keeps(
    shell: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(WORKER_TAG, "tag-1")

    class Sanitizing(Rules):
        def env(self) -> dict[str, str]:
            return {"PATH": os.environ["PATH"]}  # drops everything else

    shell.adapter.shell_policy = Sanitizing
    script = f'echo "${WORKER_TAG}"'
    assert shell.call("shell/exec", {"command": ["bash", "-c", script]})["result"]["stdout"] == (
        "tag-1\n"
    )


def test_stdin_given_is_the_commands_input(shell: Any) -> None:
    got = shell.call("shell/exec", {"command": ["tr", "a-z", "A-Z"], "stdin": "kiwi é\n"})
    assert got["result"]["stdout"] == "KIWI é\n"


def test_input_reaches_a_live_command_by_its_stream_and_none_once_it_ended(shell: Any) -> None:
    script = 'read -r a; echo "<$a>"; cat'
    send(shell, 101, {"command": ["bash", "-c", script], "streamId": "s-1", "interactive": True})
    wrote = shell.call("shell/write", {"streamId": "s-1", "text": "hi\n"})
    assert wrote.get("result") == {}, wrote
    shell.peer.wait_for(
        lambda log: any(m.get("method") == "shell/output" and "<hi>" in m["params"]["text"]
                        for m in log)
    )  # fmt: skip
    again = shell.call("shell/exec", {"command": ["cat"], "streamId": "s-1", "interactive": True})
    assert again["error"]["data"]["field"] == "params.streamId"  # a running one has it
    closed = shell.call("shell/write", {"streamId": "s-1", "closeInput": True})
    assert closed["result"] == {}
    assert answer(shell, 101)["result"]["exitCode"] == 0
    for method, params in [
        ("shell/write", {"streamId": "s-1", "text": "late"}),
        ("shell/write", {"streamId": "never", "text": "x"}),
        ("shell/resize", {"streamId": "s-1", "size": {"rows": 5, "cols": 5}}),
    ]:
        got = shell.call(method, params)
        assert error_of(got) is ErrorType.COMMAND_NOT_RUNNING
        assert got["error"]["data"]["streamId"] == params["streamId"]


def test_a_resize_of_a_command_without_a_terminal_is_invalid_params(shell: Any) -> None:
    send(shell, 102, {"command": ["cat"], "streamId": "s-2", "interactive": True})
    got = shell.call("shell/resize", {"streamId": "s-2", "size": {"rows": 5, "cols": 5}})
    assert error_of(got) is ErrorType.INVALID_PARAMS
    assert got["error"]["data"]["field"] == "params.streamId"
    shell.call("shell/write", {"streamId": "s-2", "closeInput": True})
    assert answer(shell, 102)["result"]["exitCode"] == 0


def test_a_command_whose_thread_cannot_start_leaves_a_live_one_of_its_stream_id_alone(
    shell: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    send(shell, 103, {"command": ["cat"], "streamId": "s-3", "interactive": True})

    class NoThread(threading.Thread):
        def start(self) -> None:
            raise RuntimeError("can't start new thread")

    monkeypatch.setattr(shell_methods.threading, "Thread", NoThread)
    failed = shell.call("shell/exec", {"command": ["true"], "streamId": "s-3"})
    assert error_of(failed) is ErrorType.INTERNAL_ERROR
    monkeypatch.undo()
    closed = shell.call("shell/write", {"streamId": "s-3", "text": "x", "closeInput": True})
    assert closed.get("result") == {}, closed  # still the live one's
    assert answer(shell, 103)["result"]["exitCode"] == 0
