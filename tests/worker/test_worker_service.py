"""WorkerService with a fake agent adapter and a recording fake peer."""

from __future__ import annotations

import base64
import gc
import threading
import weakref

import pytest

from hermes_stdio.protocol.events import (
    CommandExpandedEvent,
    GoalEvaluatedEvent,
    ReferencesExpandedEvent,
    StatusEvent,
    StepEvent,
    ToolStartedEvent,
)
from hermes_stdio.protocol.toolbox import McpServerInfo
from hermes_stdio.protocol.types import RunErrorType
from hermes_stdio.wire import ErrorType, Notification, Request
from hermes_stdio.worker.contract import AgentUnavailable, TurnOutcome

WAIT = 10.0


def error_of(answer: dict) -> ErrorType:
    kind = next(e for e in ErrorType if e.code == answer["error"]["code"])
    assert answer["error"]["data"]["type"] == kind.type
    return kind


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


# --- errors --------------------------------------------------------------------


def test_a_second_run_start_on_a_busy_session_is_session_busy(harness):
    entered = harness.block()
    ack = harness.start(sessionId="s1")
    assert entered.wait(WAIT)
    answer = harness.call("run/start", {"message": "again", "sessionId": "s1"})
    assert error_of(answer) is ErrorType.SESSION_BUSY
    assert answer["error"]["data"]["sessionId"] == "s1"
    assert answer["error"]["data"]["runId"] == ack["runId"]
    harness.adapter.wake.set()
    harness.wait_completed(ack["runId"])
    harness.wait_idle(ack["runId"])
    assert "result" in harness.call("run/start", {"message": "now", "sessionId": "s1"})


def test_a_run_start_sent_the_moment_run_completed_is_written_finds_the_session_free(harness):
    # The host's usual next turn: no wait between hearing the end and starting again.
    send_raw, sent = harness.peer.send_raw, []

    def next_turn_at_once(body: bytes) -> bool:
        ok = send_raw(body)
        if b'"run/completed"' in body and not sent:
            sent.append(999)
            request = Request(999, "run/start", {"message": "next", "sessionId": "s1"})
            harness.service.on_request(harness.peer, request)
        return ok

    harness.peer.send_raw = next_turn_at_once
    first = harness.start(sessionId="s1")
    answer = harness.peer.wait_for(
        lambda log: next((m for m in log if m.get("id") == 999 and "method" not in m), None)
    )
    assert sent == [999] and "result" in answer, answer
    assert answer["result"]["runId"] != first["runId"]
    harness.wait_completed(answer["result"]["runId"])


def test_run_result_for_an_unknown_run_is_unknown_run(harness):
    answer = harness.call("run/result", {"runId": "run_nope"})
    assert error_of(answer) is ErrorType.UNKNOWN_RUN
    assert answer["error"]["data"]["runId"] == "run_nope"
    assert error_of(harness.call("run/interrupt", {"runId": "run_nope"})) is ErrorType.UNKNOWN_RUN


def test_run_result_reports_running_then_the_outcome(harness):
    entered = harness.block()
    ack = harness.start()
    assert entered.wait(WAIT)
    running = harness.call("run/result", {"runId": ack["runId"]})["result"]
    assert running == {
        "runId": ack["runId"],
        "sessionId": ack["sessionId"],
        "status": "running",
        "result": None,
        "error": None,
    }
    harness.adapter.wake.set()
    harness.wait_completed(ack["runId"])
    harness.wait_idle(ack["runId"])
    final = harness.call("run/result", {"runId": ack["runId"]})["result"]
    assert final["status"] == "complete"
    assert final["result"]["finalResponse"] == "partial"


def test_finished_runs_are_pruned_by_the_run_table(harness):
    harness.service.runs.keep = 1
    first = harness.start()
    harness.wait_completed(first["runId"])
    harness.wait_idle(first["runId"])
    second = harness.start()
    harness.wait_completed(second["runId"])
    harness.wait_idle(second["runId"])
    assert error_of(harness.call("run/result", {"runId": first["runId"]})) is ErrorType.UNKNOWN_RUN
    assert harness.call("run/result", {"runId": second["runId"]})["result"]["status"] == "complete"


