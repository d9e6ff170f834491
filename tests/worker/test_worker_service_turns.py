"""WorkerService around a turn: goals and their judge, references, titles, slash commands."""

from __future__ import annotations

import threading

from worker_service_helpers import WAIT, error_of

from hermes_stdio.protocol.events import (
    CommandExpandedEvent,
    GoalEvaluatedEvent,
    ReferencesExpandedEvent,
)
from hermes_stdio.protocol.types import RunErrorType
from hermes_stdio.wire import ErrorType
from hermes_stdio.worker.contract import TurnOutcome


def verdict(said: str, go_on: bool) -> GoalEvaluatedEvent:
    """A judge's verdict on a goal "ship it" after its first turn."""
    return GoalEvaluatedEvent(
        verdict=said,
        reason="",
        should_continue=go_on,
        continuation_prompt=None,
        message="",
        goal="ship it",
        status="active",
        turns_used=1,
        max_turns=20,
        subgoals=[],
        last_verdict=said,
        last_reason=None,
    )


def test_an_interrupt_while_the_judge_thinks_ends_the_run_at_once_without_a_verdict(harness):
    judging, release = threading.Event(), threading.Event()

    def evaluate(session_id, final):
        judging.set()
        release.wait(WAIT)
        return verdict("done", False)

    harness.adapter.evaluate_goal = evaluate
    ack = harness.start("one")
    assert judging.wait(WAIT)
    assert harness.call("run/interrupt", {"runId": ack["runId"]})["result"] == {"interrupted": True}
    completed = harness.wait_completed(ack["runId"])  # while the judge still thinks
    release.set()
    assert completed["status"] == "interrupted"
    assert completed["result"]["finalResponse"] == "Hello"  # the turn itself finished
    assert not [m for m in harness.run_messages(ack["runId"]) if "goal" in str(m)]
    harness.wait_idle(ack["runId"])


def test_references_hermes_refuses_end_the_run_before_the_turn(harness):
    turns = []
    harness.adapter.turn = lambda agent, session, message, stop: turns.append(message)
    refused = ReferencesExpandedEvent(
        references=["@file:huge"], warnings=["too big"], injected_tokens=9, blocked=True
    )
    harness.adapter.expand_references = lambda agent, session, message: (message, refused)
    ack = harness.start("@file:huge")
    done = harness.wait_completed(ack["runId"])
    assert done["status"] == "error"
    assert done["error"] == {"type": RunErrorType.CONTEXT_REFUSED, "message": "too big"}
    events = [
        m["params"]["event"]
        for m in harness.run_messages(ack["runId"])
        if m["method"] == "run/event"
    ]
    assert events == [
        {
            "type": "references.expanded",
            "references": ["@file:huge"],
            "warnings": ["too big"],
            "injectedTokens": 9,
            "blocked": True,
        }
    ]
    assert turns == []
    harness.wait_idle(ack["runId"])


def test_a_completed_turn_is_handed_to_titling_and_its_title_announced_to_the_host(harness):
    handed = []

    def title(agent, session, message, final, announce):
        handed.append((session.session_id, message, final))
        announce("Greeting")  # hermes calls back from its own thread, later

    harness.adapter.title_session = title
    ack = harness.start("hi there")
    harness.wait_completed(ack["runId"])
    assert handed == [(ack["sessionId"], "hi there", "Hello")]
    titled = harness.peer.wait_for(
        lambda log: [m for m in log if m.get("method") == "session/titled"]
    )
    assert titled == [
        {"method": "session/titled", "params": {"sessionId": ack["sessionId"], "title": "Greeting"}}
    ]
    harness.wait_idle(ack["runId"])
    harness.adapter.turn = lambda agent, session, message, stop: TurnOutcome(
        None, [], failed=True, error="boom"
    )
    failed = harness.start("again", sessionId=ack["sessionId"])
    harness.wait_completed(failed["runId"])
    assert len(handed) == 1  # only a completed turn is titled
    harness.wait_idle(failed["runId"])


