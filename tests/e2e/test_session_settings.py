"""What a host chose for a session outlives the worker that held it, through the real
binary, real hermes-agent and the profile's real session database: a session resumed by
a new worker (after worker/restart, or loaded afresh after session/destroy) keeps its
model, instructions, reasoning effort and left-out toolsets; a fork starts with them, a
request's own choice wins, and session/delete forgets them."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM

from .conftest import StartHost, compress_under_new_ids


def turn(host: HostClient, llm: ScriptedLLM, sid: str, message: str, **params: Any) -> Any:
    """The model request of one turn of ``sid`` (``message`` is a word no prompt holds)."""
    llm.enqueue(Reply.text(["ok"]))
    run = host.request("run/start", {"message": message, "sessionId": sid, **params})
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"
    return next(r for r in reversed(llm.requests) if message in str(r.get("messages")))


def tools(body: dict[str, Any]) -> set[str]:
    return {tool["function"]["name"] for tool in body["tools"]}


def restart(host: HostClient) -> None:
    pid = host.request("supervisor/status")["workers"][0]["pid"]
    restarted = host.request("worker/restart", {"profile": "default"}, timeout=60)
    assert restarted["worker"]["pid"] != pid


def test_a_session_resumed_by_a_new_worker_keeps_what_the_host_chose(
    host: HostClient, llm: ScriptedLLM
) -> None:
    first = turn(
        host,
        llm,
        "chat",
        "kiwi-one",
        instructions="Always answer in Latin.",
        reasoningEffort="low",
        disabledToolsets=["terminal"],
    )
    assert "terminal" not in tools(first) and first["reasoning_effort"] == "low"
    host.request("session/switchModel", {"sessionId": "chat", "model": "other-model"})
    restart(host)

    status = host.request("session/status", {"sessionId": "chat"})
    assert status["loaded"] is False  # the new worker holds nothing yet
    again = turn(host, llm, "chat", "kiwi-two")
    assert again["model"] == "other-model"
    assert "Always answer in Latin." in str(again["messages"])
    assert again["reasoning_effort"] == "low"
    assert "terminal" not in tools(again) and "read_file" in tools(again)
    assert "kiwi-one" in str(again["messages"])  # the same conversation
    status = host.request("session/status", {"sessionId": "chat"})
    assert (status["model"], status["reasoningEffort"], status["disabledToolsets"]) == (
        "other-model",
        "low",
        ["terminal"],
    )
    listed = host.request("tool/list", {"sessionId": "chat"})
    assert listed["disabledToolsets"] == ["terminal"]


def test_a_model_switch_of_a_session_no_worker_holds_is_stored_at_once(
    host: HostClient, llm: ScriptedLLM
) -> None:
    turn(host, llm, "chat", "kiwi-one", disabledToolsets=["terminal"])
    host.request("session/destroy", {"sessionId": "chat"})
    # Resumed from the database to switch: what else is stored stays.
    host.request("session/switchModel", {"sessionId": "chat", "model": "other-model"})
    restart(host)  # before any run used the switch

    again = turn(host, llm, "chat", "kiwi-two")
    assert again["model"] == "other-model" and "terminal" not in tools(again)


def test_a_requests_own_choice_wins_over_the_stored_one_and_is_stored_in_turn(
    host: HostClient, llm: ScriptedLLM
) -> None:
    turn(host, llm, "chat", "kiwi-one", disabledToolsets=["terminal"], reasoningEffort="low")
    restart(host)

    again = turn(host, llm, "chat", "kiwi-two", disabledToolsets=[])
    assert "terminal" in tools(again) and again["reasoning_effort"] == "low"
    host.request("session/destroy", {"sessionId": "chat"})
    third = turn(host, llm, "chat", "kiwi-three")
    assert "terminal" in tools(third) and third["reasoning_effort"] == "low"


def test_a_fork_starts_with_its_parents_choices_and_a_deleted_session_forgets_them(
    host: HostClient, llm: ScriptedLLM
) -> None:
    turn(host, llm, "chat", "kiwi-one", disabledToolsets=["terminal"], instructions="Be terse.")
    host.request("session/fork", {"sessionId": "chat", "newSessionId": "branch"})

    branch = turn(host, llm, "branch", "kiwi-two")
    assert "terminal" not in tools(branch) and "Be terse." in str(branch["messages"])
    host.request("session/delete", {"sessionId": "chat"})

    anew = turn(host, llm, "chat", "kiwi-three")  # the same id, a new conversation
    assert "terminal" in tools(anew) and "Be terse." not in str(anew["messages"])
    assert "kiwi-one" not in str(anew["messages"])


def test_a_conversation_resumed_by_hermes_newer_id_after_compression_keeps_the_choices(
    start_host: StartHost, llm: ScriptedLLM, home: Path
) -> None:
    compress_under_new_ids(home)
    host = start_host()
    host.initialize()
    turn(host, llm, "chat", "kiwi-one", instructions="Always answer in Latin.")
    for i in range(3):  # enough turns for hermes to summarise the middle ones
        turn(host, llm, "chat", f"filler-{i}")
    llm.enqueue(Reply.text(["the user wants Latin"]), Reply.text(["fine"]))
    run = host.request("run/start", {"sessionId": "chat", "message": "go", "forceCompress": True})
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"
    with sqlite3.connect(home / "state.db") as db:
        [(newer,)] = db.execute("SELECT id FROM sessions WHERE parent_session_id = 'chat'")
    restart(host)

    # The id hermes' own CLI lists the conversation by now: a host may resume by it.
    again = turn(host, llm, newer, "kiwi-two", reasoningEffort="low")  # stored under newer
    assert "Always answer in Latin." in str(again["messages"])
    assert "the user wants Latin" in str(again["messages"])  # the same conversation

    # Deleting the conversation by its first id forgets what was stored under either.
    host.request("session/delete", {"sessionId": "chat"})
    with sqlite3.connect(home / "state.db") as db:
        kept = db.execute("SELECT key FROM state_meta WHERE key LIKE 'hermes-stdio.%'").fetchall()
    assert kept == []


def test_a_stored_model_that_no_longer_resolves_is_not_used_but_stays_stored(
    host: HostClient, llm: ScriptedLLM, home: Path
) -> None:
    turn(host, llm, "chat", "kiwi-one", instructions="Be terse.")
    host.request("session/switchModel", {"sessionId": "chat", "model": "other-model"})
    restart(host)
    key = "hermes-stdio.settings:chat"
    with sqlite3.connect(home / "state.db") as db:  # as if its provider left config.yaml
        [(raw,)] = db.execute("SELECT value FROM state_meta WHERE key = ?", (key,))
        gone = {**json.loads(raw), "provider": "no-such-provider"}
        db.execute("UPDATE state_meta SET value = ? WHERE key = ?", (json.dumps(gone), key))

    again = turn(host, llm, "chat", "kiwi-two", reasoningEffort="low")
    assert again["model"] == "test-model"  # the profile's
    assert "Be terse." in str(again["messages"])
    with sqlite3.connect(home / "state.db") as db:
        [(raw,)] = db.execute("SELECT value FROM state_meta WHERE key = ?", (key,))
    kept = json.loads(raw)
    assert (kept["model"], kept["provider"], kept["reasoningEffort"]) == (
        "other-model",
        "no-such-provider",
        "low",
    )
