"""Runs through the real binary: busy sessions, history and settings across turns, storage."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM
from hermes_stdio.wire import ErrorType, RpcError, encode_frame, encode_request

from .conftest import run_in_a_long_tool, run_to_end


def test_a_second_run_on_a_busy_session_is_refused_with_session_busy(
    host: HostClient, llm: ScriptedLLM
) -> None:
    llm.enqueue(Reply.text(["a", "b", "c", "d"], delay=0.3))
    run = host.request("run/start", {"message": "slow"})
    with pytest.raises(RpcError) as err:
        host.request("run/start", {"message": "again", "sessionId": run["sessionId"]})
    assert err.value.kind is ErrorType.SESSION_BUSY
    assert err.value.data["runId"] == run["runId"]
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"


def test_a_session_being_destroyed_stays_busy_until_its_run_has_ended(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    run, _pids = run_in_a_long_tool(host, llm, tmp_path)
    sid = run["sessionId"]
    host.write_raw(  # in one write: the run/start arrives while the destroy interrupts
        encode_frame(encode_request("d", "session/destroy", {"sessionId": sid}))
        + encode_frame(encode_request("s", "run/start", {"message": "next", "sessionId": sid}))
    )
    busy = host.response("s", 60)
    assert busy.error is not None and busy.error["code"] == ErrorType.SESSION_BUSY.code
    assert busy.error["data"]["runId"] == run["runId"]
    assert host.response("d", 60).result == {"destroyed": True}
    assert host.wait_run_completed(run["runId"]).params["status"] == "interrupted"
    llm.enqueue(Reply.text(["again"]))
    run_to_end(host, {"message": "next", "sessionId": sid})  # resumed afresh
    history = host.request("session/history", {"sessionId": sid})["messages"]
    assert [m["content"] for m in history if m["role"] == "user"] == ["wait", "next"]
    assert host.request("session/status", {"sessionId": sid})["loaded"] is True


def test_interrupting_a_streaming_run_ends_it_as_interrupted(
    host: HostClient, llm: ScriptedLLM
) -> None:
    llm.enqueue(Reply.text([f"w{i} " for i in range(50)], delay=0.2))
    run = host.request("run/start", {"message": "long"})
    host.wait_for(lambda n: n.method == "run/delta" and n.params["runId"] == run["runId"])
    assert host.request("run/interrupt", {"runId": run["runId"]}) == {"interrupted": True}
    done = host.wait_run_completed(run["runId"], timeout=20)
    assert done.params["status"] == "interrupted"
    assert host.request("run/interrupt", {"runId": run["runId"]}) == {"interrupted": False}
    # The session is free again and a fresh turn is not hit by the old interrupt.
    llm.clear()
    llm.enqueue(Reply.text(["fresh"]))
    _, notes = run_to_end(host, {"message": "again", "sessionId": run["sessionId"]})
    assert notes[-1].params["status"] == "complete"
    assert notes[-1].params["result"]["finalResponse"] == "fresh"


def test_a_session_carries_its_history_into_the_next_turn(
    host: HostClient, llm: ScriptedLLM
) -> None:
    llm.enqueue(Reply.text(["first answer"]))
    run, _ = run_to_end(host, {"message": "first question"})
    llm.enqueue(Reply.text(["second answer"]))
    before = len(llm.requests)
    run_to_end(host, {"message": "second question", "sessionId": run["sessionId"]})
    sent = [r for r in llm.requests[before:] if "first question" in str(r.get("messages"))]
    assert sent, "the second turn did not send the first turn's history"
    contents = [m.get("content") for m in sent[0]["messages"]]
    assert "first answer" in str(contents) and "second question" in str(contents)


def test_the_next_turn_started_as_soon_as_run_completed_arrives_is_never_session_busy(
    host: HostClient, llm: ScriptedLLM
) -> None:
    sid = None
    for turn in range(20):
        llm.enqueue(Reply.text([f"answer {turn}"]))
        run, notes = run_to_end(host, {"message": f"turn {turn}", "sessionId": sid})
        sid = run["sessionId"]
        assert notes[-1].params["status"] == "complete"
    assert notes[-1].params["result"]["messageCount"] == 40


def test_instructions_and_conversation_history_reach_the_model(
    host: HostClient, llm: ScriptedLLM
) -> None:
    llm.enqueue(Reply.text(["ok"]))
    history = [
        {"role": "user", "content": "remember the word pelican"},
        {"role": "assistant", "content": "noted"},
    ]
    before = len(llm.requests)
    run_to_end(
        host,
        {
            "message": "what word?",
            "instructions": "Always answer in French.",
            "conversationHistory": history,
        },
    )
    body = next(r for r in llm.requests[before:] if "what word?" in str(r.get("messages")))
    text = str(body["messages"])
    assert "Always answer in French." in text and "pelican" in text


def test_a_reasoning_effort_reaches_the_model_and_stays_for_the_sessions_later_turns(
    host: HostClient, llm: ScriptedLLM
) -> None:
    def sent(message: str) -> dict[str, Any]:  # the messages are words no prompt holds
        return next(r for r in llm.requests if message in str(r.get("messages")))

    llm.enqueue(*[Reply.text(["ok"])] * 5)
    run, _ = run_to_end(host, {"message": "turn-one"})
    sid = run["sessionId"]
    assert "reasoning_effort" not in sent("turn-one")  # the profile sets none
    assert host.request("session/status", {"sessionId": sid})["reasoningEffort"] is None
    run_to_end(host, {"message": "turn-two", "sessionId": sid, "reasoningEffort": "high"})
    run_to_end(host, {"message": "turn-three", "sessionId": sid})
    assert sent("turn-two")["reasoning_effort"] == sent("turn-three")["reasoning_effort"] == "high"
    assert host.request("session/status", {"sessionId": sid})["reasoningEffort"] == "high"
    host.request("session/switchModel", {"sessionId": sid, "model": "other-model"})
    run_to_end(host, {"message": "turn-switched", "sessionId": sid})
    assert sent("turn-switched")["model"] == "other-model"
    assert sent("turn-switched")["reasoning_effort"] == "high"  # a new model keeps it
    run_to_end(host, {"message": "turn-four", "sessionId": sid, "reasoningEffort": "none"})
    assert sent("turn-four")["reasoning_effort"] == "none"  # hermes' way to turn it off
    with pytest.raises(RpcError) as err:
        host.request("run/start", {"message": "x", "sessionId": sid, "reasoningEffort": "huge"})
    assert err.value.kind is ErrorType.INVALID_PARAMS
    assert err.value.data["field"] == "params.reasoningEffort"


def test_session_status_list_and_destroy_describe_loaded_sessions(
    host: HostClient, llm: ScriptedLLM
) -> None:
    llm.enqueue(Reply.text(["ok"]))
    run, _ = run_to_end(host, {"message": "hi"})
    status = host.request("session/status", {"sessionId": run["sessionId"]})
    assert status["loaded"] is True and status["running"] is False
    assert status["model"] == "test-model" and status["messageCount"] == 2
    listed = host.request("session/list", {})
    assert [s["sessionId"] for s in listed["sessions"]] == [run["sessionId"]]
    assert host.request("session/destroy", {"sessionId": run["sessionId"]}) == {"destroyed": True}
    assert host.request("session/status", {"sessionId": run["sessionId"]})["loaded"] is False
    assert host.request("session/destroy", {"sessionId": run["sessionId"]}) == {"destroyed": False}


def test_the_session_and_its_messages_are_stored_in_the_profiles_sqlite_db(
    host: HostClient, llm: ScriptedLLM, home: Path
) -> None:
    llm.enqueue(Reply.text(["stored answer"]))
    run, _ = run_to_end(host, {"message": "store this"})
    with sqlite3.connect(home / "state.db") as db:
        rows = db.execute(
            "SELECT role, content FROM messages WHERE session_id = ? ORDER BY id",
            (run["sessionId"],),
        ).fetchall()
    assert ("user", "store this") in rows
    assert ("assistant", "stored answer") in rows


def test_the_source_of_a_new_session_is_recorded_in_the_db(
    host: HostClient, llm: ScriptedLLM, home: Path
) -> None:
    llm.enqueue(Reply.text(["ok"]))
    run, _ = run_to_end(host, {"message": "hi", "source": "vscode"})
    with sqlite3.connect(home / "state.db") as db:
        (source,) = db.execute(
            "SELECT source FROM sessions WHERE id = ?", (run["sessionId"],)
        ).fetchone()
    assert source == "vscode"
