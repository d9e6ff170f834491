"""Background work through the real binary and real hermes-agent: what a session's
agent started in the background and that finished after its turn comes back to that
session as a run the worker starts itself, announced by ``run/started.trigger``."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from hermes_stdio.protocol.types import RunErrorType
from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Gate, Reply, ScriptedLLM
from hermes_stdio.wire import ErrorType, Notification, RpcError

from .conftest import (
    StartHost,
    assert_runs_ended_once_in_order,
    delegating,
    run_to_end,
    tool_result,
    until_created,
    worker_pids,
)


def _triggered(host: HostClient, session_id: str, timeout: float = 60.0) -> Notification:
    return host.wait_for(
        lambda n: (
            n.method == "run/started"
            and n.params["sessionId"] == session_id
            and n.params["trigger"] is not None
        ),
        timeout,
    )


def _last_user_message(llm: ScriptedLLM) -> Any:
    return [m for m in llm.requests[-1]["messages"] if m["role"] == "user"][-1]["content"]


def test_a_background_command_that_finishes_after_its_turn_starts_a_run_in_its_session(
    any_host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    host = any_host
    _background_echo(llm, tmp_path / "go")
    run = host.request("run/start", {"message": "count in the background"})
    sid = run["sessionId"]
    host.wait_run_completed(run["runId"])
    (tmp_path / "go").touch()
    assert "proc_" in tool_result(host, run["runId"])

    started = _triggered(host, sid)
    assert started.params["runId"] != run["runId"]
    trigger = started.params["trigger"]
    assert trigger["type"] == "process" and trigger["sourceId"].startswith("proc_")
    assert trigger["sourceId"] in tool_result(host, run["runId"])
    assert "kiwi-count-3" in trigger["message"]
    done = host.wait_run_completed(started.params["runId"])
    assert done.params["status"] == "complete"
    assert _last_user_message(llm) == trigger["message"]  # the turn the agent was given
    assert_runs_ended_once_in_order(host, [run["runId"], started.params["runId"]])

    result = host.request("run/result", {"runId": started.params["runId"]})
    assert result["status"] == "complete" and result["sessionId"] == sid
    history = host.request("session/history", {"sessionId": sid})["messages"]
    assert [m["content"] for m in history if m["role"] == "user"][-1] == trigger["message"]


def test_a_delegated_task_reports_its_result_to_its_session_in_a_run_of_its_own(
    host: HostClient, llm: ScriptedLLM
) -> None:
    # The parent's next turn and the subagent's both get the default reply ("ok"): they
    # race for the script, so only the first reply is scripted.
    llm.enqueue(Reply.tool_call("delegate_task", {"goal": "count the kiwis"}))
    run = host.request("run/start", {"message": "delegate it"})
    sid = run["sessionId"]
    host.wait_run_completed(run["runId"])
    dispatched = json.loads(tool_result(host, run["runId"]))
    assert dispatched["status"] == "dispatched"

    started = _triggered(host, sid)
    trigger = started.params["trigger"]
    assert trigger["type"] == "subagent"
    assert trigger["sourceId"] and trigger["sourceId"] in json.dumps(dispatched)
    assert "count the kiwis" in trigger["message"]
    done = host.wait_run_completed(started.params["runId"])
    assert done.params["status"] == "complete"
    assert _last_user_message(llm) == trigger["message"]
    assert_runs_ended_once_in_order(host, [run["runId"], started.params["runId"]])


def test_a_hosts_run_has_no_trigger(host: HostClient, llm: ScriptedLLM) -> None:
    llm.enqueue(Reply.text(["hi"]))
    run = host.request("run/start", {"message": "hi"})
    host.wait_run_completed(run["runId"])
    [started] = [n for n in host.run_notifications(run["runId"]) if n.method == "run/started"]
    assert started.params["trigger"] is None


def _background_echo(llm: ScriptedLLM, go: Path, *after: Reply) -> None:
    """A background command that ends once ``go`` exists, so the test decides when
    it ends (bounded: 30 s)."""
    command = {"command": until_created(go, "echo kiwi-count-3"), "background": True}
    command["notify_on_complete"] = True
    llm.enqueue(Reply.tool_call("terminal", command), Reply.text(["started it"]), *after)


def test_a_background_command_that_ends_at_once_still_reports_its_result_once(
    any_host: HostClient, llm: ScriptedLLM
) -> None:
    # hermes marks the command for notice only after spawning it: one that ended first
    # was never reported. The worker reports it. Busy CPUs widen that moment (the
    # command's reader thread, woken, preempts the tool's) so that it shows here.
    host, sid, sources = any_host, None, []
    with busy_cpus(3):
        for n in range(4):
            sid = _report_instant_command(host, llm, sid, n, sources)
    # Once each: a second report would have started a run as its first one ended.
    llm.enqueue(Reply.text(["nothing else"]))
    run = host.request("run/start", {"message": "anything else?", "sessionId": sid})
    host.wait_run_completed(run["runId"])
    assert len(set(sources)) == len(_triggered_runs(host)) == 4


def _report_instant_command(
    host: HostClient, llm: ScriptedLLM, sid: str | None, n: int, sources: list[str]
) -> str:
    """One turn that starts ``echo kiwi-<n>`` in the background, and its report's run."""
    command = {"command": f"echo kiwi-{n}", "background": True, "notify_on_complete": True}
    llm.enqueue(
        Reply.tool_call("terminal", command), Reply.text(["started it"]), Reply.text(["seen"])
    )
    run = host.request("run/start", {"message": "count", **({"sessionId": sid} if sid else {})})
    host.wait_run_completed(run["runId"])
    report = _triggered(host, run["sessionId"])
    trigger = report.params["trigger"]
    assert trigger["type"] == "process" and f"kiwi-{n}" in trigger["message"]
    assert "exit code 0" in trigger["message"]
    sources.append(trigger["sourceId"])
    done = host.wait_run_completed(report.params["runId"])
    assert done.params["status"] == "complete"
    return str(run["sessionId"])


