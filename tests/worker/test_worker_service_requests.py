"""WorkerService requests: busy sessions, run/result and the run table, bad requests."""

from __future__ import annotations

import base64
import gc
import weakref

import pytest
from worker_service_helpers import WAIT, error_of

from hermes_stdio.wire import ErrorType, Request

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
