"""The transcript edits (session/undo, session/fork, session/delete) against a fake adapter:
what happens to the held session, and the race with a run accepted before the edit begins;
and session/compress, a run that only compresses the session's history."""

from __future__ import annotations

import threading
from typing import Any

from hermes_stdio.wire import ErrorType, Request
from hermes_stdio.worker.catalog import Deleted
from hermes_stdio.worker.contract import TurnOutcome


def error_of(answer: dict[str, Any]) -> ErrorType:
    kind = next(e for e in ErrorType if e.code == answer["error"]["code"])
    assert answer["error"]["data"]["type"] == kind.type
    return kind


def deletes(harness) -> list[str]:
    asked: list[str] = []

    def delete(session_id: str) -> Deleted:
        asked.append(session_id)
        return Deleted((session_id, f"{session_id}-2"), 4)

    harness.adapter.delete_session = delete  # type: ignore[method-assign]
    return asked


def test_a_delete_closes_the_held_sessions_agent_and_forgets_it(harness) -> None:
    asked = deletes(harness)
    run = harness.start(sessionId="s1")
    harness.wait_completed(run["runId"])
    harness.wait_idle(run["runId"])
    [agent] = harness.adapter.agents

    answer = harness.call("session/delete", {"sessionId": "s1"})
    assert answer["result"] == {
        "sessionId": "s1",
        "removedSessionIds": ["s1", "s1-2"],
        "messagesRemoved": 4,
    }
    assert asked == ["s1"]
    assert agent in harness.adapter.closed
    assert "s1" not in harness.service.sessions


def test_a_run_accepted_before_an_edit_begins_makes_the_edit_session_busy(harness) -> None:
    asked = deletes(harness)
    first = harness.start(sessionId="s1")
    harness.wait_completed(first["runId"])
    harness.wait_idle(first["runId"])
    session = harness.service.sessions["s1"]

    with session.build_lock:  # the delete's work cannot begin yet
        harness.service.on_request(
            harness.peer,  # type: ignore[arg-type]
            Request(900, "session/delete", {"sessionId": "s1"}),
        )
        entered = harness.block()
        run = harness.start(sessionId="s1")  # accepted: its turn will hold the session
    answer = harness.peer.wait_for(lambda log: next((m for m in log if m.get("id") == 900), None))
    assert error_of(answer) is ErrorType.SESSION_BUSY
    assert answer["error"]["data"] == {
        "type": "session_busy",
        "sessionId": "s1",
        "runId": run["runId"],
    }
    assert entered.wait(10)
    harness.adapter.wake.set()
    assert harness.wait_completed(run["runId"])["status"] == "complete"
    assert asked == []  # nothing was deleted under the turn
    assert "s1" in harness.service.sessions


def test_a_delete_of_a_session_nobody_stored_is_unknown_and_loads_nothing(harness) -> None:
    answer = harness.call("session/delete", {"sessionId": "nobody"})
    assert error_of(answer) is ErrorType.UNKNOWN_SESSION
    assert "nobody" not in harness.service.sessions


SUMMARY = [{"role": "user", "content": "[summary] the user likes kiwis"}]


def compresses(harness, result: list[dict[str, Any]] | None = None) -> list[Any]:
    """Script the adapter's compression: it records (history, focus) and returns ``result``."""
    asked: list[Any] = []

    def compress(agent: Any, session: Any, focus: str | None, stop: Any) -> TurnOutcome:
        asked.append((list(session.history), focus))
        return TurnOutcome(None, list(SUMMARY if result is None else result), api_calls=1)

    harness.adapter.compress = compress  # type: ignore[method-assign]
    return asked


def test_a_compress_is_a_run_of_its_own_that_replaces_the_sessions_history(harness) -> None:
    asked = compresses(harness)
    first = harness.start("kiwi", sessionId="s1")
    harness.wait_completed(first["runId"])
    harness.wait_idle(first["runId"])
    before = list(harness.service.sessions["s1"].history)

    answer = harness.call("session/compress", {"sessionId": "s1", "focus": "fruit"})
    run_id = answer["result"]["runId"]
    assert answer["result"] == {"runId": run_id, "sessionId": "s1"}
    done = harness.wait_completed(run_id)
    assert done["status"] == "complete"
    assert done["result"] == {
        "finalResponse": None,
        "messageCount": 1,
        "apiCalls": 1,
        "usage": None,
    }
    assert asked == [(before, "fruit")]
    methods = [m["method"] for m in harness.run_messages(run_id)]
    assert methods == ["run/started", "run/completed"]
    harness.wait_idle(run_id)
    assert harness.service.sessions["s1"].history == SUMMARY
    assert harness.service.sessions["s1"].run is None


def test_a_compress_loads_a_stored_session_and_refuses_one_nobody_knows(harness) -> None:
    asked = compresses(harness)
    stored = [{"role": "user", "content": "old"}, {"role": "assistant", "content": "ok"}]
    harness.adapter.stored_history = lambda sid: stored if sid == "kept" else None  # type: ignore[method-assign]

    run = harness.call("session/compress", {"sessionId": "kept"})["result"]
    assert harness.wait_completed(run["runId"])["status"] == "complete"
    assert asked == [(stored, None)]

    unknown = harness.call("session/compress", {"sessionId": "nobody"})
    assert error_of(unknown) is ErrorType.UNKNOWN_SESSION
    assert unknown["error"]["data"]["sessionId"] == "nobody"
    assert "nobody" not in harness.service.sessions


def test_a_compress_of_a_running_session_is_session_busy(harness) -> None:
    entered = harness.block()
    run = harness.start(sessionId="s1")
    assert entered.wait(10)
    answer = harness.call("session/compress", {"sessionId": "s1"})
    assert error_of(answer) is ErrorType.SESSION_BUSY
    assert answer["error"]["data"]["runId"] == run["runId"]


def test_a_compress_focus_over_the_limit_is_invalid_params(harness) -> None:
    answer = harness.call("session/compress", {"sessionId": "s1", "focus": "x" * 1001})
    assert error_of(answer) is ErrorType.INVALID_PARAMS
    assert answer["error"]["data"]["field"] == "params.focus"
    assert "s1" not in harness.service.sessions


def test_an_interrupted_compress_is_interrupted_unless_the_history_was_compressed(
    harness,
) -> None:
    first = harness.start(sessionId="s1")
    harness.wait_completed(first["runId"])
    harness.wait_idle(first["runId"])
    kept = list(harness.service.sessions["s1"].history)
    entered = threading.Event()

    for result, status in ((kept, "interrupted"), (SUMMARY, "complete")):

        def compress(agent: Any, session: Any, focus: Any, stop: Any, out=result) -> TurnOutcome:
            entered.set()
            harness.adapter.wake.wait(10)  # until the interrupt reaches the agent
            return TurnOutcome(None, list(out))

        harness.adapter.compress = compress  # type: ignore[method-assign]
        entered.clear()
        harness.adapter.wake.clear()
        run = harness.call("session/compress", {"sessionId": "s1"})["result"]
        assert entered.wait(10)
        assert "result" in harness.call("run/interrupt", {"runId": run["runId"]})
        assert harness.wait_completed(run["runId"])["status"] == status
        harness.wait_idle(run["runId"])
