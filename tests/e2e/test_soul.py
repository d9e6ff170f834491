"""A profile's SOUL.md through the real binary and real hermes-agent: read and
replaced by the supervisor without a worker, told of whoever changes it
(soul/changed), and put first in the system prompt of the sessions started
after, while a session started before keeps its own."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from hermes_stdio.protocol.soul import MAX_SOUL_CHARS
from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM
from hermes_stdio.wire import ErrorType

from .conftest import pushed_so_far, received, refused


def system_prompt(llm: ScriptedLLM) -> str:
    """The system message of the LLM's last request."""
    first = llm.requests[-1]["messages"][0]
    assert first["role"] == "system"
    return json.dumps(first["content"])


def test_a_soul_written_is_read_back_pushed_and_heads_new_sessions_only(
    host: HostClient, llm: ScriptedLLM, home: Path
) -> None:
    host.wait_stderr(lambda line: "watching the profiles" in line, timeout=20)
    llm.enqueue(Reply.text(["before"]))
    early = host.request("run/start", {"message": "hi", "profile": "work"})
    assert host.wait_run_completed(early["runId"]).params["status"] == "complete"
    soul = home / "profiles" / "work" / "SOUL.md"
    before = host.request("soul/read", {"profile": "work"})
    assert before == {
        "path": str(soul),
        "version": hashlib.sha256(soul.read_bytes()).hexdigest(),
        "content": soul.read_text(),
    }
    persona = "You are Quill, a terse code reviewer who answers in haiku."
    wrote = host.request(
        "soul/write",
        {"profile": "work", "content": persona, "expectedVersion": before["version"]},
    )
    assert wrote == {"version": hashlib.sha256(persona.encode()).hexdigest()}
    assert soul.read_text() == persona
    assert host.request("soul/read", {"profile": "work"})["content"] == persona
    pushed_so_far(
        host,
        "soul/changed",
        [  # hermes seeded its default when the worker started; then the write
            {"profile": "work", "version": before["version"]},
            {"profile": "work", "version": wrote["version"]},
        ],
    )
    llm.enqueue(Reply.text(["new"]))
    fresh = host.request("run/start", {"message": "hello", "profile": "work"})
    assert host.wait_run_completed(fresh["runId"]).params["status"] == "complete"
    assert "Quill" in system_prompt(llm)
    llm.enqueue(Reply.text(["same as ever"]))
    again = host.request("run/start", {"message": "more", "sessionId": early["sessionId"]})
    assert host.wait_run_completed(again["runId"]).params["status"] == "complete"
    assert "Quill" not in system_prompt(llm)  # built before: it keeps its prompt
    assert not (home / "profiles" / "play" / "SOUL.md").exists()  # written to work alone


def test_a_soul_is_read_and_written_without_starting_a_worker_and_edits_by_hand_are_pushed(
    host: HostClient, home: Path
) -> None:
    host.wait_stderr(lambda line: "watching the profiles" in line, timeout=20)
    soul = home / "profiles" / "play" / "SOUL.md"
    soul.unlink(missing_ok=True)
    assert host.request("soul/read", {"profile": "play"}) == {
        "path": str(soul),
        "version": None,
        "content": "",
    }
    wrote = host.request("soul/write", {"profile": "play", "content": "Be brief.\n"})
    assert oct(os.stat(soul).st_mode & 0o777) == "0o600"  # as hermes seeds it
    pushed_so_far(host, "soul/changed", [{"profile": "play", "version": wrote["version"]}])
    soul.write_bytes(b"by hand \xff")  # the user's editor; not UTF-8
    by_hand = hashlib.sha256(b"by hand \xff").hexdigest()
    assert host.request("soul/read", {"profile": "play"})["content"] == "by hand \ufffd"
    pushed_so_far(
        host,
        "soul/changed",
        [{"profile": "play", "version": wrote["version"]}, {"profile": "play", "version": by_hand}],
    )
    assert not received(host, "worker/started")


def test_a_stale_version_a_fifo_a_long_text_or_an_unknown_profile_is_refused(
    host: HostClient, home: Path
) -> None:
    soul = home / "profiles" / "work" / "SOUL.md"
    soul.write_text("mine")
    stale = refused(
        host, "soul/write", {"profile": "work", "content": "theirs", "expectedVersion": "0" * 64}
    )
    assert stale.kind is ErrorType.CONFIG_CONFLICT
    assert stale.data["version"] == hashlib.sha256(b"mine").hexdigest()
    long = refused(host, "soul/write", {"profile": "work", "content": "x" * (MAX_SOUL_CHARS + 1)})
    assert long.kind is ErrorType.INVALID_PARAMS and long.data["field"] == "params.content"
    assert soul.read_text() == "mine"
    fifo = home / "profiles" / "play" / "SOUL.md"
    fifo.unlink(missing_ok=True)
    os.mkfifo(fifo)
    for method, params in [("soul/read", {}), ("soul/write", {"content": "x"})]:
        err = refused(host, method, {"profile": "play", **params})
        assert err.kind is ErrorType.PROFILE_UNREADABLE and err.data["file"] == "SOUL.md"
    for profile in ("nobody", "../work"):
        err = refused(host, "soul/read", {"profile": profile})
        assert err.kind in (ErrorType.UNKNOWN_PROFILE, ErrorType.INVALID_PROFILE)
