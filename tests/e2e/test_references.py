"""@ references through the real binary and real hermes-agent: @file: and friends are
expanded from the session's workspace the way hermes' CLI does, nothing outside it is
read, and context too large for the model's window ends the run before the model."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from hermes_stdio.protocol.types import RunErrorType
from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM
from hermes_stdio.wire import ErrorType, RpcError


def expanded(host: HostClient, run_id: str) -> list[dict[str, Any]]:
    return [
        n.params["event"]
        for n in host.run_notifications(run_id)
        if n.method == "run/event" and n.params["event"]["type"] == "references.expanded"
    ]


def sent(llm: ScriptedLLM) -> str:
    """The user message of the last turn request (with tools) the model got."""
    turns = [body for body in llm.requests if body.get("tools")]
    return str(turns[-1]["messages"][-1]["content"])


def test_a_file_reference_attaches_the_file_from_the_sessions_workspace(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    workspace = tmp_path / "repo"
    workspace.mkdir()
    (workspace / "notes.txt").write_text("THE-NOTES-SAY-KIWI\n")
    (tmp_path / "secret.txt").write_text("OUTSIDE-SECRET\n")
    llm.enqueue(Reply.text(["read"]))
    message = "summarise @file:notes.txt and @file:../secret.txt"
    run = host.request("run/start", {"message": message, "workspace": str(workspace)})
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"
    [event] = expanded(host, run["runId"])
    assert event["references"] == ["@file:notes.txt", "@file:../secret.txt"]
    assert event["blocked"] is False and event["injectedTokens"] > 0
    assert len(event["warnings"]) == 1  # the file outside the workspace
    text = sent(llm)
    assert "THE-NOTES-SAY-KIWI" in text and "OUTSIDE-SECRET" not in text


def test_references_are_sent_as_typed_when_the_run_says_so_or_there_are_none(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    (tmp_path / "notes.txt").write_text("THE-NOTES\n")
    llm.enqueue(Reply.text(["ok"]), Reply.text(["ok"]))
    params = {"workspace": str(tmp_path), "expandReferences": False}
    run = host.request("run/start", {"message": "see @file:notes.txt", **params})
    host.wait_run_completed(run["runId"])
    assert expanded(host, run["runId"]) == []
    assert sent(llm) == "see @file:notes.txt"
    run = host.request("run/start", {"message": "mail me@example.com", "workspace": str(tmp_path)})
    host.wait_run_completed(run["runId"])
    assert expanded(host, run["runId"]) == []
    assert sent(llm) == "mail me@example.com"


def test_context_larger_than_half_the_window_ends_the_run_before_the_model(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    # The test profiles' window is 131,072 tokens; hermes counts ~4 characters a token.
    (tmp_path / "huge.txt").write_text("word " * 80_000)
    before = len(llm.requests)
    run = host.request("run/start", {"message": "@file:huge.txt", "workspace": str(tmp_path)})
    done = host.wait_run_completed(run["runId"]).params
    assert done["status"] == "error"
    assert done["error"]["type"] == RunErrorType.CONTEXT_REFUSED
    assert "50%" in done["error"]["message"]
    [event] = expanded(host, run["runId"])
    assert event["blocked"] is True
    assert [b for b in llm.requests[before:] if b.get("tools")] == []  # no turn was sent


def test_no_profile_attaches_another_profiles_files_nor_names_a_relative_workspace(
    host: HostClient, llm: ScriptedLLM, home: Path
) -> None:
    # The default profile's home is the Hermes root, which holds every other profile.
    (home / "profiles" / "work" / "auth.json").write_text('{"key": "WORK-AUTH-TOKEN"}')
    (home / "notes.txt").write_text("DEFAULT-NOTES\n")
    llm.enqueue(Reply.text(["read"]))
    message = "see @file:notes.txt and @file:profiles/work/auth.json"
    run = host.request("run/start", {"message": message})
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"
    [event] = expanded(host, run["runId"])
    assert len(event["warnings"]) == 1
    text = sent(llm)
    assert "DEFAULT-NOTES" in text and "WORK-AUTH-TOKEN" not in text

    with pytest.raises(RpcError) as err:
        host.request("run/start", {"message": "hi", "profile": "play", "workspace": "../work"})
    assert err.value.kind is ErrorType.INVALID_PARAMS
    assert err.value.data["field"] == "params.workspace"

    llm.enqueue(Reply.text(["read"]))
    workspace = str(home / "profiles" / "work")
    run = host.request(
        "run/start", {"message": "@file:auth.json", "profile": "play", "workspace": workspace}
    )
    host.wait_run_completed(run["runId"])
    assert "WORK-AUTH-TOKEN" not in sent(llm)


def test_a_folder_reference_lists_a_fifo_or_device_in_it_without_reading_it(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    # hermes reads each listed file to count its lines: a FIFO would block that read
    # for ever, a link to /dev/zero would never end.
    workspace = tmp_path / "repo"
    (workspace / "src").mkdir(parents=True)
    (workspace / "src" / "main.py").write_text("print(1)\nprint(2)\n")
    os.mkfifo(workspace / "src" / "pipe")
    (workspace / "src" / "zeros").symlink_to("/dev/zero")
    llm.enqueue(Reply.text(["listed"]))
    run = host.request("run/start", {"message": "see @folder:src", "workspace": str(workspace)})
    assert host.wait_run_completed(run["runId"], timeout=60).params["status"] == "complete"
    [event] = expanded(host, run["runId"])
    assert event["references"] == ["@folder:src"] and event["blocked"] is False
    listing = sent(llm)
    assert "main.py (3 lines)" in listing
    assert "pipe (not a regular file)" in listing and "zeros (not a regular file)" in listing
