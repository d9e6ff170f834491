"""worker/agent_dirs.py: hermes' checkpoints before an edit or a destructive command
snapshot the calling task's directory, and its directory hints are for the session's
project, not the worker's process directory."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from hermes_stdio.worker import agent_dirs, terminal_dir


class Manager:
    """hermes' CheckpointManager, in short: records what it would snapshot."""

    def __init__(self) -> None:
        self.taken: list[tuple[str, str]] = []

    def get_working_dir_for_path(self, file_path: str) -> str:
        return os.path.dirname(file_path) or file_path

    def ensure_checkpoint(self, working_dir: str, reason: str = "auto") -> bool:
        self.taken.append((working_dir, reason))
        return True


FILE_TOOLS = SimpleNamespace(
    _authoritative_workspace_root=lambda task_id="default": {"s1": "/ws/sub"}.get(task_id),
    _resolve_base_dir=lambda task_id="default": "/ws/sub" if task_id == "s1" else "/process",
)


class Tracker:
    """hermes' SubdirectoryHintTracker, in short: records the calls it checks."""

    def __init__(self) -> None:
        self.working_dir = Path(os.getcwd())
        self._loaded_dirs = {self.working_dir}
        self.checked: list[tuple[str, dict[str, Any]]] = []

    def check_tool_call(self, tool_name: str, tool_args: dict[str, Any]) -> None:
        self.checked.append((tool_name, tool_args))


class Agent:
    """hermes' AIAgent, in short: its two helpers and the task it runs."""

    def __init__(self) -> None:
        self._checkpoint_mgr = Manager()
        self._subdirectory_hints = Tracker()
        self._current_task_id = "s1"

    def run_conversation(self, message: str) -> str:
        mgr = self._checkpoint_mgr
        mgr.ensure_checkpoint(mgr.get_working_dir_for_path("notes.txt"), "before write_file")
        mgr.ensure_checkpoint(os.getenv("TERMINAL_CWD", os.getcwd()), "before terminal: rm x")
        self._subdirectory_hints.check_tool_call("read_file", {"path": "src/a.py"})
        return message


RUNTIME_CWD = SimpleNamespace(resolve_agent_cwd=lambda: Path("/ws"))


def bound(where: str | None = "/ws/sub") -> Manager:
    manager = Manager()
    assert agent_dirs.bind_checkpoints(manager, lambda: where)
    return manager


def test_a_relative_file_path_is_found_in_the_tasks_directory() -> None:
    manager = bound()
    assert manager.get_working_dir_for_path("docs/a.md") == "/ws/sub/docs"
    assert manager.get_working_dir_for_path("/abs/b.md") == "/abs"
    assert manager.get_working_dir_for_path("~/c.md") == "~"


def test_a_command_that_named_no_directory_is_snapshotted_where_it_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("TERMINAL_CWD", raising=False)
    manager = bound()
    manager.ensure_checkpoint(os.getcwd(), "before terminal: rm -r build")
    manager.ensure_checkpoint("", "before terminal: rm y")
    manager.ensure_checkpoint("tmp", "before terminal: rm z")
    manager.ensure_checkpoint("/named", "before terminal: rm w")
    # Only a command's checkpoint is hermes' fallback; an edit's names its project.
    manager.ensure_checkpoint(os.getcwd(), "before write_file")
    assert manager.taken == [
        ("/ws/sub", "before terminal: rm -r build"),
        ("/ws/sub", "before terminal: rm y"),
        ("/ws/sub/tmp", "before terminal: rm z"),
        ("/named", "before terminal: rm w"),
        (os.getcwd(), "before write_file"),
    ]


def test_the_fallback_is_terminal_cwd_when_the_worker_has_one(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    monkeypatch.setenv("TERMINAL_CWD", str(tmp_path))
    manager = bound()
    manager.ensure_checkpoint(str(tmp_path), "before terminal: rm a")
    manager.ensure_checkpoint(os.getcwd(), "before terminal: rm b")
    assert manager.taken == [
        ("/ws/sub", "before terminal: rm a"),
        (os.getcwd(), "before terminal: rm b"),
    ]


def test_a_task_with_no_directory_of_its_own_leaves_hermes_as_it_is() -> None:
    manager = bound(None)
    assert manager.get_working_dir_for_path("docs/a.md") == "docs"
    manager.ensure_checkpoint("", "before terminal: rm y")
    assert manager.taken == [("", "before terminal: rm y")]


def test_installed_each_agent_is_bound_to_its_current_task_on_the_local_backend(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(terminal_dir, "local", lambda: True)
    agent_class = type("AIAgent", (Agent,), {})
    assert agent_dirs.install(agent_class, FILE_TOOLS, RUNTIME_CWD)
    assert agent_dirs.install(agent_class, FILE_TOOLS, RUNTIME_CWD)  # once
    agent = agent_class()
    assert agent.run_conversation("hi") == "hi"
    assert agent._checkpoint_mgr.taken == [
        ("/ws/sub", "before write_file"),
        ("/ws/sub", "before terminal: rm x"),
    ]
    hints = agent._subdirectory_hints
    assert hints.working_dir == Path("/ws") and Path("/ws") in hints._loaded_dirs
    assert hints.checked == [("read_file", {"path": "/ws/sub/src/a.py"})]
    agent._current_task_id = "other"  # read at each call: a task with no directory
    agent.run_conversation("again")
    assert agent._checkpoint_mgr.taken[2][0] == "notes.txt"
    assert hints.checked[1] == ("read_file", {"path": "src/a.py"})


def test_on_a_sandboxed_backend_paths_are_left_to_hermes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(terminal_dir, "local", lambda: False)
    agent_class = type("AIAgent", (Agent,), {})
    assert agent_dirs.install(agent_class, FILE_TOOLS, RUNTIME_CWD)
    agent = agent_class()
    agent.run_conversation("hi")
    assert agent._checkpoint_mgr.taken[0] == ("notes.txt", "before write_file")
    assert agent._subdirectory_hints.working_dir == Path(os.getcwd())
    assert agent._subdirectory_hints.checked == [("read_file", {"path": "src/a.py"})]


def test_each_conversation_hints_for_the_project_it_runs_in_and_never_that_one_again() -> None:
    tracker = Tracker()
    assert agent_dirs.bind_hints(tracker, Path("/one"), lambda: "/one/sub")
    assert agent_dirs.bind_hints(tracker, Path("/two"), lambda: "/one/sub")  # wraps once
    assert tracker.working_dir == Path("/two")
    assert {Path("/one"), Path("/two")} <= tracker._loaded_dirs
    tracker.check_tool_call("terminal", {"command": "ls", "workdir": "lib", "n": 1})
    tracker.check_tool_call("read_file", {"path": "/abs/x.py", "file_path": " "})
    assert tracker.checked == [
        ("terminal", {"command": "ls", "workdir": "/one/sub/lib", "n": 1}),
        ("read_file", {"path": "/abs/x.py", "file_path": " "}),
    ]


def test_a_hermes_without_the_functions_is_left_alone() -> None:
    assert not agent_dirs.install(type("Bare", (), {}), FILE_TOOLS, RUNTIME_CWD)
    assert not agent_dirs.install(Agent, SimpleNamespace(), RUNTIME_CWD)
    assert not agent_dirs.install(Agent, FILE_TOOLS, SimpleNamespace())
    assert not agent_dirs.bind_hints(SimpleNamespace(check_tool_call=print), Path("/"), str)
    assert not agent_dirs.bind_checkpoints(SimpleNamespace(ensure_checkpoint=print), lambda: "/ws")
