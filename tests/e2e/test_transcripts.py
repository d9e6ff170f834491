"""session/undo, session/fork and session/delete through the real binary and real hermes-agent.

undo: the last exchanges are taken back from the session's stored transcript, the model never
sees them again, and they stay taken back after the worker is gone. fork: a branch holds a copy
of the conversation, and the two go on independently, also after the worker is gone. delete:
the whole conversation leaves the database, the listing and its worker; branches stay."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Gate, Reply, ScriptedLLM
from hermes_stdio.wire import ErrorType, RpcError

from .conftest import (
    StartHost,
    compress_under_new_ids,
    run_in_a_long_tool,
    tool_result,
    wait_gone,
    worker_pids,
)

SID = "sess-undo"


def turn(
    host: HostClient, llm: ScriptedLLM, message: str, answer: str, sid: str = SID, **params: Any
) -> None:
    llm.enqueue(Reply.text([answer]))
    run = host.request("run/start", {"sessionId": sid, "message": message, **params})
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


@pytest.mark.parametrize("method", ["session/undo", "session/fork", "session/delete"])
def test_an_edit_of_a_running_session_is_session_busy_and_changes_nothing(
    host: HostClient, llm: ScriptedLLM, method: str
) -> None:
    turn(host, llm, "first", "one")
    gate = Gate()
    llm.enqueue(Reply.text(["two"], gate=gate))
    run = host.request("run/start", {"sessionId": SID, "message": "second"})
    try:
        assert gate.arrived.wait(60)
        with pytest.raises(RpcError) as err:
            host.request(method, {"sessionId": SID})
        assert err.value.kind is ErrorType.SESSION_BUSY
        assert err.value.data == {"sessionId": SID, "runId": run["runId"]}
    finally:
        gate.release.set()
    host.wait_run_completed(run["runId"])
    history = host.request("session/history", {"sessionId": SID})
    assert [m.get("content") for m in history["messages"]] == ["first", "one", "second", "two"]
    assert len(host.request("session/listStored")["sessions"]) == 1  # no branch either


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


def test_a_fork_copies_the_conversation_and_both_go_on_independently_after_a_restart(
    host: HostClient, llm: ScriptedLLM
) -> None:
    llm.enqueue(Reply.tool_call("terminal", {"command": "echo hi"}), Reply.text(["It said hi."]))
    run = host.request("run/start", {"sessionId": SID, "message": "run echo hi"})
    host.wait_run_completed(run["runId"])
    host.request("session/destroy", {"sessionId": SID})  # its history is read from the database
    parent = host.request("session/history", {"sessionId": SID})["messages"]

    forked = host.request("session/fork", {"sessionId": SID})
    branch = forked["sessionId"]
    assert branch.startswith("sess_") and branch != SID
    assert forked == {
        "sessionId": branch,
        "parentSessionId": SID,
        "title": "branch",  # the session has no title (test homes switch titling off)
        "messageCount": 4,
    }
    copied = host.request("session/history", {"sessionId": branch})["messages"]
    assert copied == parent  # tool calls, timestamps and all
    assert parent[1]["tool_calls"]
    listed = {s["sessionId"] for s in host.request("session/listStored")["sessions"]}
    assert listed == {SID, branch}

    turn(host, llm, "branch question", "branch answer", sid=branch)
    assert said(llm.requests[-1]["messages"])[-1] == ("user", "branch question")
    assert len(said(llm.requests[-1]["messages"])) == 5
    os.kill(worker_pids(host)[("default", None)], signal.SIGKILL)
    host.wait_for(lambda n: n.method == "worker/exited", timeout=30)

    turn(host, llm, "parent question", "parent answer")  # resumed: not into the branch
    assert said(llm.requests[-1]["messages"]) == [*said(parent), ("user", "parent question")]
    second = host.request("session/fork", {"sessionId": SID, "newSessionId": "sess-mine"})
    assert (second["sessionId"], second["title"], second["messageCount"]) == (
        "sess-mine",
        "branch #2",
        6,
    )


def test_a_fork_of_another_profiles_session_is_resumed_in_that_profile(
    host: HostClient, llm: ScriptedLLM, home: Path
) -> None:
    turn(host, llm, "work question", "work answer", profile="work")
    forked = host.request("session/fork", {"sessionId": SID, "title": "Work branch"})
    assert forked["title"] == "Work branch"
    turn(host, llm, "more", "ok", sid=forked["sessionId"])  # no profile: routed to work's worker
    status = host.request("session/status", {"sessionId": forked["sessionId"]})
    assert status["profile"] == "work"
    with sqlite3.connect(home / "profiles" / "work" / "state.db") as db:
        (count,) = db.execute(
            "SELECT COUNT(*) FROM messages WHERE session_id = ?", (forked["sessionId"],)
        ).fetchone()
    assert count == 4


def test_a_fork_refuses_a_taken_id_a_taken_title_or_an_unknown_session(
    host: HostClient, llm: ScriptedLLM
) -> None:
    turn(host, llm, "first", "one")
    host.request("session/rename", {"sessionId": SID, "title": "Kiwi plan"})
    for taken in (SID, "sess-later", " "):  # its own id, another's, a blank one
        if taken == "sess-later":
            turn(host, llm, "later", "two", sid=taken)
        with pytest.raises(RpcError) as err:
            host.request("session/fork", {"sessionId": SID, "newSessionId": taken})
        assert err.value.kind is ErrorType.INVALID_PARAMS
        assert err.value.data["field"] == "params.newSessionId"
    with pytest.raises(RpcError) as err:
        host.request("session/fork", {"sessionId": SID, "title": "Kiwi plan"})
    assert err.value.kind is ErrorType.INVALID_PARAMS
    assert err.value.data["field"] == "params.title"
    assert len(host.request("session/listStored")["sessions"]) == 2  # no branch was made
    with pytest.raises(RpcError) as err:
        host.request("session/fork", {"sessionId": "sess_nobody"})
    assert err.value.kind is ErrorType.UNKNOWN_SESSION
    forked = host.request("session/fork", {"sessionId": SID})
    assert (forked["title"], forked["messageCount"]) == ("Kiwi plan #2", 2)


def test_undo_keeps_the_sessions_background_processes(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    run, [tool_pid] = run_in_a_long_tool(host, llm, tmp_path, background=True)
    host.wait_run_completed(run["runId"])
    sid = run["sessionId"]
    assert host.request("session/undo", {"sessionId": sid})["turnsUndone"] == 1
    [proc] = host.request("process/list", {"sessionId": sid})["processes"]
    assert proc["status"] == "running"
    assert not wait_gone(tool_pid, 0)  # the session's dev server outlives the undo
    host.request("process/kill", {"sessionId": sid, "processId": proc["processId"]})
    assert wait_gone(tool_pid, 10)


def stored_rows(home: Path) -> dict[str, int]:
    """Each stored session's id and how many messages the database holds for it."""
    with sqlite3.connect(home / "state.db") as db:
        rows = db.execute(
            "SELECT s.id, COUNT(m.id) FROM sessions s"
            " LEFT JOIN messages m ON m.session_id = s.id GROUP BY s.id"
        ).fetchall()
    return dict(rows)


