"""Lifecycle through the real binary: initialize, shutdown/exit, EOF and killed supervisors."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
from pathlib import Path

import pytest

from hermes_stdio.protocol import HOST_METHODS, PROTOCOL_VERSION, SERVER_NOTIFICATIONS
from hermes_stdio.protocol.events import EVENT_TYPES
from hermes_stdio.protocol.types import RunErrorType
from hermes_stdio.testing.home import offline_env
from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM
from hermes_stdio.wire import ErrorType, FrameDecoder, Notification, RpcError, encode_frame

from .conftest import (
    BINARY,
    StartHost,
    run_in_a_long_tool,
    started_worker,
    wait_gone,
    worker_pids,
)


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
    assert result["capabilities"]["runEvents"] == list(EVENT_TYPES)
    assert result["capabilities"]["maxBodyBytes"] > 0


def test_the_supervisor_reads_and_writes_json_with_orjson_from_the_request_after_initialize(
    start_host: StartHost,
) -> None:
    host = start_host()
    host.initialize()
    status = host.request("supervisor/status")
    with open(f"/proc/{status['pid']}/maps", encoding="utf-8") as maps:
        assert "orjson" in maps.read()


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
    assert exited[0].params["reason"] == "shutdown"


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
    any_host: HostClient, llm: ScriptedLLM, tmp_path: Path, background: bool
) -> None:
    host = any_host
    _, tool_pids = run_in_a_long_tool(host, llm, tmp_path, background=background)
    worker = worker_pids(host)[("default", None)]
    os.kill(host.proc.pid, signal.SIGKILL)
    assert wait_gone(worker, 20)
    assert all(wait_gone(pid, 10) for pid in tool_pids)


def test_a_host_that_dies_with_all_its_pipes_still_stops_the_supervisor_and_workers(
    home: Path,
) -> None:
    # A crashed host closes our stdin and the read ends of our stdout and stderr at
    # once: every log line the shutdown writes then meets a broken pipe.
    proc = subprocess.Popen(
        [BINARY],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=offline_env(home),
        start_new_session=True,
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    decoder = FrameDecoder()

    def call(msg_id: int, method: str, params: dict[str, object]) -> dict[str, object]:
        assert proc.stdin is not None and proc.stdout is not None
        body = {"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}
        proc.stdin.write(encode_frame(json.dumps(body).encode()))
        proc.stdin.flush()
        while True:
            ready, _, _ = select.select([proc.stdout], [], [], 60)
            assert ready, f"no answer to {method}"
            for frame in decoder.feed(os.read(proc.stdout.fileno(), 65536)):
                msg = json.loads(frame.body)  # type: ignore[union-attr]
                if msg.get("id") == msg_id:
                    assert "result" in msg, msg
                    return dict(msg["result"])

    call(1, "initialize", {"protocolVersion": 1, "clientInfo": {"name": "t"}})
    call(2, "session/list", {"profile": "work"})  # answered by a ready worker
    status = call(3, "supervisor/status", {})
    pids = [w["pid"] for w in status["workers"]]  # type: ignore[attr-defined]
    proc.stdout.close()
    proc.stderr.close()
    proc.stdin.close()
    try:
        assert proc.wait(30) == 1
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    for pid in pids:
        assert wait_gone(pid, 30), f"worker {pid} outlived its supervisor"


EXIT_HANDLER = """
import atexit, os
from pathlib import Path

if os.environ.get("HERMES_STDIO_WORKER_TOKEN"):  # workers only, not the supervisor
    marks = Path(os.environ["EXIT_MARKS"])
    atexit.register(lambda: (marks / str(os.getpid())).write_text("ran"))
"""


def test_a_stopping_worker_runs_the_exit_handlers_its_agent_code_registered(
    start_host: StartHost, llm: ScriptedLLM, tmp_path: Path
) -> None:
    # hermes registers its sandbox, browser and language-server teardown with atexit,
    # which os._exit skips; a sitecustomize on PYTHONPATH registers one the same way.
    overlay, marks = tmp_path / "overlay", tmp_path / "marks"
    overlay.mkdir()
    marks.mkdir()
    (overlay / "sitecustomize.py").write_text(EXIT_HANDLER)
    env = {"PYTHONPATH": str(overlay), "EXIT_MARKS": str(marks)}
    host = start_host("--no-worker-template", env=env)
    host.initialize()
    pid = started_worker(host, llm)
    assert host.request("shutdown") is None  # answered once every worker has stopped
    assert wait_gone(pid, 5)
    assert (marks / str(pid)).read_text() == "ran"


def processes_of(home: Path, but: int) -> list[int]:
    """Live processes (not zombies) whose HERMES_HOME is in ``home``, except ``but``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == but:
            continue
        try:
            environ = Path(f"/proc/{entry}/environ").read_bytes().split(b"\0")
            state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        mine = any(v.startswith(b"HERMES_HOME=" + bytes(home)) for v in environ)
        if mine and state != "Z":
            found.append(int(entry))
    return found


def test_shutdown_also_stops_workers_that_were_still_starting_and_ends_their_runs_first(
    host: HostClient, llm: ScriptedLLM, home: Path
) -> None:
    started_worker(host, llm, "work")
    llm.enqueue(Reply.text([f"p{i} " for i in range(300)], delay=0.05))
    restart = host.send_request("worker/restart", {"profile": "work"})
    run_start = host.send_request("run/start", {"message": "p", "profile": "play"})
    shutdown = host.send_request("shutdown")
    assert host.response(shutdown, 60).result is None
    answered_at = len(host.received)
    assert processes_of(home, host.proc.pid) == []
    refusals = {ErrorType.SHUTTING_DOWN.code, ErrorType.WORKER_UNAVAILABLE.code}
    restarted, started_run = host.response(restart, 5), host.response(run_start, 5)
    for resp in (restarted, started_run):
        assert resp.error is None or resp.error["code"] in refusals
    started = started_run.result
    if started is not None:  # acknowledged: its one run/completed came before the answer
        notes = [m for _, m in host.received[:answered_at] if isinstance(m, Notification)]
        mine = [n for n in notes if n.params.get("runId") == started["runId"]]
        assert [n.method for n in mine].count("run/completed") == 1
        assert mine[-1].method == "run/completed"
        assert mine[-1].params["error"]["type"] == RunErrorType.WORKER_STOPPED
    host.notify("exit")
    assert host.proc.wait(15) == 0