def test_a_leading_slash_command_is_expanded_before_the_turn_unless_the_run_says_not(harness):
    seen = []

    def expand(session, message):
        event = CommandExpandedEvent(command="/alpha", kind="skill", skills=["alpha"], missing=[])
        return ("[skill] " + message[1:], event)

    def turn(agent, session, message, stop):
        seen.append(message)
        return TurnOutcome("ok", [*session.history])

    harness.adapter.expand_command = expand
    harness.adapter.turn = turn
    ack = harness.start("/alpha go")
    harness.wait_completed(ack["runId"])
    events = [m["params"]["event"] for m in harness.run_messages(ack["runId"])[1:2]]
    assert events == [
        {
            "type": "command.expanded",
            "command": "/alpha",
            "kind": "skill",
            "skills": ["alpha"],
            "missing": [],
        }
    ]
    harness.wait_idle(ack["runId"])
    plain = harness.start("/alpha go", sessionId=ack["sessionId"], expandCommands=False)
    harness.wait_completed(plain["runId"])
    harness.wait_idle(plain["runId"])
    assert seen == ["[skill] alpha go", "/alpha go"]
    harness.call("session/destroy", {"sessionId": ack["sessionId"]})


def test_session_goal_answers_the_adapters_state_and_a_refusal_is_invalid_params(harness):
    from hermes_stdio.protocol.types import GoalInfo

    calls = []

    def goal(session_id, action, text, index, max_turns):
        calls.append((session_id, action, text, index, max_turns))
        if action == "pause":
            raise ValueError("the session has no goal")
        return GoalInfo("ship it", "active", 0, 7, [], None, None)

    harness.adapter.goal = goal
    answer = harness.call("session/goal", {"sessionId": "s", "action": "set", "text": "ship it"})
    assert answer["result"] == {
        "goal": "ship it",
        "status": "active",
        "turnsUsed": 0,
        "maxTurns": 7,
        "subgoals": [],
        "lastVerdict": None,
        "lastReason": None,
    }
    refused = harness.call("session/goal", {"sessionId": "s", "action": "pause"})
    assert error_of(refused) is ErrorType.INVALID_PARAMS
    assert calls == [("s", "set", "ship it", None, None), ("s", "pause", None, None, None)]
    assert harness.service.sessions == {}  # goals need no loaded session


def test_a_finished_turn_ends_with_the_goal_verdict_and_a_failing_judge_costs_only_the_event(
    harness,
):
    judged = []

    def evaluate(session_id, final):
        judged.append(final)
        if len(judged) == 2:
            raise RuntimeError("judge unreachable")
        return verdict("continue", True)

    harness.adapter.evaluate_goal = evaluate
    ack = harness.start("one")
    harness.wait_completed(ack["runId"])
    notes = harness.run_messages(ack["runId"])
    assert notes[-2]["params"]["event"] == {
        "type": "goal.evaluated",
        "verdict": "continue",
        "reason": "",
        "shouldContinue": True,
        "continuationPrompt": None,
        "message": "",
        "goal": "ship it",
        "status": "active",
        "turnsUsed": 1,
        "maxTurns": 20,
        "subgoals": [],
        "lastVerdict": "continue",
        "lastReason": None,
    }
    harness.wait_idle(ack["runId"])
    again = harness.start("two", sessionId=ack["sessionId"])
    assert harness.wait_completed(again["runId"])["status"] == "complete"
    assert judged == ["Hello", "Hello"]
    assert not [m for m in harness.run_messages(again["runId"]) if "goal" in str(m)]
    harness.wait_idle(again["runId"])

    harness.adapter.turn = lambda agent, session, message, stop: TurnOutcome(
        None, [], failed=True, error="boom"
    )
    failed = harness.start("three", sessionId=ack["sessionId"])
    assert harness.wait_completed(failed["runId"])["status"] == "error"
    assert len(judged) == 2  # a failed turn is not judged
    harness.wait_idle(failed["runId"])
    harness.call("session/destroy", {"sessionId": ack["sessionId"]})
