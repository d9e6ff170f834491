"""session/undo through the real binary and real hermes-agent: the last exchanges are taken
back from the session's stored transcript, the model never sees them again, and they stay
taken back after the worker is gone."""

from __future__ import annotations

import os
import signal
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Gate, Reply, ScriptedLLM
from hermes_stdio.wire import ErrorType, RpcError

from .conftest import worker_pids

SID = "sess-undo"


def turn(host: HostClient, llm: ScriptedLLM, message: str, answer: str) -> None:
    llm.enqueue(Reply.text([answer]))
    run = host.request("run/start", {"sessionId": SID, "message": message})
    done = host.wait_run_completed(run["runId"])
    assert done.params["status"] == "complete", done.params


def said(messages: list[dict[str, Any]]) -> list[tuple[str, Any]]:
    return [(m["role"], m.get("content")) for m in messages if m["role"] != "system"]


def test_undo_takes_back_the_last_exchange_and_the_model_never_sees_it_again(
    host: HostClient, llm: ScriptedLLM, home: Path
) -> None:
    turn(host, llm, "What is a kiwi?", "A fruit.")
    turn(host, llm, "Name a colour.", "Green.")

    undone = host.request("session/undo", {"sessionId": SID})
    assert undone == {
        "sessionId": SID,
        "turnsUndone": 1,
        "messagesRemoved": 2,
        "message": "Name a colour.",
    }
    history = host.request("session/history", {"sessionId": SID})
    assert said(history["messages"]) == [("user", "What is a kiwi?"), ("assistant", "A fruit.")]
    status = host.request("session/status", {"sessionId": SID})
    assert (status["loaded"], status["messageCount"]) == (True, 2)

    turn(host, llm, "Name a shape.", "Round.")
    assert said(llm.requests[-1]["messages"]) == [
        ("user", "What is a kiwi?"),
        ("assistant", "A fruit."),
        ("user", "Name a shape."),
    ]
    # Kept on disk for audit, marked inactive, as hermes' /undo leaves them.
    with sqlite3.connect(home / "state.db") as db:
        rows = db.execute(
            "SELECT content, active FROM messages WHERE session_id = ? ORDER BY id", (SID,)
        ).fetchall()
    assert rows == [
        ("What is a kiwi?", 1),
        ("A fruit.", 1),
        ("Name a colour.", 0),
        ("Green.", 0),
        ("Name a shape.", 1),
        ("Round.", 1),
    ]


def test_undone_exchanges_stay_undone_after_the_worker_dies(
    host: HostClient, llm: ScriptedLLM
) -> None:
    for i in range(3):
        turn(host, llm, f"question {i}", f"answer {i}")
    undone = host.request("session/undo", {"sessionId": SID, "turns": 2})
    assert (undone["turnsUndone"], undone["messagesRemoved"], undone["message"]) == (
        2,
        4,
        "question 1",
    )
    os.kill(worker_pids(host)[("default", None)], signal.SIGKILL)
    host.wait_for(lambda n: n.method == "worker/exited", timeout=30)

    stored = host.request("session/history", {"sessionId": SID})
    assert said(stored["messages"]) == [("user", "question 0"), ("assistant", "answer 0")]
    turn(host, llm, "question 3", "answer 3")  # resumed by a new worker
    assert said(llm.requests[-1]["messages"]) == [
        ("user", "question 0"),
        ("assistant", "answer 0"),
        ("user", "question 3"),
    ]


def test_undo_asked_for_more_turns_than_there_are_takes_back_all_and_then_nothing(
    host: HostClient, llm: ScriptedLLM
) -> None:
    turn(host, llm, "only question", "only answer")
    assert host.request("session/undo", {"sessionId": SID, "turns": 5})["turnsUndone"] == 1
    assert host.request("session/undo", {"sessionId": SID}) == {
        "sessionId": SID,
        "turnsUndone": 0,
        "messagesRemoved": 0,
        "message": None,
    }
    assert host.request("session/history", {"sessionId": SID})["messages"] == []


def test_undo_of_a_running_session_is_session_busy_and_changes_nothing(
    host: HostClient, llm: ScriptedLLM
) -> None:
    turn(host, llm, "first", "one")
    gate = Gate()
    llm.enqueue(Reply.text(["two"], gate=gate))
    run = host.request("run/start", {"sessionId": SID, "message": "second"})
    try:
        assert gate.arrived.wait(60)
        with pytest.raises(RpcError) as err:
            host.request("session/undo", {"sessionId": SID})
        assert err.value.kind is ErrorType.SESSION_BUSY
        assert err.value.data == {"sessionId": SID, "runId": run["runId"]}
    finally:
        gate.release.set()
    host.wait_run_completed(run["runId"])
    history = host.request("session/history", {"sessionId": SID})
    assert [m.get("content") for m in history["messages"]] == ["first", "one", "second", "two"]


def test_undo_refuses_bad_turns_and_unknown_sessions_and_loads_nothing(host: HostClient) -> None:
    with pytest.raises(RpcError) as err:
        host.request("session/undo", {"sessionId": SID, "turns": 0})
    assert err.value.kind is ErrorType.INVALID_PARAMS
    assert err.value.data["field"] == "params.turns"
    with pytest.raises(RpcError) as err:
        host.request("session/undo", {"sessionId": "sess_nobody"})
    assert err.value.kind is ErrorType.UNKNOWN_SESSION
    assert err.value.data["sessionId"] == "sess_nobody"
    assert host.request("session/list", {})["sessions"] == []
