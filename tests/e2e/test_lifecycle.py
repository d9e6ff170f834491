"""Lifecycle through the real binary: initialize, shutdown/exit, EOF and killed supervisors."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from hermes_stdio.protocol import HOST_METHODS, PROTOCOL_VERSION, SERVER_NOTIFICATIONS
from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import ScriptedLLM
from hermes_stdio.wire import ErrorType, RpcError

from .conftest import StartHost, run_in_a_long_tool, started_worker, wait_gone, worker_pids


def test_initialize_returns_the_protocol_version_and_every_method_and_notification(
    start_host: StartHost,
) -> None:
    host = start_host()
    result = host.request(
        "initialize",
        {"protocolVersion": 1, "clientInfo": {"name": "t", "version": "1"}, "capabilities": {}},
    )
    assert result["protocolVersion"] == PROTOCOL_VERSION
    assert result["serverInfo"]["name"] == "hermes-stdio"
    assert result["capabilities"]["methods"] == list(HOST_METHODS)
    assert result["capabilities"]["notifications"] == list(SERVER_NOTIFICATIONS)
    assert result["capabilities"]["maxBodyBytes"] > 0


def test_requests_before_initialize_are_refused_with_server_not_initialized(
    start_host: StartHost,
) -> None:
    host = start_host()
    with pytest.raises(RpcError) as err:
        host.request("supervisor/status")
    assert err.value.kind is ErrorType.SERVER_NOT_INITIALIZED
    assert host.initialize()["protocolVersion"] == PROTOCOL_VERSION


def test_an_unsupported_protocol_version_is_refused_and_names_the_supported_one(
    start_host: StartHost,
) -> None:
    host = start_host()
    with pytest.raises(RpcError) as err:
        host.request("initialize", {"protocolVersion": 99})
    assert err.value.kind is ErrorType.UNSUPPORTED_PROTOCOL
    assert err.value.data["supported"] == [PROTOCOL_VERSION]


def test_shutdown_then_exit_stops_workers_and_exits_zero(
    host: HostClient, llm: ScriptedLLM
) -> None:
    pid = started_worker(host, llm)
    assert host.request("shutdown") is None
    with pytest.raises(RpcError) as err:
        host.request("supervisor/status")
    assert err.value.kind is ErrorType.SHUTTING_DOWN
    host.notify("exit")
    assert host.proc.wait(15) == 0
    assert wait_gone(pid, 5)
    exited = [n for _, n in host.received if getattr(n, "method", "") == "worker/exited"]
    assert exited and exited[0].params["expected"] is True


def test_exit_without_shutdown_exits_one(host: HostClient) -> None:
    host.notify("exit")
    assert host.proc.wait(15) == 1


def test_closing_stdin_stops_the_supervisor_and_its_workers(
    host: HostClient, llm: ScriptedLLM
) -> None:
    pid = started_worker(host, llm)
    assert host.close() == 1  # host input closed without shutdown
    assert wait_gone(pid, 10)
    host.wait_stderr(lambda line: "host input closed" in line)


def test_sigterm_stops_the_supervisor_and_its_workers(host: HostClient, llm: ScriptedLLM) -> None:
    pid = started_worker(host, llm)
    host.proc.send_signal(signal.SIGTERM)
    assert host.proc.wait(15) == 1
    assert wait_gone(pid, 10)
    host.wait_stderr(lambda line: "signal SIGTERM" in line)


def test_workers_exit_on_their_own_when_the_supervisor_is_killed(
    host: HostClient, llm: ScriptedLLM
) -> None:
    pid = started_worker(host, llm)
    os.kill(host.proc.pid, signal.SIGKILL)
    assert host.proc.wait(5) == -signal.SIGKILL
    assert wait_gone(pid, 10), "worker outlived its supervisor"


@pytest.mark.parametrize("background", [False, True], ids=["foreground", "background"])
def test_a_tool_command_does_not_outlive_a_killed_supervisor(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path, background: bool
) -> None:
    _, tool_pids = run_in_a_long_tool(host, llm, tmp_path, background=background)
    worker = worker_pids(host)[("default", None)]
    os.kill(host.proc.pid, signal.SIGKILL)
    assert wait_gone(worker, 20)
    assert all(wait_gone(pid, 10) for pid in tool_pids)
