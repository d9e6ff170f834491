"""Standing goals through the real binary and real hermes-agent: session/goal sets and
manages a session's goal, and each finished turn of a session with an active goal
ends with hermes' judge's verdict (goal.evaluated) before run/completed."""

from __future__ import annotations

import json
from typing import Any

import pytest

from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Gate, Reply, ScriptedLLM
from hermes_stdio.wire import ErrorType, RpcError

SID = "sess-goal"


def goal(host: HostClient, action: str, **params: Any) -> dict[str, Any]:
    return dict(host.request("session/goal", {"sessionId": SID, "action": action, **params}))


def judged(verdict: str, reason: str) -> Reply:
    return Reply.text([json.dumps({"verdict": verdict, "reason": reason})])


def turn(host: HostClient, message: str) -> tuple[dict[str, Any] | None, dict[str, Any]]:
    """One run of the session: its goal.evaluated event (if any) and its run/completed."""
    run = host.request("run/start", {"sessionId": SID, "message": message})
    done = host.wait_run_completed(run["runId"]).params
    notes = host.run_notifications(run["runId"])
    events = [n.params["event"] for n in notes if n.method == "run/event"]
    evaluated = [e for e in events if e["type"] == "goal.evaluated"]
    assert len(evaluated) <= 1
    if evaluated:  # the verdict is the run's last event, right before run/completed
        assert notes[-2].method == "run/event" and notes[-2].params["event"] == evaluated[0]
    return (evaluated[0] if evaluated else None), done


def test_a_goal_is_judged_after_each_turn_until_the_judge_says_done(
    host: HostClient, llm: ScriptedLLM
) -> None:
    assert goal(host, "status") == {
        "goal": None,
        "status": None,
        "turnsUsed": 0,
        "maxTurns": None,
        "subgoals": [],
        "lastVerdict": None,
        "lastReason": None,
    }
    state = goal(host, "set", text="write the release notes", maxTurns=5)
    assert (state["goal"], state["status"], state["maxTurns"]) == (
        "write the release notes",
        "active",
        5,
    )
    assert goal(host, "addSubgoal", text="mention the fix")["subgoals"] == ["mention the fix"]

    llm.enqueue(Reply.text(["Drafted half."]), judged("continue", "the fix is not mentioned"))
    evaluated, done = turn(host, "start on it")
    assert done["status"] == "complete"
    assert evaluated is not None
    assert (evaluated["verdict"], evaluated["shouldContinue"]) == ("continue", True)
    assert evaluated["reason"] == "the fix is not mentioned"
    assert "write the release notes" in evaluated["continuationPrompt"]
    assert (evaluated["status"], evaluated["turnsUsed"]) == ("active", 1)
    judge_prompt = json.dumps(llm.requests[-1]["messages"])
    assert "write the release notes" in judge_prompt and "Drafted half." in judge_prompt
    assert "mention the fix" in judge_prompt

    llm.enqueue(Reply.text(["Done, with the fix."]), judged("done", "all there"))
    evaluated, done = turn(host, evaluated["continuationPrompt"])
    assert evaluated is not None
    assert (evaluated["verdict"], evaluated["shouldContinue"]) == ("done", False)
    assert evaluated["continuationPrompt"] is None
    assert (evaluated["status"], evaluated["turnsUsed"]) == ("done", 2)
    assert goal(host, "status")["lastReason"] == "all there"

    # Nothing active: the next turn is not judged.
    llm.enqueue(Reply.text(["ok"]))
    evaluated, _done = turn(host, "thanks")
    assert evaluated is None


def test_a_paused_goal_is_not_judged_and_resume_starts_a_fresh_budget(
    host: HostClient, llm: ScriptedLLM
) -> None:
    goal(host, "set", text="tidy up")
    assert goal(host, "pause")["status"] == "paused"
    llm.enqueue(Reply.text(["ok"]))
    assert turn(host, "hello")[0] is None
    state = goal(host, "resume")
    assert (state["status"], state["turnsUsed"]) == ("active", 0)
    assert goal(host, "clear")["goal"] is None


def test_goal_actions_that_cannot_apply_are_invalid_params(host: HostClient) -> None:
    for action, params in [
        ("set", {}),
        ("set", {"text": "   "}),
        ("pause", {}),
        ("addSubgoal", {"text": "x"}),
    ]:
        with pytest.raises(RpcError) as err:
            goal(host, action, **params)
        assert err.value.kind is ErrorType.INVALID_PARAMS, (action, params)
    goal(host, "set", text="something")
    for action, params, field in [
        ("removeSubgoal", {"index": 3}, "params.action"),
        ("removeSubgoal", {"index": 0}, "params.index"),
        ("set", {"text": "x", "maxTurns": 0}, "params.maxTurns"),
    ]:
        with pytest.raises(RpcError) as err:
            goal(host, action, **params)
        assert err.value.kind is ErrorType.INVALID_PARAMS
        assert err.value.data["field"] == field
    with pytest.raises(RpcError) as err:
        goal(host, "explode")
    assert err.value.kind is ErrorType.INVALID_PARAMS


def test_an_interrupt_while_the_judge_decides_ends_the_run_at_once(
    host: HostClient, llm: ScriptedLLM
) -> None:
    goal(host, "set", text="write the release notes")
    gate = Gate()
    verdict = Reply.text([json.dumps({"verdict": "done", "reason": "late"})], gate=gate)
    llm.enqueue(Reply.text(["Drafted."]), verdict)
    run = host.request("run/start", {"sessionId": SID, "message": "start on it"})
    try:
        assert gate.arrived.wait(60)  # the judge's call is out, its answer held
        assert host.request("run/interrupt", {"runId": run["runId"]}) == {"interrupted": True}
        done = host.wait_run_completed(run["runId"]).params
    finally:
        gate.release.set()
    assert done["status"] == "interrupted"
    assert done["result"]["finalResponse"] == "Drafted."
    events = [
        n.params["event"]["type"]
        for n in host.run_notifications(run["runId"])
        if n.method == "run/event"
    ]
    assert "goal.evaluated" not in events


def test_a_deleted_sessions_goal_does_not_carry_into_a_new_conversation_under_its_id(
    host: HostClient, llm: ScriptedLLM
) -> None:
    llm.enqueue(Reply.text(["Started."]), judged("continue", "not yet"))
    goal(host, "set", text="write the release notes")
    turn(host, "go")
    assert host.request("session/delete", {"sessionId": SID})["removedSessionIds"] == [SID]
    assert goal(host, "status")["goal"] is None

    llm.enqueue(Reply.text(["Hello."]))
    evaluated, done = turn(host, "hi")
    assert evaluated is None and done["status"] == "complete"
