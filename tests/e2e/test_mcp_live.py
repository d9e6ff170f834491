"""A connected MCP server that dies, through the real binary and real hermes-agent:
the host hears of it at once (a stdio server) or within seconds (an HTTP server;
hermes itself would notice either at its next keepalive, minutes later), hermes
reconnects it, and one that cannot start again reads failed until mcp/connect
revives it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM
from hermes_stdio.wire import Notification
from hermes_stdio.worker.mcp_http_live import LOST
from hermes_stdio.worker.mcp_live import EXITED

from .conftest import serving, wait_gone
from .test_mcp import SERVER, add_mcp_servers


def echo_server(pid_file: Path, refuse: Path) -> dict[str, Any]:
    env = {"MCP_ECHO_PID_FILE": str(pid_file), "MCP_ECHO_REFUSE_FILE": str(refuse)}
    return {"command": sys.executable, "args": [str(SERVER)], "env": env}


HTTP_SERVER = Path(__file__).with_name("fixtures") / "mcp_http_server.py"


def echo_is(status: str, error: str | None = None, name: str = "echo") -> Any:
    def match(n: Notification) -> bool:
        if n.method != "mcp/statusChanged":
            return False
        server = next(s for s in n.params["servers"] if s["name"] == name)
        return server["status"] == status and (error is None or server["error"] == error)

    return match


def serve_http(port: int = 0) -> tuple[subprocess.Popen[str], int]:
    """The plain HTTP MCP server (on ``port``, else a free one): its process and port."""
    return serving(HTTP_SERVER, str(port))


def connected_echo(host: HostClient, home: Path, tmp_path: Path) -> tuple[Path, Path, int]:
    pid_file, refuse = tmp_path / "echo.pid", tmp_path / "refuse"
    add_mcp_servers(home / "profiles" / "work", {"echo": echo_server(pid_file, refuse)})
    host.request("tool/list", {"profile": "work"})  # starts the worker, and its server
    host.wait_for(echo_is("connected"), timeout=60)
    return pid_file, refuse, int(pid_file.read_text())


def test_a_connected_server_that_dies_is_pushed_reconnecting_then_connected_and_usable(
    host: HostClient, llm: ScriptedLLM, home: Path, tmp_path: Path
) -> None:
    pid_file, _, first = connected_echo(host, home, tmp_path)

    os.kill(first, signal.SIGKILL)
    lost = host.wait_for(echo_is("connecting", EXITED), timeout=30).params
    assert [s["tools"] for s in lost["servers"]] == [0]
    back = host.wait_for(echo_is("connected"), timeout=60).params
    assert back["servers"][0]["tools"] >= 1 and back["servers"][0]["error"] is None
    second = int(pid_file.read_text())
    assert second != first and not wait_gone(second, 0)  # a new process, running

    llm.enqueue(Reply.tool_call("mcp__echo__echo", {"text": "again"}), Reply.text(["done"]))
    run = host.request("run/start", {"message": "use echo", "profile": "work"})
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"
    tool_results = [m for m in llm.requests[-1]["messages"] if m["role"] == "tool"]
    assert "echo from mcp: again" in str(tool_results[-1]["content"])
    status = host.request("mcp/status", {"profile": "work"})["servers"]
    assert [(s["name"], s["status"]) for s in status] == [("echo", "connected")]


def test_a_server_that_dies_and_cannot_start_again_reads_failed_until_mcp_connect(
    host: HostClient, llm: ScriptedLLM, home: Path, tmp_path: Path
) -> None:
    pid_file, refuse, first = connected_echo(host, home, tmp_path)

    refuse.touch()  # each new process exits at once
    os.kill(first, signal.SIGKILL)
    host.wait_for(echo_is("connecting", EXITED), timeout=30)
    # hermes tries again (with backoff) and then gives up until asked
    failed = host.wait_for(echo_is("failed"), timeout=90).params
    assert failed["servers"][0]["error"] and failed["servers"][0]["tools"] == 0
    status = host.request("mcp/status", {"profile": "work"})["servers"]
    assert status == failed["servers"]

    refuse.unlink()
    host.request("mcp/connect", {"profile": "work"})
    back = host.wait_for(echo_is("connected"), timeout=60).params
    assert back["servers"][0]["tools"] >= 1  # its tools are the agents' again
    assert int(pid_file.read_text()) != first
    llm.enqueue(Reply.tool_call("mcp__echo__echo", {"text": "back"}), Reply.text(["done"]))
    run = host.request("run/start", {"message": "use echo", "profile": "work"})
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"
    tool_results = [m for m in llm.requests[-1]["messages"] if m["role"] == "tool"]
    assert "echo from mcp: back" in str(tool_results[-1]["content"])


def test_an_http_server_that_dies_is_pushed_reconnecting_within_seconds_then_connected_again(
    host: HostClient, llm: ScriptedLLM, home: Path
) -> None:
    proc, port = serve_http()
    try:
        add_mcp_servers(
            home / "profiles" / "work", {"site": {"url": f"http://127.0.0.1:{port}/mcp"}}
        )
        host.request("tool/list", {"profile": "work"})  # starts the worker, and connects it
        host.wait_for(echo_is("connected", name="site"), timeout=60)

        proc.kill()
        proc.wait(10)
        # hermes' keepalive would take 180 s; the SDK's event stream gives up in ~2 s.
        # The error is LOST until hermes' first attempt to reconnect fails, with its own.
        lost = host.wait_for(echo_is("connecting", name="site"), timeout=30).params
        assert [(s["tools"], bool(s["error"])) for s in lost["servers"]] == [(0, True)]
        assert host.wait_stderr(lambda line: LOST in line, timeout=10)
        proc, _ = serve_http(port)  # back, knowing none of the old sessions
        back = host.wait_for(echo_is("connected", name="site"), timeout=60).params
        assert back["servers"][0]["tools"] >= 1 and back["servers"][0]["error"] is None

        llm.enqueue(Reply.tool_call("mcp__site__ping", {}), Reply.text(["done"]))
        run = host.request("run/start", {"message": "ping site", "profile": "work"})
        assert host.wait_run_completed(run["runId"]).params["status"] == "complete"
        tool_results = [m for m in llm.requests[-1]["messages"] if m["role"] == "tool"]
        assert "pong from site" in str(tool_results[-1]["content"])
    finally:
        proc.kill()
        proc.wait(10)
