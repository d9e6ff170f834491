"""WorkerService runs: the ack, streamed notifications with gapless seq, one run/completed."""

from __future__ import annotations

import threading

import pytest
from worker_service_helpers import WAIT

from hermes_stdio.protocol.events import StatusEvent, StepEvent, ToolStartedEvent
from hermes_stdio.protocol.types import RunErrorType
from hermes_stdio.worker.context_files import ContextUnreadable
from hermes_stdio.worker.contract import AgentUnavailable, TurnOutcome


def seqs(messages: list[dict]) -> list[int]:
    return [m["params"]["seq"] for m in messages]


# --- run/start ---------------------------------------------------------------


def test_run_start_is_acknowledged_with_run_and_session_ids_before_any_run_notification(harness):
    ack = harness.start("hi", sessionId="sess_a")
    assert ack["sessionId"] == "sess_a"
    assert ack["runId"].startswith("run_")
    harness.wait_completed(ack["runId"])
    log = harness.peer.snapshot()
    ack_at = next(i for i, m in enumerate(log) if m.get("result") == ack)
    first_note = next(i for i, m in enumerate(log) if "method" in m)
    assert ack_at < first_note


def test_run_start_without_a_session_id_creates_a_new_session(harness):
    a, b = harness.start(), harness.start()
    assert a["sessionId"].startswith("sess_")
    assert a["sessionId"] != b["sessionId"]


def test_a_run_streams_started_deltas_events_and_one_completed_with_gapless_seq(harness):
    ack = harness.start("hi")
    done = harness.wait_completed(ack["runId"])
    msgs = harness.run_messages(ack["runId"])
    assert [m["method"] for m in msgs] == [
        "run/started",
        "run/delta",
        "run/event",
        "run/delta",
        "run/completed",
    ]
    assert seqs(msgs) == [1, 2, 3, 4, 5]
    assert msgs[0]["params"] == {
        "runId": ack["runId"],
        "sessionId": ack["sessionId"],
        "seq": 1,
        "profile": "default",
        "model": "fake-model",
        "trigger": None,
    }
    assert [m["params"]["text"] for m in msgs if m["method"] == "run/delta"] == ["Hel", "lo"]
    assert msgs[2]["params"]["event"] == {"type": "status", "kind": "thinking", "message": ""}
    assert done["status"] == "complete"
    assert done["result"] == {
        "finalResponse": "Hello",
        "messageCount": 2,
        "apiCalls": 1,
        "usage": None,  # the fake agent keeps no token counters
    }
    assert done["error"] is None


def test_each_model_call_that_used_tokens_is_reported_before_the_runs_next_event(harness):
    build = harness.adapter.build

    def counting_build(session, sink):
        agent = build(session, sink)
        for name in ("input", "output", "cache_read", "cache_write", "reasoning", "total"):
            setattr(agent, f"session_{name}_tokens", 0)  # hermes' per-session counters
        return agent

    def turn(agent, session, message, stop):
        agent.session_input_tokens = agent.session_total_tokens = 100  # the first model call
        agent.sink.event(ToolStartedEvent(tool_call_id="c1", name="terminal", args={}))
        agent.sink.event(StatusEvent(kind="lifecycle", message="ran"))  # nothing more used
        agent.session_input_tokens, agent.session_output_tokens = 250, 5  # the second call
        agent.session_total_tokens = 255
        return TurnOutcome("ok", [])

    harness.adapter.build, harness.adapter.turn = counting_build, turn
    ack = harness.start("hi")
    harness.wait_completed(ack["runId"])
    msgs = harness.run_messages(ack["runId"])
    kinds = [m["params"]["event"]["type"] if "event" in m["params"] else m["method"] for m in msgs]
    assert kinds == ["run/started", "usage", "tool.started", "status", "usage", "run/completed"]
    assert seqs(msgs) == [1, 2, 3, 4, 5, 6]
    used = [m["params"]["event"]["usage"] for m in msgs if kinds[msgs.index(m)] == "usage"]
    assert [u["inputTokens"] for u in used] == [100, 250]
    assert used[-1] == {
        "inputTokens": 250,
        "outputTokens": 5,
        "cacheReadTokens": 0,
        "cacheWriteTokens": 0,
        "reasoningTokens": 0,
        "totalTokens": 255,
        "contextTokens": None,  # the fake keeps no context compressor
        "contextLength": None,
        "costUsd": None,  # nor a cost estimate
    }
    harness.wait_idle(ack["runId"])
    harness.adapter.turn = lambda agent, session, message, stop: TurnOutcome("ok", [])
    again = harness.start("again", sessionId=ack["sessionId"])  # counters stay where they were
    harness.wait_completed(again["runId"])
    assert [m["method"] for m in harness.run_messages(again["runId"])] == [
        "run/started",
        "run/completed",
    ]


