"""The transcript edits (session/undo, session/fork, session/delete) against a fake adapter:
what happens to the held session, and the race with a run accepted before the edit begins."""

from __future__ import annotations

from typing import Any

from hermes_stdio.wire import ErrorType, Request
from hermes_stdio.worker.catalog import Deleted


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
