"""run/steer through the real binary and real hermes-agent: text the host adds while a
run works reaches the model with the run's next tool result."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM

from .test_approvals import respond, waiting

STEER = "also mention PINEAPPLE"


def tool_messages(llm: ScriptedLLM) -> list[str]:
    """The content of every tool result the model was sent, last request first."""
    for body in reversed(llm.requests):
        tools = [m for m in body.get("messages") or [] if m.get("role") == "tool"]
        if tools:
            return [str(m.get("content")) for m in tools]
    raise AssertionError("no model request carried a tool result")


def steer(host: HostClient, run: dict[str, Any], text: str = STEER) -> Any:
    return host.request("run/steer", {"runId": run["runId"], "text": text})


def test_steering_text_reaches_the_model_with_the_tool_result_the_run_waits_for(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    _victim, run, ask = waiting(host, llm, tmp_path)
    assert steer(host, run) == {"accepted": True}
    respond(host, run, ask, "deny")
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"
    assert STEER in tool_messages(llm)[-1]


def test_steering_sent_right_after_run_start_is_not_lost(
    host: HostClient, llm: ScriptedLLM
) -> None:
    llm.enqueue(Reply.tool_call("terminal", {"command": "echo hi"}), Reply.text(["done"]))
    run = host.request("run/start", {"message": "say hi"})
    assert steer(host, run) == {"accepted": True}  # before or while the agent is built
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"
    assert STEER in tool_messages(llm)[-1]


def test_steering_a_finished_run_or_with_blank_text_is_not_accepted(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    _victim, run, ask = waiting(host, llm, tmp_path)
    assert steer(host, run, "   ") == {"accepted": False}
    respond(host, run, ask, "deny")
    host.wait_run_completed(run["runId"])
    assert steer(host, run) == {"accepted": False}
    assert all(STEER not in content for content in tool_messages(llm))


def test_steering_a_turn_that_calls_no_tool_never_rewrites_an_earlier_turns_tool_result(
    host: HostClient, llm: ScriptedLLM
) -> None:
    llm.enqueue(Reply.tool_call("terminal", {"command": "echo first"}), Reply.text(["done"]))
    first = host.request("run/start", {"message": "one"})
    host.wait_run_completed(first["runId"])
    sid = first["sessionId"]
    before = host.request("session/history", {"sessionId": sid})["messages"]
    llm.enqueue(Reply.text(["no tools this time"]))
    run = host.request("run/start", {"message": "two", "sessionId": sid})
    assert steer(host, run) == {"accepted": True}  # before this turn has any tool result
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"
    assert all(STEER not in content for content in tool_messages(llm))
    after = host.request("session/history", {"sessionId": sid})["messages"]
    assert after[: len(before)] == before