def test_a_deleted_session_leaves_the_database_the_listing_and_its_worker_and_starts_afresh(
    host: HostClient, llm: ScriptedLLM, home: Path
) -> None:
    turn(host, llm, "What is a kiwi?", "A fruit.")
    turn(host, llm, "Name a colour.", "Green.")
    turn(host, llm, "other question", "other answer", sid="sess-other")
    assert host.request("session/status", {"sessionId": SID})["loaded"] is True
    # Transcript files hermes' gateway keeps beside the database, for both sessions.
    for name in (f"{SID}.jsonl", f"request_dump_{SID}_1.json", "sess-other.jsonl"):
        (home / "sessions" / name).write_text("{}")
    files = lambda: sorted(p.name for p in (home / "sessions").iterdir())  # noqa: E731

    deleted = host.request("session/delete", {"sessionId": SID})
    assert deleted == {"sessionId": SID, "removedSessionIds": [SID], "messagesRemoved": 4}
    assert stored_rows(home) == {"sess-other": 2}
    assert files() == ["sess-other.jsonl"]
    assert [s["sessionId"] for s in host.request("session/listStored")["sessions"]] == [
        "sess-other"
    ]
    assert host.request("session/status", {"sessionId": SID})["loaded"] is False
    for method in ("session/history", "session/delete"):
        with pytest.raises(RpcError) as err:
            host.request(method, {"sessionId": SID})
        assert err.value.kind is ErrorType.UNKNOWN_SESSION

    turn(host, llm, "A new start.", "Fresh.")  # the id again: an empty conversation
    assert said(llm.requests[-1]["messages"]) == [("user", "A new start.")]
    assert stored_rows(home)[SID] == 2