def test_a_finished_run_the_run_table_lets_go_is_freed_without_the_cycle_collector(harness):
    harness.service.runs.keep = 1
    first = harness.start()
    harness.wait_idle(first["runId"])
    record = harness.service.runs.get(first["runId"])
    assert record is not None and record.done
    gone = weakref.ref(record)
    del record
    enabled = gc.isenabled()
    gc.disable()  # only reference counting may free it
    try:
        second = harness.start()
        harness.wait_idle(second["runId"])
        assert harness.service.runs.get(first["runId"]) is None
        assert gone() is None
    finally:
        if enabled:
            gc.enable()


def test_a_finished_run_kept_for_run_result_no_longer_holds_the_images_it_was_sent(harness):
    image = {"data": base64.b64encode(b"\x89PNG" + b"x" * 4096).decode(), "mimeType": "image/png"}
    ack = harness.start("look", images=[image])
    harness.wait_idle(ack["runId"])
    assert harness.call("run/result", {"runId": ack["runId"]})["result"]["status"] == "complete"
    record = harness.service.runs.get(ack["runId"])
    assert record is not None and record.images == []


@pytest.mark.parametrize("method", ["nope/nothing", "initialize", "supervisor/status"])
def test_a_method_the_worker_does_not_serve_is_method_not_found(harness, method):
    assert error_of(harness.call(method, {})) is ErrorType.METHOD_NOT_FOUND


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({}, "params.message"),
        ({"message": 5}, "params.message"),
        ({"message": "m", "bogus": 1}, "params.bogus"),
        ({"message": "m", "conversationHistory": [{}, 1]}, "params.conversationHistory[1]"),
    ],
)
def test_bad_run_start_params_are_invalid_params_naming_the_field(harness, params, field):
    answer = harness.call("run/start", params)
    assert error_of(answer) is ErrorType.INVALID_PARAMS
    assert answer["error"]["data"]["field"] == field
    assert harness.service.sessions == {}


def test_a_session_id_the_worker_does_not_hold_resumes_from_stored_history(harness):
    stored = [{"role": "user", "content": "before"}, {"role": "assistant", "content": "ok"}]
    asked: list[str] = []

    def stored_history(session_id):
        asked.append(session_id)
        return list(stored) if session_id == "sess_known" else None

    harness.adapter.stored_history = stored_history
    for params, count in (
        ({"sessionId": "sess_known"}, 4),  # stored two + this turn's two
        ({"sessionId": "sess_unknown"}, 2),
        ({"sessionId": "sess_given", "conversationHistory": []}, 2),  # the host's history wins
        ({}, 2),  # a new session
    ):
        ack = harness.start(**params)
        done = harness.wait_completed(ack["runId"])
        harness.wait_idle(ack["runId"])
        assert done["result"]["messageCount"] == count, params
    assert asked == ["sess_known", "sess_unknown"]
    # Once held, the session is not read back again.
    ack = harness.start(sessionId="sess_known")
    assert harness.wait_completed(ack["runId"])["result"]["messageCount"] == 6
    assert asked == ["sess_known", "sess_unknown"]


def started_model(harness, run_id):
    [started] = [m for m in harness.run_messages(run_id) if m["method"] == "run/started"]
    return started["params"]["model"]


def test_switch_model_applies_from_the_next_run_and_waits_for_a_running_one(harness):
    echo = harness.adapter.turn
    ack = harness.start()
    harness.wait_completed(ack["runId"])
    harness.wait_idle(ack["runId"])
    sid = ack["sessionId"]
    idle = harness.call("session/switchModel", {"sessionId": sid, "model": "m2", "provider": "p"})
    assert idle["result"] == {"sessionId": sid, "model": "m2", "provider": "p", "deferred": False}
    entered = harness.block()
    running = harness.start(sessionId=sid)
    assert entered.wait(WAIT)
    assert started_model(harness, running["runId"]) == "m2"
    busy = harness.call("session/switchModel", {"sessionId": sid, "model": "m3"})
    assert busy["result"]["deferred"] is True
    harness.adapter.wake.set()
    harness.wait_completed(running["runId"])
    harness.wait_idle(running["runId"])
    harness.adapter.turn = echo
    after = harness.start(sessionId=sid)
    harness.wait_completed(after["runId"])
    assert started_model(harness, after["runId"]) == "m3"
    # A session no worker holds is created with that model (and resumed if stored).
    new = harness.call("session/switchModel", {"sessionId": "sess_new", "model": "m4"})
    assert new["result"]["deferred"] is False
    run = harness.start(sessionId="sess_new")
    harness.wait_completed(run["runId"])
    assert started_model(harness, run["runId"]) == "m4"