def test_seq_stays_gapless_when_the_agent_streams_from_many_threads(harness):
    def turn(agent, session, message, stop):
        def burst(n):
            for i in range(100):
                agent.sink.delta(f"{n}.{i}")
                agent.sink.event(StepEvent(api_calls=n, tools=[]))

        threads = [threading.Thread(target=burst, args=(n,)) for n in range(6)]
        for th in threads:
            th.start()
        for th in threads:
            th.join(WAIT)
        return TurnOutcome("ok", [])

    harness.adapter.turn = turn
    ack = harness.start()
    harness.wait_completed(ack["runId"])
    msgs = harness.run_messages(ack["runId"])
    assert seqs(msgs) == list(range(1, 1 + 1 + 6 * 200 + 1))
    assert msgs[-1]["method"] == "run/completed"


def test_the_agent_is_built_once_per_session_and_history_carries_over(harness):
    first = harness.start("one")
    harness.wait_completed(first["runId"])
    harness.wait_idle(first["runId"])
    second = harness.start("two", sessionId=first["sessionId"])
    done = harness.wait_completed(second["runId"])
    assert len(harness.adapter.agents) == 1
    assert done["result"]["messageCount"] == 4


def test_conversation_history_replaces_the_session_history(harness):
    history = [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]
    ack = harness.start("c", conversationHistory=history)
    assert harness.wait_completed(ack["runId"])["result"]["messageCount"] == 4


# --- exactly one run/completed ------------------------------------------------


def test_an_agent_that_raises_ends_the_run_with_one_agent_error(harness):
    def turn(agent, session, message, stop):
        agent.sink.delta("before")
        raise RuntimeError("model exploded")

    harness.adapter.turn = turn
    ack = harness.start()
    done = harness.wait_completed(ack["runId"])
    harness.wait_idle(ack["runId"])
    assert done["status"] == "error"
    assert done["error"]["type"] == RunErrorType.AGENT_ERROR
    assert done["result"] is None
    msgs = harness.run_messages(ack["runId"])
    assert [m["method"] for m in msgs].count("run/completed") == 1
    assert seqs(msgs) == [1, 2, 3]


def test_an_agent_reporting_an_error_without_a_response_ends_with_agent_error(harness):
    harness.adapter.turn = lambda agent, session, message, stop: TurnOutcome(
        None, [], error="rate limited"
    )
    ack = harness.start()
    done = harness.wait_completed(ack["runId"])
    assert done["status"] == "error"
    assert done["error"] == {"type": RunErrorType.AGENT_ERROR, "message": "rate limited"}


def test_a_missing_agent_ends_the_run_with_one_agent_unavailable_error(harness):
    harness.adapter.build_error = AgentUnavailable("cannot import hermes-agent")
    ack = harness.start()
    done = harness.wait_completed(ack["runId"])
    harness.wait_idle(ack["runId"])
    assert done["status"] == "error"
    assert done["error"]["type"] == RunErrorType.AGENT_UNAVAILABLE
    msgs = harness.run_messages(ack["runId"])
    assert [m["method"] for m in msgs] == ["run/completed"]
    assert seqs(msgs) == [1]


def test_a_build_failure_ends_the_run_with_agent_error_and_the_next_run_retries(harness):
    harness.adapter.build_error = ValueError("bad config")
    ack = harness.start()
    assert harness.wait_completed(ack["runId"])["error"]["type"] == RunErrorType.AGENT_ERROR
    harness.wait_idle(ack["runId"])
    harness.adapter.build_error = None
    again = harness.start(sessionId=ack["sessionId"])
    assert harness.wait_completed(again["runId"])["status"] == "complete"


@pytest.mark.parametrize("where", ["build", "turn"])
def test_an_unreadable_context_file_ends_the_run_with_context_unreadable_naming_it(
    harness, tmp_path, where
):
    refusal = ContextUnreadable(tmp_path / "AGENTS.md")
    if where == "build":
        harness.adapter.build_error = refusal
    else:

        def turn(agent, session, message, stop):
            raise refusal

        harness.adapter.turn = turn
    ack = harness.start()
    done = harness.wait_completed(ack["runId"])
    assert (done["status"], done["result"]) == ("error", None)
    assert done["error"] == {"type": RunErrorType.CONTEXT_UNREADABLE, "message": str(refusal)}
    assert str(tmp_path / "AGENTS.md") in done["error"]["message"]


