"""ClarifyBridge: a question waits on the tool's thread until the host answers, the
time runs out or the run is interrupted; each is closed by one clarify/resolved."""

from __future__ import annotations

import json
import threading
from typing import Any

from hermes_stdio.worker.clarify import ClarifyBridge
from hermes_stdio.worker.state import Run, Session

WAIT = 10.0


class Wire:
    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.notes: list[dict[str, Any]] = []

    def send(self, body: bytes) -> bool:
        with self.cond:
            self.notes.append(json.loads(body))
            self.cond.notify_all()
        return True

    def wait_method(self, method: str) -> dict[str, Any]:
        with self.cond:
            found = self.cond.wait_for(
                lambda: next((n for n in self.notes if n["method"] == method), None), WAIT
            )
        assert found is not None, self.notes
        return found["params"]


def session_with_run(wire: Wire, session_id: str = "sess_1") -> Session:
    session = Session(session_id, "default")
    session.run = Run("run_1", session_id, wire.send)
    return session


def ask_in_thread(
    bridge: ClarifyBridge, session: Session, *args: Any
) -> tuple[dict[str, str], threading.Thread]:
    out: dict[str, str] = {}

    def ask() -> None:
        out["answer"] = bridge.callback(session)(*args)

    thread = threading.Thread(target=ask, daemon=True)
    thread.start()
    return out, thread


def test_the_hosts_answer_reaches_the_waiting_tool_and_closes_the_question() -> None:
    wire, bridge = Wire(), ClarifyBridge(lambda: 60)
    session = session_with_run(wire)
    out, thread = ask_in_thread(bridge, session, "Which one?", ["a", "b"])
    asked = wire.wait_method("clarify/requested")
    assert asked["question"] == "Which one?" and asked["choices"] == ["a", "b"]
    assert asked["timeoutMs"] == 60_000 and asked["seq"] == 1
    assert not bridge.answer("sess_other", asked["clarifyId"], "b")  # another session's
    assert not bridge.answer("sess_1", "clar_nope", "b")
    assert bridge.answer("sess_1", asked["clarifyId"], "b")
    thread.join(WAIT)
    assert out["answer"] == "b"
    resolved = wire.wait_method("clarify/resolved")
    assert resolved == {
        "runId": "run_1",
        "sessionId": "sess_1",
        "seq": 2,
        "clarifyId": asked["clarifyId"],
        "outcome": "answered",
        "answer": "b",
    }
    assert not bridge.answer("sess_1", asked["clarifyId"], "again")


def test_an_unanswered_question_times_out_and_the_tool_is_told() -> None:
    wire, bridge = Wire(), ClarifyBridge(lambda: 0.3)
    out, thread = ask_in_thread(bridge, session_with_run(wire), "Anyone?")
    thread.join(WAIT)
    assert wire.wait_method("clarify/requested")["choices"] is None
    assert wire.wait_method("clarify/resolved")["outcome"] == "timed_out"
    assert "did not answer" in out["answer"]


def test_interrupting_the_run_cancels_a_waiting_question() -> None:
    wire, bridge = Wire(), ClarifyBridge(lambda: 60)
    session = session_with_run(wire)
    out, thread = ask_in_thread(bridge, session, "Still there?")
    wire.wait_method("clarify/requested")
    assert session.run is not None
    session.run.request_interrupt(None)
    thread.join(WAIT)
    resolved = wire.wait_method("clarify/resolved")
    assert resolved["outcome"] == "cancelled" and resolved["answer"] is None
    assert "cancelled" in out["answer"]


def test_a_question_outside_a_run_is_not_asked() -> None:
    wire, bridge = Wire(), ClarifyBridge(lambda: 60)
    answer = bridge.callback(Session("sess_1", "default"))("Hello?")
    assert answer.startswith("[") and wire.notes == []
