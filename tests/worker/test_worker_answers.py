"""Answers to what a run waits for (approvals, questions, compression) and steering,
with a fake agent adapter and a recording fake peer."""

from __future__ import annotations

import threading

import pytest

from hermes_stdio.protocol.events import ToolStartedEvent
from hermes_stdio.wire import ErrorType

WAIT = 10.0


def error_of(answer: dict) -> ErrorType:
    kind = next(e for e in ErrorType if e.code == answer["error"]["code"])
    assert answer["error"]["data"]["type"] == kind.type
    return kind


def test_approval_respond_reaches_the_runs_session_and_unknown_ones_are_named(harness):
    answered = []

    def answer(session, approval_id, decision, reason):
        answered.append((session.session_id, approval_id, decision, reason))
        return "denied" if approval_id == "appr_known" else None

    harness.adapter.answer_approval = answer
    entered = harness.block()
    ack = harness.start()
    assert entered.wait(WAIT)
    params = {"runId": ack["runId"], "decision": "deny", "reason": "no"}
    known = harness.call("approval/respond", {**params, "approvalId": "appr_known"})
    assert known["result"] == {"outcome": "denied"}
    assert answered == [(ack["sessionId"], "appr_known", "deny", "no")]
    unknown = harness.call("approval/respond", {**params, "approvalId": "appr_other"})
    assert error_of(unknown) is ErrorType.UNKNOWN_APPROVAL
    harness.adapter.wake.set()
    harness.wait_completed(ack["runId"])
    harness.wait_idle(ack["runId"])
    # The run is over: nothing can be pending, the adapter is not even asked.
    late = harness.call("approval/respond", {**params, "approvalId": "appr_known"})
    assert error_of(late) is ErrorType.UNKNOWN_APPROVAL
    assert len(answered) == 2
    missing = harness.call("approval/respond", {**params, "runId": "run_nope", "approvalId": "a"})
    assert error_of(missing) is ErrorType.UNKNOWN_RUN


def test_clarify_respond_reaches_the_runs_session_and_unknown_ones_are_named(harness):
    answered = []

    def answer(session, clarify_id, text):
        answered.append((session.session_id, clarify_id, text))
        return clarify_id == "clar_known"

    harness.adapter.answer_clarify = answer
    entered = harness.block()
    ack = harness.start()
    assert entered.wait(WAIT)
    params = {"runId": ack["runId"], "answer": "blue"}
    known = harness.call("clarify/respond", {**params, "clarifyId": "clar_known"})
    assert known["result"] == {"outcome": "answered"}
    assert answered == [(ack["sessionId"], "clar_known", "blue")]
    unknown = harness.call("clarify/respond", {**params, "clarifyId": "clar_other"})
    assert error_of(unknown) is ErrorType.UNKNOWN_CLARIFY
    harness.adapter.wake.set()
    harness.wait_completed(ack["runId"])
    harness.wait_idle(ack["runId"])
    late = harness.call("clarify/respond", {**params, "clarifyId": "clar_known"})
    assert error_of(late) is ErrorType.UNKNOWN_CLARIFY
    assert len(answered) == 2


SUMMARY = [{"role": "user", "content": "summary"}, {"role": "assistant", "content": "ok"}]


def test_compression_respond_reaches_the_runs_session_and_unknown_ones_are_named(harness):
    answered = []

    def answer(session, compression_id, messages, error):
        answered.append((session.session_id, compression_id, messages, error))
        if compression_id != "cmp_known":
            return None
        return "compressed" if messages is not None else "failed"

    harness.adapter.answer_compression = answer
    entered = harness.block()
    ack = harness.start()
    assert entered.wait(WAIT)
    params = {"runId": ack["runId"], "compressionId": "cmp_known"}
    given = [{**SUMMARY[0], "_private": 1}, SUMMARY[1]]
    known = harness.call("compression/respond", {**params, "messages": given})
    assert known["result"] == {"outcome": "compressed"}
    failed = harness.call("compression/respond", {**params, "error": "offline"})
    assert failed["result"] == {"outcome": "failed"}
    assert answered == [
        (ack["sessionId"], "cmp_known", SUMMARY, None),
        (ack["sessionId"], "cmp_known", None, "offline"),
    ]
    other = harness.call("compression/respond", {**params, "compressionId": "cmp_x", "error": "e"})
    assert error_of(other) is ErrorType.UNKNOWN_COMPRESSION
    assert other["error"]["data"]["compressionId"] == "cmp_x"
    harness.adapter.wake.set()
    harness.wait_completed(ack["runId"])
    harness.wait_idle(ack["runId"])
    late = harness.call("compression/respond", {**params, "messages": SUMMARY})
    assert error_of(late) is ErrorType.UNKNOWN_COMPRESSION
    assert len(answered) == 3


@pytest.mark.parametrize(
    "answer",
    [
        {},
        {"messages": SUMMARY, "error": "both"},
        {"messages": []},
        {"messages": [{"role": "narrator"}]},
        {"messages": [{"content": "no role"}]},
        {"messages": ["text"]},
    ],
)
def test_a_compression_answer_that_is_not_exactly_messages_or_an_error_is_invalid_params(
    harness, answer
):
    asked = []
    harness.adapter.answer_compression = lambda *args: asked.append(args)
    reply = harness.call(
        "compression/respond", {"runId": "run_nope", "compressionId": "cmp_1", **answer}
    )
    assert error_of(reply) is ErrorType.INVALID_PARAMS
    assert reply["error"]["data"]["field"].startswith("params.")
    assert asked == []


def test_steering_waits_for_the_turns_first_tool_call_and_later_text_goes_to_the_sessions_agent(
    harness,
):
    steered = []
    harness.adapter.steer = lambda agent, text: steered.append((agent, text)) or True
    building, build = threading.Event(), harness.adapter.build

    def slow_build(session, sink):
        building.wait(WAIT)
        return build(session, sink)

    harness.adapter.build = slow_build
    entered = harness.block()
    blocked_turn = harness.adapter.turn
    tool_starts, tool_started = threading.Event(), threading.Event()

    def turn(agent, session, message, stop):
        assert tool_starts.wait(WAIT)
        agent.sink.event(ToolStartedEvent(tool_call_id="c1", name="terminal", args={}))
        tool_started.set()
        return blocked_turn(agent, session, message, stop)

    harness.adapter.turn = turn
    run_id = harness.start()["runId"]

    def steer(text):
        return harness.call("run/steer", {"runId": run_id, "text": text})["result"]["accepted"]

    assert steer("  early  ") is True  # the agent is still being built
    building.set()
    assert steer("before the tool") is True  # the turn has no tool result yet
    assert steered == []
    tool_starts.set()
    assert tool_started.wait(WAIT) and entered.wait(WAIT)
    [agent] = harness.adapter.agents
    assert steered == [(agent, "early"), (agent, "before the tool")]
    assert steer("later") is True
    assert steered == [(agent, "early"), (agent, "before the tool"), (agent, "later")]
    assert steer("   ") is False
    harness.adapter.wake.set()
    harness.wait_completed(run_id)
    assert steer("too late") is False
    assert [text for _, text in steered] == ["early", "before the tool", "later"]
    missing = harness.call("run/steer", {"runId": "run_nope", "text": "x"})
    assert error_of(missing) is ErrorType.UNKNOWN_RUN