@contextlib.contextmanager
def busy_cpus(count: int) -> Iterator[None]:
    """``count`` processes spinning on the CPUs meanwhile (killed after)."""
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]
    try:
        yield
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait(10)


def test_a_triggered_run_whose_worker_dies_ends_once_as_worker_crashed(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    gate = Gate()
    _background_echo(llm, tmp_path / "go", Reply.text(["never sent"], gate=gate))
    run = host.request("run/start", {"message": "count in the background"})
    host.wait_run_completed(run["runId"])
    (tmp_path / "go").touch()
    started = _triggered(host, run["sessionId"])
    assert gate.arrived.wait(30)  # the triggered run is in its turn
    os.kill(worker_pids(host)[("default", None)], signal.SIGKILL)
    done = host.wait_run_completed(started.params["runId"])
    gate.release.set()
    assert done.params["status"] == "error"
    assert done.params["error"]["type"] == RunErrorType.WORKER_CRASHED
    assert_runs_ended_once_in_order(host, [run["runId"], started.params["runId"]])


def test_a_host_run_start_on_a_session_a_triggered_run_holds_is_session_busy(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    gate = Gate()
    _background_echo(llm, tmp_path / "go", Reply.text(["seen it"], gate=gate))
    run = host.request("run/start", {"message": "count in the background"})
    sid = run["sessionId"]
    host.wait_run_completed(run["runId"])
    (tmp_path / "go").touch()
    started = _triggered(host, sid)
    assert gate.arrived.wait(30)
    with pytest.raises(RpcError) as err:
        host.request("run/start", {"message": "me too", "sessionId": sid})
    assert err.value.kind is ErrorType.SESSION_BUSY
    assert err.value.data["runId"] == started.params["runId"]
    gate.release.set()
    assert host.wait_run_completed(started.params["runId"]).params["status"] == "complete"
    llm.enqueue(Reply.text(["now"]))
    again = host.request("run/start", {"message": "me too", "sessionId": sid})
    assert host.wait_run_completed(again["runId"]).params["status"] == "complete"


def _subagent_at_work(host: HostClient, llm: ScriptedLLM) -> tuple[str, Gate]:
    """A session whose background subagent waits in its first model call (held by the
    gate returned) after the session's run has ended."""
    sid, child, _ = _subagent_replying(host, llm)
    return sid, child


def _subagent_replying(host: HostClient, llm: ScriptedLLM) -> tuple[str, Gate, str]:
    """As ``_subagent_at_work``, with the text the subagent's reply streams once let go."""
    # After the dispatch the parent's next call and the subagent's first race for the
    # script: each gets a gated reply, told apart by the parent's tool result.
    one, two = Gate(), Gate()
    skipped = len(llm.requests)
    llm.enqueue(
        Reply.tool_call("delegate_task", {"goal": "count the kiwis"}),
        Reply.text(["dispatched it"], gate=one),
        Reply.text(["never sent"], gate=two),
    )
    run = host.request("run/start", {"message": "delegate it"})
    assert one.arrived.wait(30) and two.arrived.wait(30)
    first = llm.requests[skipped + 1]
    parent_first = any(m["role"] == "tool" for m in first["messages"])
    parent, child = (one, two) if parent_first else (two, one)
    parent.release.set()
    host.wait_run_completed(run["runId"])
    return run["sessionId"], child, "never sent" if parent_first else "dispatched it"


def test_a_sessions_subagent_is_listed_and_interrupted_and_reports_as_a_run(
    host: HostClient, llm: ScriptedLLM
) -> None:
    sid, child = _subagent_at_work(host, llm)
    [sub] = host.request("subagent/list", {"sessionId": sid})["subagents"]
    assert (sub["goal"], sub["status"], sub["completedAt"]) == ("count the kiwis", "running", None)
    assert sub["subagentId"].startswith("deleg_") and sub["dispatchedAt"] > 0

    assert host.request("subagent/interrupt", {"sessionId": sid}) == {"interrupted": 1}
    started = _triggered(host, sid)
    child.release.set()
    trigger = started.params["trigger"]
    assert (trigger["type"], trigger["sourceId"]) == ("subagent", sub["subagentId"])
    host.wait_run_completed(started.params["runId"])
    [ended] = host.request("subagent/list", {"sessionId": sid})["subagents"]
    assert ended["status"] != "running" and ended["completedAt"] >= sub["dispatchedAt"]
    assert host.request("subagent/interrupt", {"sessionId": sid}) == {"interrupted": 0}
    assert host.request("subagent/list", {"sessionId": "other"}) == {"subagents": []}


def test_a_subagents_start_and_end_are_pushed_before_its_tool_result_and_its_report(
    host: HostClient, llm: ScriptedLLM
) -> None:
    sid, child = _subagent_at_work(host, llm)
    [sub] = host.request("subagent/list", {"sessionId": sid})["subagents"]
    received = [n for _, n in host.received]
    [started] = [
        i for i, n in enumerate(received) if getattr(n, "method", "") == "subagent/started"
    ]
    assert received[started].params == {"sessionId": sid, "subagent": sub}
    dispatched = next(
        i
        for i, n in enumerate(received)
        if getattr(n, "method", "") == "run/event"
        and n.params["event"]["type"] == "tool.completed"
        and n.params["event"]["name"] == "delegate_task"
    )
    assert started < dispatched  # the host hears of it before the tool's result names it

    assert host.request("subagent/interrupt", {"sessionId": sid}) == {"interrupted": 1}
    ended = host.wait_for(lambda n: n.method == "subagent/ended", timeout=60).params
    assert ended["sessionId"] == sid
    info = ended["subagent"]
    assert (info["subagentId"], info["goal"]) == (sub["subagentId"], "count the kiwis")
    assert info["status"] != "running" and info["completedAt"] >= sub["dispatchedAt"]
    report = _triggered(host, sid)
    child.release.set()
    host.wait_run_completed(report.params["runId"])
    methods = [getattr(n, "method", "") for _, n in host.received]
    assert methods.count("subagent/started") == methods.count("subagent/ended") == 1
    assert methods.index("subagent/ended") < received_index(host, report)


def test_what_a_background_subagent_does_after_its_parents_run_is_pushed_as_its_progress(
    any_host: HostClient, llm: ScriptedLLM
) -> None:
    host = any_host
    sid, child, text = _subagent_replying(host, llm)
    [sub] = host.request("subagent/list", {"sessionId": sid})["subagents"]
    child.release.set()
    host.wait_for(lambda n: n.method == "subagent/ended", timeout=60)
    host.wait_run_completed(_triggered(host, sid).params["runId"])

    methods = [getattr(n, "method", "") for _, n in host.received]
    progress = [
        n.params for _, n in host.received if getattr(n, "method", "") == "subagent/progress"
    ]
    first, last = (
        methods.index("subagent/progress"),
        len(methods) - 1 - methods[::-1].index("subagent/progress"),
    )
    assert methods.index("subagent/started") < first and last < methods.index("subagent/ended")
    assert {(p["sessionId"], p["subagentId"]) for p in progress} == {(sid, sub["subagentId"])}
    events = [p["progress"] for p in progress]
    start, end = events[0], events[-1]
    assert (start["kind"], start["preview"], start["taskIndex"], start["taskCount"]) == (
        "subagent.start",
        "count the kiwis",
        0,
        1,
    )
    assert (end["kind"], end["status"]) == ("subagent.complete", "completed")
    assert end["durationS"] is not None and end["durationS"] >= 0
    assert end["childSessionId"] and end["childSessionId"] != sid
    assert {(e["childId"], e["parentChildId"], e["depth"]) for e in events} == {
        (start["childId"], None, 0)
    }
    assert start["childId"]
    streamed = [e["preview"] for e in events if e["kind"] == "subagent.text"]
    assert "".join(streamed) == text
    # Not the parent's run's events any more, nor those of the run its report started.
    assert not [
        n
        for _, n in host.received
        if getattr(n, "method", "") == "run/event"
        and n.params["event"]["type"] == "tool.progress"
        and n.params["event"]["kind"].startswith("subagent")
    ]


def test_a_background_subagents_own_subagent_is_pushed_under_its_delegation_as_its_child(
    start_host: StartHost, llm: ScriptedLLM, home: Path
) -> None:
    config = yaml.safe_load((home / "config.yaml").read_text())
    config["delegation"] = {"max_spawn_depth": 2}  # an orchestrator may delegate once more
    (home / "config.yaml").write_text(yaml.safe_dump(config))
    host = start_host()
    host.initialize()
    # Each agent's requests take their own script: they run at once.
    llm.enqueue_for(
        "plan the kiwis",
        Reply.tool_call("delegate_task", {"goal": "count the kiwis"}),
        Reply.text(["plan done"]),
    )
    llm.enqueue_for("count the kiwis", Reply.text(["three ", "kiwis"]))
    orchestrate = {"goal": "plan the kiwis", "role": "orchestrator"}
    llm.enqueue(
        Reply.tool_call("delegate_task", orchestrate),
        Reply.text(["dispatched it"]),
        Reply.text(["reported"]),
    )
    run = host.request("run/start", {"message": "delegate it"})
    sid = run["sessionId"]
    host.wait_run_completed(run["runId"])
    host.wait_run_completed(_triggered(host, sid).params["runId"])

    [sub] = host.request("subagent/list", {"sessionId": sid})["subagents"]
    progress = [
        n.params for _, n in host.received if getattr(n, "method", "") == "subagent/progress"
    ]
    assert {(p["sessionId"], p["subagentId"]) for p in progress} == {(sid, sub["subagentId"])}
    events = [p["progress"] for p in progress]
    top = events[0]
    assert (top["kind"], top["preview"], top["depth"], top["parentChildId"]) == (
        "subagent.start",
        "plan the kiwis",
        0,
        None,
    )
    nested = [e for e in events if e["childId"] != top["childId"]]
    assert [(e["kind"], e["preview"], e["status"]) for e in nested] == [
        ("subagent.start", "count the kiwis", None),
        ("subagent.complete", "three kiwis", "completed"),
    ]
    assert {(e["parentChildId"], e["depth"]) for e in nested} == {(top["childId"], 1)}
    assert nested[0]["childId"] and nested[0]["childSessionId"] != top["childSessionId"]
    kinds = [(e["childId"] == top["childId"], e["kind"]) for e in events]
    assert kinds.index((True, "subagent.tool")) < events.index(nested[0])  # its delegate_task
    assert events.index(nested[1]) < kinds.index((True, "subagent.complete")) == len(events) - 1
    # hermes relays a nested subagent's streamed reply as its parent's (protocol.md).
    streamed = "".join(e["preview"] for e in events if e["kind"] == "subagent.text")
    assert streamed.startswith("three kiwis") and streamed.endswith("plan done")


def received_index(host: HostClient, note: Notification) -> int:
    return next(i for i, (_, n) in enumerate(host.received) if n is note)


def test_deleting_a_session_interrupts_its_subagent_whose_report_starts_no_run(
    host: HostClient, llm: ScriptedLLM
) -> None:
    sid, child = _subagent_at_work(host, llm)
    host.request("session/delete", {"sessionId": sid})
    host.wait_stderr(lambda line: "dropping the report of deleg_" in line, timeout=30)
    child.release.set()
    assert not _triggered_runs(host)
    assert host.request("session/list") == {"sessions": []}  # not started anew to take it


def test_deleting_a_session_kills_its_background_command_whose_report_starts_no_run(
    any_host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    host = any_host
    _background_echo(llm, tmp_path / "never")  # runs until killed
    run = host.request("run/start", {"message": "count in the background"})
    sid = run["sessionId"]
    host.wait_run_completed(run["runId"])
    [proc] = host.request("process/list", {"sessionId": sid})["processes"]
    assert proc["status"] == "running"

    host.request("session/delete", {"sessionId": sid})
    [proc] = host.request("process/list", {"sessionId": sid})["processes"]
    assert proc["status"] == "exited"
    # Another session's background result: reported after the killed one's would be.
    _background_echo(llm, tmp_path / "go")
    other = host.request("run/start", {"message": "count in the background"})
    host.wait_run_completed(other["runId"])
    (tmp_path / "go").touch()
    host.wait_run_completed(_triggered(host, other["sessionId"]).params["runId"])
    assert [n.params["sessionId"] for n in _triggered_runs(host)] == [other["sessionId"]]


def _triggered_runs(host: HostClient) -> list[Notification]:
    return [
        n
        for _, n in host.received
        if isinstance(n, Notification) and n.method == "run/started" and n.params["trigger"]
    ]


def test_subagents_of_two_sessions_at_work_at_once_each_run_in_their_own_sessions_workspace(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    gates = {}
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        gates[name] = Gate()
        held = Reply.tool_call("terminal", {"command": "pwd > where.txt"})
        llm.enqueue_for(f"locate {name}", dataclasses.replace(held, gate=gates[name]))
    runs = {}
    for name in ("a", "b"):
        llm.enqueue(Reply.text(["here"]))  # the session's first turn sets its workspace
        run_to_end(
            host, {"sessionId": f"ws-{name}", "message": "hi", "workspace": str(tmp_path / name)}
        )
        runs[name] = delegating(host, llm, f"locate {name}", f"ws-{name}")
        host.wait_run_completed(runs[name])
    for gate in gates.values():  # both subagents are at work, waiting on their model
        assert gate.arrived.wait(60)
    for gate in gates.values():
        gate.release.set()
    reports: dict[str, str] = {}  # the runs their reports started -> their session
    reported: set[str] = set()

    def both_reported(n: Notification) -> bool:
        if n.method == "run/started" and n.params["trigger"] is not None:
            reports[n.params["runId"]] = n.params["sessionId"]
        elif n.method == "run/completed" and n.params["runId"] in reports:
            reported.add(reports[n.params["runId"]])
        return reported == {"ws-a", "ws-b"}

    host.wait_for(both_reported, 120)
    for name in ("a", "b"):
        assert (tmp_path / name / "where.txt").read_text().strip() == str(tmp_path / name)