def test_switch_model_to_a_model_that_cannot_resolve_is_invalid_params(harness):
    def resolve(model, provider):
        raise ValueError(f"Unknown provider {provider!r}")

    harness.adapter.resolve_model = resolve
    answer = harness.call(
        "session/switchModel", {"sessionId": "s", "model": "m", "provider": "nope"}
    )
    assert error_of(answer) is ErrorType.INVALID_PARAMS
    assert answer["error"]["data"]["field"] == "params.provider"
    assert "s" not in harness.service.sessions


def test_history_sent_with_run_start_wins_over_a_stored_one_for_a_session_made_by_switch_model(
    harness,
):
    asked: list[str] = []
    harness.adapter.stored_history = lambda sid: asked.append(sid) or [{"role": "user"}] * 5
    harness.call("session/switchModel", {"sessionId": "sess_k", "model": "m"})
    ack = harness.start(sessionId="sess_k", conversationHistory=[])
    assert harness.wait_completed(ack["runId"])["result"]["messageCount"] == 2
    assert asked == []


def test_estimate_context_counts_the_sessions_history_or_the_given_messages(harness):
    ack = harness.start()
    harness.wait_completed(ack["runId"])
    harness.wait_idle(ack["runId"])
    sid = ack["sessionId"]
    own = harness.call("session/estimateContext", {"sessionId": sid})["result"]
    assert own["sessionId"] == sid and own["model"] == "fake-model"
    assert own["messageCount"] == 2 and own["tokens"] > 0
    given = [{"role": "user", "content": "x" * 400}] * 3
    other = harness.call("session/estimateContext", {"sessionId": sid, "messages": given})
    assert other["result"]["messageCount"] == 3
    assert other["result"]["tokens"] > own["tokens"]
    # A session the worker does not hold is resumed from the database first.
    harness.adapter.stored_history = lambda s: [{"role": "user", "content": "old"}]
    resumed = harness.call("session/estimateContext", {"sessionId": "sess_stored"})
    assert resumed["result"]["messageCount"] == 1


def test_estimate_context_reports_an_agent_that_cannot_be_built(harness):
    harness.adapter.build_error = RuntimeError("no model configured")
    answer = harness.call("session/estimateContext", {"sessionId": "s"})
    assert error_of(answer) is ErrorType.AGENT_ERROR
    harness.adapter.build_error = AgentUnavailable("cannot import hermes-agent")
    answer = harness.call("session/estimateContext", {"sessionId": "s2"})
    assert error_of(answer) is ErrorType.AGENT_UNAVAILABLE


def test_session_history_answers_from_memory_without_private_keys(harness):
    ack = harness.start("first")
    harness.wait_completed(ack["runId"])
    harness.wait_idle(ack["runId"])
    harness.service.sessions[ack["sessionId"]].history[0]["_db_persisted"] = True
    answer = harness.call("session/history", {"sessionId": ack["sessionId"]})
    assert answer["result"] == {
        "sessionId": ack["sessionId"],
        "messages": [
            {"role": "user", "content": "first"},
            {"role": "assistant", "content": "Hello"},
        ],
        "messageCount": 2,
        "firstIndex": 0,
    }
    harness.call("session/destroy", {"sessionId": ack["sessionId"]})


