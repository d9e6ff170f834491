"""Background processes through the real binary and real hermes-agent: a session sees
and kills the processes its agent started in the background, and no other session's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM

from .conftest import TOOL_COMMAND, run_in_a_long_tool, tool_result, until_created, wait_gone


def serve_until_created(
    host: HostClient, llm: ScriptedLLM, go: Path
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A run whose agent starts a background process that runs until ``go`` is created
    (bounded: 30 s); the run and the process as process/list shows it."""
    serve = until_created(go, "echo kiwi-served")
    llm.enqueue(
        Reply.tool_call("terminal", {"command": serve, "background": True}), Reply.text(["it runs"])
    )
    run = host.request("run/start", {"message": "serve it"})
    host.wait_run_completed(run["runId"])
    [proc] = host.request("process/list", {"sessionId": run["sessionId"]})["processes"]
    return run, proc


def test_a_sessions_background_process_is_listed_and_killed_by_that_session_only(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    run, [tool_pid] = run_in_a_long_tool(host, llm, tmp_path, background=True)
    host.wait_run_completed(run["runId"])  # the run ends; its process goes on
    sid = run["sessionId"]
    [proc] = host.request("process/list", {"sessionId": sid})["processes"]
    assert proc["status"] == "running" and proc["exitCode"] is None
    assert TOOL_COMMAND in proc["command"]

    llm.enqueue(Reply.text(["ok"]))
    other = host.request("run/start", {"message": "hi"})
    host.wait_run_completed(other["runId"])
    assert host.request("process/list", {"sessionId": other["sessionId"]}) == {"processes": []}
    stranger = {"sessionId": other["sessionId"], "processId": proc["processId"]}
    assert host.request("process/kill", stranger) == {"killed": False}
    assert not wait_gone(tool_pid, 0)  # another session's kill left it running

    mine = {"sessionId": sid, "processId": proc["processId"]}
    assert host.request("process/kill", mine) == {"killed": True}
    assert wait_gone(tool_pid, 10)
    [after] = host.request("process/list", {"sessionId": sid})["processes"]
    assert after["status"] == "exited"
    assert host.request("process/kill", mine) == {"killed": False}  # already gone


def test_an_agent_cannot_read_or_kill_another_sessions_background_process(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    run, [tool_pid] = run_in_a_long_tool(host, llm, tmp_path, background=True)
    host.wait_run_completed(run["runId"])
    [proc] = host.request("process/list", {"sessionId": run["sessionId"]})["processes"]

    for action in ("poll", "log", "kill"):
        call = {"action": action, "session_id": proc["processId"]}
        llm.enqueue(Reply.tool_call("process", call), Reply.text(["done"]))
        other = host.request("run/start", {"message": action, "sessionId": f"stranger-{action}"})
        host.wait_run_completed(other["runId"])
        assert "another session" in tool_result(host, other["runId"])
    assert not wait_gone(tool_pid, 0)

    llm.enqueue(Reply.tool_call("process", {"action": "kill", "session_id": proc["processId"]}))
    llm.enqueue(Reply.text(["done"]))
    mine = host.request("run/start", {"message": "kill", "sessionId": run["sessionId"]})
    host.wait_run_completed(mine["runId"])
    assert wait_gone(tool_pid, 10)  # its own session's agent may


def test_an_agent_lists_only_its_own_sessions_background_processes(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    run, _pids = run_in_a_long_tool(host, llm, tmp_path, background=True)
    host.wait_run_completed(run["runId"])
    [proc] = host.request("process/list", {"sessionId": run["sessionId"]})["processes"]
    # hermes files local background processes under task "default" as well.
    for session in ("default", "other"):
        llm.enqueue(Reply.tool_call("process", {"action": "list"}), Reply.text(["done"]))
        listing = host.request("run/start", {"message": "list", "sessionId": session})
        host.wait_run_completed(listing["runId"])
        assert proc["processId"] not in tool_result(host, listing["runId"])


def test_a_background_process_that_ends_is_pushed_to_the_host_as_process_exited(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    go = tmp_path / "go"
    run, proc = serve_until_created(host, llm, go)
    sid = run["sessionId"]

    go.touch()  # it ends by itself
    exited = host.wait_for(lambda n: n.method == "process/exited", timeout=30).params
    assert exited["sessionId"] == sid
    info = exited["process"]
    assert (info["processId"], info["status"], info["exitCode"]) == (proc["processId"], "exited", 0)
    assert "kiwi-served" in info["outputTail"]

    llm.enqueue(
        Reply.tool_call("terminal", {"command": "sleep 30", "background": True}),
        Reply.text(["another"]),
    )
    again = host.request("run/start", {"message": "another", "sessionId": sid})
    host.wait_run_completed(again["runId"])
    sleeper = next(
        p["processId"]
        for p in host.request("process/list", {"sessionId": sid})["processes"]
        if p["status"] == "running"
    )
    assert host.request("process/kill", {"sessionId": sid, "processId": sleeper})["killed"]
    killed = host.wait_for(
        lambda n: n.method == "process/exited" and n.params["process"]["processId"] == sleeper,
        timeout=30,
    )
    assert killed.params["process"]["status"] == "exited"
    methods = [getattr(n, "method", "") for _, n in host.received]
    assert methods.count("process/exited") == methods.count("process/started") == 2  # once each


def test_a_background_process_start_is_pushed_as_process_started_before_its_tool_completes(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    go = tmp_path / "go"
    run, proc = serve_until_created(host, llm, go)
    sid = run["sessionId"]

    received = [n for _, n in host.received]
    [started] = [i for i, n in enumerate(received) if getattr(n, "method", "") == "process/started"]
    note = received[started].params
    assert note["sessionId"] == sid
    info = note["process"]
    assert (info["processId"], info["pid"], info["status"]) == (
        proc["processId"],
        proc["pid"],
        "running",
    )
    assert info["exitCode"] is None and "kiwi-served" in info["command"]
    tool_done = next(
        i
        for i, n in enumerate(received)
        if getattr(n, "method", "") == "run/event"
        and n.params["runId"] == run["runId"]
        and n.params["event"]["type"] == "tool.completed"
    )
    assert started < tool_done  # the host hears of it before the tool's result names it

    go.touch()
    host.wait_for(lambda n: n.method == "process/exited", timeout=30)
    methods = [getattr(n, "method", "") for _, n in host.received]
    assert methods.count("process/started") == 1
    assert methods.index("process/started") < methods.index("process/exited")
