"""The end of a session through the real binary and real hermes-agent: when a host
destroys a session, or its worker stops, hermes is told as its CLI tells it on exit.
The profile's memory provider keeps what it learned from the conversation, and
``on_session_finalize`` hooks run. A session unloaded for idleness is handed to the
memory provider as hermes' gateway hands an agent it evicts, and is not ended; its
row in the profile's DB stays open, and a session used again is open again."""

from __future__ import annotations

import json
import os
import select
import sqlite3
from pathlib import Path
from typing import Any

import yaml

from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM

from .conftest import StartHost
from .test_hooks import configure, hook_script, payloads

RECALL = '''
import json
from agent.memory_provider import MemoryProvider

KEPT = {kept!r}


class Recall(MemoryProvider):
    """Keeps each session's conversation, as it is handed over at the session's end."""

    @property
    def name(self):
        return "recall"

    def is_available(self):
        return True

    def initialize(self, session_id, **kwargs):
        self.session_id = session_id

    def get_tool_schemas(self):
        return []

    def on_session_end(self, messages):
        with open(KEPT, "a") as out:
            said = [m.get("content") for m in messages if m.get("role") == "user"]
            out.write(json.dumps({{"session": self.session_id, "said": said}}) + "\\n")

    def shutdown(self):
        with open(KEPT, "a") as out:
            out.write(json.dumps({{"shutdown": self.session_id}}) + "\\n")
'''


def one_turn(host: HostClient, llm: ScriptedLLM, message: str) -> str:
    llm.enqueue(Reply.text(["noted"]))
    run = host.request("run/start", {"message": message})
    assert host.wait_run_completed(run["runId"], timeout=60).params["status"] == "complete"
    return str(run["sessionId"])


def finalize_hooks(home: Path, tmp_path: Path) -> Path:
    """``pre_llm_call`` and ``on_session_finalize`` hooks that keep their payloads."""
    command, seen = hook_script(tmp_path / "hooks", {})
    events = ("pre_llm_call", "on_session_finalize")
    configure(home, {e: [{"command": command}] for e in events}, hooks_auto_accept=True)
    return seen


def finalized(seen: Path) -> list[dict[str, Any]]:
    return [p for p in payloads(seen) if p["hook_event_name"] == "on_session_finalize"]


def hermes_id(seen: Path) -> str:
    [first, *_] = [p for p in payloads(seen) if p["hook_event_name"] == "pre_llm_call"]
    return str(first["session_id"])


def test_destroying_a_session_runs_on_session_finalize_with_hermes_session_id(
    host: HostClient, llm: ScriptedLLM, home: Path, tmp_path: Path
) -> None:
    seen = finalize_hooks(home, tmp_path)
    session = one_turn(host, llm, "hello")
    assert finalized(seen) == []  # a turn's end is not the session's

    assert host.request("session/destroy", {"sessionId": session}) == {"destroyed": True}
    [payload] = finalized(seen)
    assert payload["session_id"] == hermes_id(seen)
    assert (payload["extra"]["reason"], payload["extra"]["platform"]) == ("closed", "cli")


def test_a_stopping_worker_ends_each_session_it_holds(
    host: HostClient, llm: ScriptedLLM, home: Path, tmp_path: Path
) -> None:
    seen = finalize_hooks(home, tmp_path)
    one_turn(host, llm, "hello")

    host.request("worker/restart", {}, timeout=60)
    [payload] = finalized(seen)
    assert payload["session_id"] == hermes_id(seen)
    assert payload["extra"]["reason"] == "shutdown"


def recall(home: Path, kept: Path) -> None:
    """The profile's memory provider: the user's ``recall`` plugin, keeping to ``kept``."""
    plugin = home / "plugins" / "recall"
    plugin.mkdir(parents=True)
    (plugin / "__init__.py").write_text(RECALL.format(kept=str(kept)))
    config = yaml.safe_load((home / "config.yaml").read_text())
    config.setdefault("memory", {})["provider"] = "recall"
    (home / "config.yaml").write_text(yaml.safe_dump(config))


def test_the_memory_provider_keeps_a_destroyed_sessions_conversation(
    host: HostClient, llm: ScriptedLLM, home: Path, tmp_path: Path
) -> None:
    kept = tmp_path / "kept.jsonl"
    recall(home, kept)
    session = one_turn(host, llm, "my cat is called Tom")
    llm.enqueue(Reply.text(["sure"]))
    again = host.request("run/start", {"message": "remember that", "sessionId": session})
    assert host.wait_run_completed(again["runId"], timeout=60).params["status"] == "complete"
    assert not kept.exists()  # nothing yet: the session goes on

    host.request("session/destroy", {"sessionId": session})
    ended, shutdown = [json.loads(line) for line in kept.read_text().splitlines()]
    assert ended["said"] == ["my cat is called Tom", "remember that"]
    assert shutdown == {"shutdown": ended["session"]}


def ended(home: Path, session: str) -> tuple[float | None, str | None]:
    """The session's row in the profile's DB: when and why hermes marked it ended."""
    with sqlite3.connect(home / "state.db") as db:
        row = db.execute("SELECT ended_at, end_reason FROM sessions WHERE id = ?", (session,))
        at, reason = row.fetchone()
    return at, reason


def test_a_session_unloaded_for_idleness_hands_its_conversation_to_the_memory_provider(
    start_host: StartHost, llm: ScriptedLLM, home: Path, tmp_path: Path
) -> None:
    kept = tmp_path / "kept"
    os.mkfifo(kept)
    recall(home, kept)
    seen = finalize_hooks(home, tmp_path)
    host = start_host("--session-idle-timeout", "1", "--worker-idle-timeout", "0")
    host.initialize()
    reader = os.open(kept, os.O_RDONLY | os.O_NONBLOCK)
    writer = os.open(kept, os.O_WRONLY)  # so the provider's writes, one by one, are no EOF
    try:
        session = one_turn(host, llm, "my cat is called Tom")
        got = b""
        while got.count(b"\n") < 2:  # once unloaded
            assert select.select([reader], [], [], 60)[0]
            got += os.read(reader, 65536)
        handed, shutdown = [json.loads(line) for line in got.splitlines()]
        assert handed["said"] == ["my cat is called Tom"]
        assert shutdown == {"shutdown": handed["session"]}  # that agent is done with
        assert host.request("session/status", {"sessionId": session})["loaded"] is False
        assert finalized(seen) == []  # not ended: it goes on
        assert ended(home, session) == (None, None)
    finally:
        os.close(writer)
        os.close(reader)


def test_a_session_used_again_after_it_was_destroyed_is_open_until_it_ends_again(
    host: HostClient, llm: ScriptedLLM, home: Path
) -> None:
    session = one_turn(host, llm, "hello")
    host.request("session/destroy", {"sessionId": session})
    first_end, reason = ended(home, session)
    assert first_end is not None and reason == "agent_close"

    llm.enqueue(Reply.text(["back"]))
    again = host.request("run/start", {"message": "again", "sessionId": session})
    assert host.wait_run_completed(again["runId"], timeout=60).params["status"] == "complete"
    assert ended(home, session) == (None, None)  # as hermes' CLI reopens what it resumes

    host.request("session/destroy", {"sessionId": session})
    last_end, reason = ended(home, session)
    assert last_end is not None and last_end > first_end and reason == "agent_close"
