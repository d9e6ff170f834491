"""hermes' kanban tools, through the real binary and real hermes-agent: a task a session's
agent creates is stamped with that session's id, though hermes left the id of the
agent it built last in the worker's environment."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import yaml

from hermes_stdio.testing.host import HostClient
from hermes_stdio.testing.llm_server import Reply, ScriptedLLM

from .conftest import answered


def with_kanban(home: Path) -> None:
    """The opt-in toolset on, for the default profile's CLI platform too."""
    path = home / "config.yaml"
    config = yaml.safe_load(path.read_text())
    config["toolsets"] = ["hermes-cli", "kanban"]
    config["platform_toolsets"] = {"cli": ["hermes-cli", "kanban"]}
    path.write_text(yaml.safe_dump(config))


def test_a_task_is_stamped_with_the_id_of_the_session_whose_agent_created_it(
    home: Path, host: HostClient, llm: ScriptedLLM
) -> None:
    with_kanban(home)
    first = answered(host, llm, "hello", "hi")
    second = answered(host, llm, "hello too", "hi")  # its agent is built last
    llm.enqueue(
        Reply.tool_call("kanban_create", {"title": "write the docs", "assignee": "work"}),
        Reply.text(["created"]),
    )
    run = host.request("run/start", {"sessionId": first, "message": "make a task"})
    assert host.wait_run_completed(run["runId"]).params["status"] == "complete"
    tool = next(m for m in reversed(llm.requests[-1]["messages"]) if m["role"] == "tool")
    assert '"ok": true' in tool["content"], tool["content"]

    with sqlite3.connect(home / "kanban.db") as db:
        rows = db.execute("SELECT title, session_id FROM tasks").fetchall()
    assert rows == [("write the docs", first)]
    assert second != first
