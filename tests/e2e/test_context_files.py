"""Context files through the real binary and real hermes-agent: one that would hang
hermes' read (a FIFO) ends the run at once as context_unreadable, naming it, instead
of a run that never ends; once it is a file again, hermes reads it into the prompt."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from hermes_stdio.protocol.types import RunErrorType
from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM


def ended(host: HostClient, run: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The run's run/completed params, and the methods it sent."""
    done = host.wait_run_completed(run["runId"], timeout=60).params
    return done, [n.method for n in host.run_notifications(run["runId"])]


def system_prompt(llm: ScriptedLLM) -> str:
    return str(llm.requests[-1]["messages"][0]["content"])


def test_a_workspace_context_file_that_is_a_fifo_ends_the_run_and_a_file_there_is_read(
    any_host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    workspace = tmp_path / "project"
    workspace.mkdir()
    os.mkfifo(workspace / "AGENTS.md")
    run = any_host.request("run/start", {"message": "hi", "workspace": str(workspace)})
    done, methods = ended(any_host, run)
    assert (done["status"], done["error"]["type"]) == ("error", RunErrorType.CONTEXT_UNREADABLE)
    assert str(workspace / "AGENTS.md") in done["error"]["message"]
    assert methods == ["run/started", "run/completed"]  # nothing was sent to the model

    (workspace / "AGENTS.md").unlink()
    (workspace / "AGENTS.md").write_text("Answer in haiku.")
    llm.enqueue(Reply.text(["ok"]))
    again = any_host.request("run/start", {"message": "hi", "sessionId": run["sessionId"]})
    assert ended(any_host, again)[0]["status"] == "complete"
    assert "Answer in haiku." in system_prompt(llm)  # the file hermes reads, checked


def test_a_cursor_rule_that_is_a_fifo_ends_the_run_as_context_unreadable(
    host: HostClient, tmp_path: Path
) -> None:
    rules = tmp_path / "project" / ".cursor" / "rules"
    rules.mkdir(parents=True)
    os.mkfifo(rules / "style.mdc")
    workspace = str(tmp_path / "project")
    done, _ = ended(host, host.request("run/start", {"message": "hi", "workspace": workspace}))
    assert done["error"]["type"] == RunErrorType.CONTEXT_UNREADABLE
    assert str(rules / "style.mdc") in done["error"]["message"]


def test_a_profile_soul_md_that_became_a_fifo_fails_a_new_sessions_build_not_the_worker(
    host: HostClient, llm: ScriptedLLM, home: Path
) -> None:
    # One there before the worker starts is the supervisor's (profile_unreadable).
    llm.enqueue(Reply.text(["ok"]))
    first = host.request("run/start", {"message": "hi"})
    assert ended(host, first)[0]["status"] == "complete"
    soul = home / "SOUL.md"
    soul.unlink(missing_ok=True)
    os.mkfifo(soul)
    run = host.request("run/start", {"message": "hi"})
    done, methods = ended(host, run)
    assert done["error"]["type"] == RunErrorType.CONTEXT_UNREADABLE
    assert str(soul) in done["error"]["message"]
    assert methods == ["run/completed"]  # the agent was never built

    soul.unlink()
    soul.write_text("You are a lighthouse keeper.")
    llm.enqueue(Reply.text(["ok"]))
    again = host.request("run/start", {"message": "hi", "sessionId": run["sessionId"]})
    assert ended(host, again)[0]["status"] == "complete"
    assert "You are a lighthouse keeper." in system_prompt(llm)


def test_a_compression_of_a_session_whose_workspace_gained_a_fifo_ends_as_context_unreadable(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    workspace = tmp_path / "project"
    workspace.mkdir()
    llm.enqueue(Reply.text(["ok"]))
    run = host.request("run/start", {"message": "hi", "workspace": str(workspace)})
    assert ended(host, run)[0]["status"] == "complete"
    os.mkfifo(workspace / "CLAUDE.md")
    compress = host.request("session/compress", {"sessionId": run["sessionId"]})
    done, _ = ended(host, compress)
    assert done["error"]["type"] == RunErrorType.CONTEXT_UNREADABLE
    assert str(workspace / "CLAUDE.md") in done["error"]["message"]


def tool_messages(llm: ScriptedLLM) -> list[str]:
    """What the model was sent as the tool results of its last request."""
    return [str(m["content"]) for m in llm.requests[-1]["messages"] if m["role"] == "tool"]


def test_a_subdirectorys_agents_md_comes_with_the_first_tool_call_there_the_workspaces_not_again(
    host: HostClient, llm: ScriptedLLM, tmp_path: Path
) -> None:
    # hermes hints a directory's AGENTS.md as the agent first works there. It takes
    # a relative path, and what the system prompt already holds, from the process's
    # directory: in a worker, the profile's home.
    workspace = tmp_path / "project"
    (workspace / "src").mkdir(parents=True)
    (workspace / "AGENTS.md").write_text("TOP-RULES: answer briefly.")
    (workspace / "src" / "AGENTS.md").write_text("SRC-RULES: tabs, not spaces.")
    (workspace / "src" / "main.py").write_text("print('hi')\n")
    (workspace / "README.md").write_text("readme\n")
    llm.enqueue(
        Reply.tool_call("read_file", {"path": str(workspace / "README.md")}),
        Reply.tool_call("read_file", {"path": "src/main.py"}),
        Reply.text(["done"]),
    )
    run = host.request("run/start", {"message": "look", "workspace": str(workspace)})
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"
    assert "TOP-RULES" in system_prompt(llm)
    readme, main = tool_messages(llm)
    assert "TOP-RULES" not in readme  # the system prompt has it already
    assert "SRC-RULES" in main and "TOP-RULES" not in main