def test_deleting_a_compressed_conversation_removes_every_row_of_it_and_keeps_its_branch(
    start_host: StartHost, llm: ScriptedLLM, home: Path
) -> None:
    compress_under_new_ids(home)
    host = start_host()
    host.initialize()
    for i in range(4):  # enough turns for hermes to summarise the middle ones
        turn(host, llm, f"question {i}", f"answer {i}")
    llm.enqueue(Reply.text(["the user asked four questions"]), Reply.text(["fine"]))
    run = host.request("run/start", {"sessionId": SID, "message": "go", "forceCompress": True})
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"
    chain = set(stored_rows(home))
    assert len(chain) == 2 and SID in chain  # the row hermes ended, and its continuation
    branch = host.request("session/fork", {"sessionId": SID})["sessionId"]
    kept = host.request("session/history", {"sessionId": branch})["messages"]
    before = stored_rows(home)

    deleted = host.request("session/delete", {"sessionId": SID})
    assert deleted["removedSessionIds"][0] == SID
    assert set(deleted["removedSessionIds"]) == chain
    assert deleted["messagesRemoved"] == sum(before[row] for row in chain)
    assert stored_rows(home) == {branch: before[branch]}
    listed = host.request("session/listStored")["sessions"]
    assert [s["sessionId"] for s in listed] == [branch]
    assert host.request("session/history", {"sessionId": branch})["messages"] == kept
    turn(host, llm, "and now?", "still here", sid=branch)
    assert said(llm.requests[-1]["messages"])[:-1] == said(kept)


def test_a_new_conversation_under_a_deleted_sessions_id_does_not_start_in_its_old_workspace(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    old = tmp_path / "old-project"
    old.mkdir()
    llm.enqueue(Reply.tool_call("terminal", {"command": "pwd"}), Reply.text(["done"]))
    params = {"sessionId": SID, "message": "where?", "workspace": str(old)}
    first = host.request("run/start", params)
    host.wait_run_completed(first["runId"])
    assert str(old) in tool_result(host, first["runId"])

    host.request("session/delete", {"sessionId": SID})
    llm.enqueue(Reply.tool_call("terminal", {"command": "pwd"}), Reply.text(["done"]))
    again = host.request("run/start", {"sessionId": SID, "message": "where?"})
    host.wait_run_completed(again["runId"])
    assert str(old) not in tool_result(host, again["runId"])
    assert host.request("session/status", {"sessionId": SID})["workspace"] is None


@pytest.mark.parametrize("how", ["session/delete", "session/undo", "conversationHistory"])
def test_a_file_read_in_turns_taken_out_of_the_history_is_read_afresh(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path, how: str
) -> None:
    # hermes answers a re-read of an unchanged file with a note pointing at the earlier
    # result: once that result is gone from the history, the model must get the contents.
    # Nor may those reads count towards hermes' block of a fourth read in a row ("you
    # already have this information"), which a host's "regenerate" would otherwise hit.
    notes = tmp_path / "notes.txt"
    notes.write_text("kiwi facts\n")
    read = Reply.tool_call("read_file", {"path": str(notes)})
    params: dict[str, Any] = {"sessionId": SID, "message": "read it"}
    for _ in range(5):
        llm.enqueue(read, Reply.text(["done"]))
        run = host.request("run/start", params)
        host.wait_run_completed(run["runId"])
        result = json.loads(tool_result(host, run["runId"]))
        assert "kiwi facts" in result["content"] and "_warning" not in result
        if how == "conversationHistory":
            params["conversationHistory"] = [{"role": "user", "content": "hello"}]
        else:
            host.request(how, {"sessionId": SID})