def test_an_interrupted_run_ends_with_one_interrupted_completion(harness):
    entered = harness.block()
    ack = harness.start()
    assert entered.wait(WAIT)
    answer = harness.call("run/interrupt", {"runId": ack["runId"]})
    assert answer["result"] == {"interrupted": True}
    done = harness.wait_completed(ack["runId"])
    harness.wait_idle(ack["runId"])
    assert done["status"] == "interrupted"
    assert done["result"]["finalResponse"] == "partial"
    msgs = harness.run_messages(ack["runId"])
    assert [m["method"] for m in msgs].count("run/completed") == 1
    assert msgs[-1]["method"] == "run/completed"
    assert harness.call("run/interrupt", {"runId": ack["runId"]})["result"] == {
        "interrupted": False
    }


def test_an_interrupt_before_the_agent_is_built_completes_interrupted_without_starting(harness):
    building, release = threading.Event(), threading.Event()
    original_build = harness.adapter.build

    def slow_build(session, sink):
        building.set()
        release.wait(WAIT)
        return original_build(session, sink)

    harness.adapter.build = slow_build
    ack = harness.start()
    assert building.wait(WAIT)
    assert harness.call("run/interrupt", {"runId": ack["runId"]})["result"]["interrupted"]
    release.set()
    done = harness.wait_completed(ack["runId"])
    assert done["status"] == "interrupted"
    assert [m["method"] for m in harness.run_messages(ack["runId"])] == ["run/completed"]


def test_late_deltas_after_completion_are_dropped(harness):
    late_go, late_done = threading.Event(), threading.Event()
    captured = {}

    def turn(agent, session, message, stop):
        captured["run"] = session.run

        def late():
            late_go.wait(WAIT)
            captured["run"].delta("too late")
            agent.sink.delta("also too late")
            late_done.set()

        threading.Thread(target=late, daemon=True).start()
        agent.sink.delta("in time")
        return TurnOutcome("in time", [])

    harness.adapter.turn = turn
    ack = harness.start()
    harness.wait_completed(ack["runId"])
    late_go.set()
    assert late_done.wait(WAIT)
    msgs = harness.run_messages(ack["runId"])
    assert [m["method"] for m in msgs] == ["run/started", "run/delta", "run/completed"]
    assert "too late" not in str(harness.peer.snapshot())


def test_runs_opened_after_worker_set_opt_out_drop_what_it_names_and_number_the_rest(harness):
    from hermes_stdio.wire import Notification

    before = harness.start("hi")
    harness.wait_completed(before["runId"])
    told = {"notifications": ["run/delta"], "runEvents": ["status"]}
    harness.service.on_notification(harness.peer, Notification("worker/setOptOut", told), b"")
    after = harness.start("hi")
    done = harness.wait_completed(after["runId"])
    msgs = harness.run_messages(after["runId"])
    assert [m["method"] for m in msgs] == ["run/started", "run/completed"]
    assert seqs(msgs) == [1, 2]
    assert done["result"]["finalResponse"] == "Hello"  # the text is still in the result
    # The run before it was sent everything.
    assert [m["method"] for m in harness.run_messages(before["runId"])].count("run/delta") == 2


def test_a_malformed_worker_set_opt_out_is_ignored_and_changes_nothing(harness):
    from hermes_stdio.wire import Notification

    bad = {"notifications": "run/delta", "runEvents": []}
    harness.service.on_notification(harness.peer, Notification("worker/setOptOut", bad), b"")
    ack = harness.start("hi")
    harness.wait_completed(ack["runId"])
    assert seqs(harness.run_messages(ack["runId"])) == [1, 2, 3, 4, 5]


def test_a_run_whose_thread_cannot_start_is_answered_once_and_ends_once(harness, monkeypatch):
    from hermes_stdio.worker import launch

    class NoThread(threading.Thread):
        def start(self) -> None:
            raise RuntimeError("can't start new thread")

    monkeypatch.setattr(launch.threading, "Thread", NoThread)
    ack = harness.start("hi", sessionId="sess_a")  # answered with the ack, not an error too
    done = harness.wait_completed(ack["runId"])
    assert done["status"] == "error" and done["error"]["type"] == RunErrorType.INTERNAL_ERROR
    assert "can't start new thread" in done["error"]["message"]
    answers = [m for m in harness.peer.snapshot() if "method" not in m]
    assert len(answers) == 1
    assert ack["runId"] not in harness.service._threads
    harness.threads.every.pop(ack["runId"])  # never started: nothing to join
    monkeypatch.undo()
    again = harness.start("again", sessionId="sess_a")  # the session was freed
    assert harness.wait_completed(again["runId"])["status"] == "complete"