def test_session_history_pages_back_from_the_end_by_limit_and_before(harness):
    stored = [{"role": "user", "content": str(i)} for i in range(7)]
    harness.adapter.stored_history = lambda sid: stored

    def page(**bounds):
        result = harness.call("session/history", {"sessionId": "s"} | bounds)["result"]
        said = [m["content"] for m in result["messages"]]
        return said, result["firstIndex"], result["messageCount"]

    assert page(limit=3) == (["4", "5", "6"], 4, 7)
    assert page(limit=3, before=4) == (["1", "2", "3"], 1, 7)
    assert page(limit=3, before=1) == (["0"], 0, 7)
    assert page(limit=3, before=0) == ([], 0, 7)
    assert page(before=2) == (["0", "1"], 0, 7)
    assert page(limit=2, before=99) == (["5", "6"], 5, 7)  # past the end: the end


@pytest.mark.parametrize(
    ("bounds", "field"),
    [
        ({"limit": 0}, "params.limit"),
        ({"limit": 1001}, "params.limit"),
        ({"before": -1}, "params.before"),
    ],
)
def test_session_history_refuses_a_page_out_of_range(harness, bounds, field):
    answer = harness.call("session/history", {"sessionId": "s"} | bounds)
    assert error_of(answer) is ErrorType.INVALID_PARAMS
    assert answer["error"]["data"]["field"] == field


def test_session_history_of_a_session_not_held_reads_the_store_without_loading_it(harness):
    stored = [{"role": "user", "content": "before"}, {"role": "assistant", "content": "ok"}]
    harness.adapter.stored_history = lambda sid: stored if sid == "sess_stored" else None
    answer = harness.call("session/history", {"sessionId": "sess_stored"})
    assert answer["result"]["messages"] == stored
    assert harness.service.sessions == {}
    unknown = harness.call("session/history", {"sessionId": "sess_nobody"})
    assert error_of(unknown) is ErrorType.UNKNOWN_SESSION
    assert unknown["error"]["data"]["sessionId"] == "sess_nobody"


def test_command_list_answers_the_adapters_commands_off_the_reader_thread(harness):
    listed = [{"name": "/alpha", "description": "A.", "kind": "skill"}]
    harness.adapter.list_commands = lambda: listed
    assert harness.call("command/list", {})["result"] == {"commands": listed}

    def missing():
        raise AgentUnavailable("cannot import hermes-agent")

    harness.adapter.list_commands = missing
    assert error_of(harness.call("command/list", {})) is ErrorType.AGENT_UNAVAILABLE


def test_slow_queries_run_a_few_at_a_time_and_a_cancel_skips_one_not_started(harness):
    release, entered = threading.Event(), threading.Semaphore(0)
    scanned: list[str] = []

    def slow_scan():
        scanned.append(threading.current_thread().name)
        entered.release()
        assert release.wait(WAIT)
        return []

    harness.adapter.list_commands = slow_scan
    size = harness.service.jobs.size
    service, peer = harness.service, harness.peer
    for msg_id in range(1, size + 3):  # the queue's threads busy, and two more waiting
        service.on_request(peer, Request(msg_id, "command/list", {}))
    for _ in range(size):
        assert entered.acquire(timeout=WAIT)
    assert service.jobs.waiting == 2
    assert scanned == ["query:commands"] * size
    service.on_notification(peer, Notification("$/cancelRequest", {"id": size + 1}), b"")
    service.on_notification(peer, Notification("$/cancelRequest", {"id": 1}), b"")  # started
    service.on_notification(peer, Notification("$/cancelRequest", {"nope": 1}), b"")  # logged
    assert (
        error_of(peer.wait_for(lambda log: next((m for m in log if m.get("id") == size + 1), None)))
        is ErrorType.REQUEST_CANCELLED
    )
    release.set()
    answers = [
        peer.wait_for(lambda log, i=i: next((m for m in log if m.get("id") == i), None))
        for i in range(1, size + 3)
    ]
    assert [a.get("result") for a in answers] == [{"commands": []}] * size + [
        None,
        {"commands": []},
    ]
    assert len(scanned) == size + 1  # the cancelled one never scanned
    assert len([m for m in peer.snapshot() if "id" in m]) == size + 2  # one answer each


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


def test_an_agent_without_a_process_registry_has_no_background_processes(harness):
    assert harness.call("process/list", {"sessionId": "s"})["result"] == {"processes": []}
    kill = harness.call("process/kill", {"sessionId": "s", "processId": "proc_1"})
    assert kill["result"] == {"killed": False}


