"""Opting out of notifications at initialize, through the real binary and real
hermes-agent: what is opted out of never arrives, and a run's seq stays gapless."""

from __future__ import annotations

from typing import Any

from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM
from hermes_stdio.wire import ErrorType

from .conftest import StartHost, received, refused, run_to_end


def initialize(host: HostClient, **capabilities: Any) -> None:
    host.request("initialize", {"protocolVersion": 1, "capabilities": capabilities})


def streamed_run(host: HostClient, llm: ScriptedLLM) -> list[Any]:
    """A run that streams two deltas; its notifications, their seq checked gapless."""
    llm.enqueue(Reply.text(["Hel", "lo"], delay=0.01))
    _run, notes = run_to_end(host, {"message": "hi"})
    assert [n.params["seq"] for n in notes] == list(range(1, len(notes) + 1))
    assert notes[-1].params["result"]["finalResponse"] == "Hello"
    return [n.method for n in notes]


def test_what_a_host_opted_out_of_never_arrives_and_each_run_stays_numbered_without_gaps(
    start_host: StartHost, llm: ScriptedLLM
) -> None:
    host = start_host()
    initialize(
        host,
        optOutNotificationMethods=["run/delta", "worker/started", "shell/output"],
        optOutRunEvents=["tool.started", "status"],
    )
    llm.enqueue(
        Reply.tool_call("terminal", {"command": "echo fine"}),
        Reply.text(["All ", "done."], delay=0.01),
    )
    _run, notes = run_to_end(host, {"message": "run it"})
    assert [n.params["seq"] for n in notes] == list(range(1, len(notes) + 1))
    methods = [n.method for n in notes]
    assert methods[0] == "run/started" and methods[-1] == "run/completed"
    assert "run/delta" not in methods
    events = [n.params["event"]["type"] for n in notes if n.method == "run/event"]
    assert "tool.completed" in events
    assert "tool.started" not in events and "status" not in events
    assert notes[-1].params["result"]["finalResponse"] == "All done."
    # Relayed from the worker outside any run: all of it comes before the answer.
    result = host.request("shell/exec", {"command": ["echo", "out"], "streamId": "s1"})
    assert result["exitCode"] == 0
    assert received(host, "shell/output") == []
    # worker/started comes before anything from its worker, so it would be here.
    assert received(host, "worker/started") == []
    workers = host.request("supervisor/status", {})["workers"]
    assert [w["state"] for w in workers if w["profile"] == "default"] == ["ready"]


def test_a_later_initialize_replaces_the_opt_out_for_running_workers_and_new_ones(
    start_host: StartHost, llm: ScriptedLLM
) -> None:
    host = start_host()
    initialize(host)
    assert streamed_run(host, llm).count("run/delta") >= 1
    initialize(host, optOutNotificationMethods=["run/delta"])
    assert "run/delta" not in streamed_run(host, llm)  # told while running
    host.request("worker/restart", {}, timeout=60)
    assert "run/delta" not in streamed_run(host, llm)  # told first when it started
    initialize(host)
    assert streamed_run(host, llm).count("run/delta") >= 1


def test_an_initialize_opting_out_of_what_cannot_be_is_refused_and_changes_nothing(
    start_host: StartHost, llm: ScriptedLLM
) -> None:
    host = start_host()
    params = {
        "protocolVersion": 1,
        "capabilities": {"optOutNotificationMethods": ["run/completed"]},
    }
    err = refused(host, "initialize", params)
    assert err.kind is ErrorType.INVALID_PARAMS
    assert err.data["field"] == "params.capabilities.optOutNotificationMethods[0]"
    assert refused(host, "supervisor/status", {}).kind is ErrorType.SERVER_NOT_INITIALIZED
    initialize(host, optOutNotificationMethods=["run/delta"])
    for capabilities, field in [
        ({"optOutRunEvents": ["usage", "nope"]}, "optOutRunEvents[1]"),
        ({"optOutNotificationMethods": ["approval/requested"]}, "optOutNotificationMethods[0]"),
        ({"optOutEverything": True}, "optOutEverything"),
    ]:
        err = refused(host, "initialize", {"protocolVersion": 1, "capabilities": capabilities})
        assert err.kind is ErrorType.INVALID_PARAMS
        assert err.data["field"] == f"params.capabilities.{field}"
    assert "run/delta" not in streamed_run(host, llm)  # still opted out