def test_mcp_status_answers_the_adapters_servers_off_the_reader_thread(harness):
    assert harness.call("mcp/status", {})["result"] == {"servers": []}
    echo = McpServerInfo("echo", "stdio", "failed", 0, "spawn failed")
    harness.adapter.mcp_status = lambda: [echo]
    assert harness.call("mcp/status", {})["result"] == {
        "servers": [
            {
                "name": "echo",
                "transport": "stdio",
                "status": "failed",
                "tools": 0,
                "error": "spawn failed",
            }
        ]
    }


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


def test_session_history_without_hermes_is_agent_unavailable(harness):
    def missing(session_id):
        raise AgentUnavailable("cannot import hermes-agent")

    harness.adapter.stored_history = missing
    answer = harness.call("session/history", {"sessionId": "sess_x"})
    assert error_of(answer) is ErrorType.AGENT_UNAVAILABLE


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


def test_queries_that_may_wait_outside_the_worker_are_queued_slow_and_store_reads_quick(
    harness, monkeypatch: pytest.MonkeyPatch
):
    kinds: dict[str, bool] = {}
    submit = harness.service.jobs.submit

    def spy(key, job, on_cancel=None, label="", *, slow=False):
        kinds[label] = slow
        submit(key, job, on_cancel, label, slow=slow)

    monkeypatch.setattr(harness.service.jobs, "submit", spy)
    slow = {
        "model/list": {},
        "mcp/status": {},
        "tool/list": {},
        "session/estimateContext": {"sessionId": "sess_q"},
        "checkpoint/list": {"directory": "/"},
    }
    quick = {
        "session/history": {"sessionId": "sess_q"},
        "session/listStored": {},
        "session/rename": {"sessionId": "sess_q", "title": "t"},
        "command/list": {},
        "process/list": {"sessionId": "sess_q"},
    }
    for method, params in {**slow, **quick}.items():
        harness.call(method, params)  # answered: a result or an error, either way once
    labels = {"model/list": "models", "mcp/status": "mcp-status", "tool/list": "tools"}
    labels |= {"session/estimateContext": "estimate", "checkpoint/list": "checkpoints"}
    labels |= {"session/history": "history", "session/listStored": "stored-sessions"}
    labels |= {"session/rename": "rename", "command/list": "commands"}
    labels |= {"process/list": "processes"}
    assert kinds == {labels[m]: m in slow for m in labels}


def test_disabled_toolsets_build_the_sessions_agent_without_them_and_a_change_rebuilds_it(
    harness,
):
    built: list[tuple[str, ...] | None] = []
    build = harness.adapter.build

    def recording(session, sink):
        built.append(session.disabled_toolsets)
        return build(session, sink)

    harness.adapter.build = recording
    released: list[object] = []
    harness.adapter.release = released.append

    def turn(**params):
        run = harness.start(sessionId="s", **params)
        harness.wait_completed(run["runId"])
        harness.wait_idle(run["runId"])
        return harness.call("session/status", {"sessionId": "s"})["result"]["disabledToolsets"]

    assert turn(disabledToolsets=["terminal", "file", "terminal"]) == ["file", "terminal"]
    assert turn() == ["file", "terminal"]  # kept: the same agent
    assert turn(disabledToolsets=["file", "terminal"]) == ["file", "terminal"]
    assert turn(disabledToolsets=["web"]) == ["web"]  # another set: a new agent
    assert turn(disabledToolsets=[]) is None  # none again: a new agent
    assert built == [("file", "terminal"), ("web",), None]
    assert released == harness.adapter.agents[:2]  # the replaced ones let go of
    assert len(harness.service.sessions["s"].history) == 10  # the conversation went on


def test_an_unknown_disabled_toolset_is_invalid_params_and_starts_nothing(harness):
    harness.adapter.unknown_toolsets = lambda names: [n for n in names if n == "nope"]
    answer = harness.call(
        "run/start", {"message": "hi", "sessionId": "s", "disabledToolsets": ["file", "nope"]}
    )
    assert error_of(answer) is ErrorType.INVALID_PARAMS
    assert answer["error"]["data"]["field"] == "params.disabledToolsets"
    assert "s" not in harness.service.sessions
