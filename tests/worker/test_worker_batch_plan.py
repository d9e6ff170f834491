"""worker/batch_plan.py: hermes' planner of a tool-call batch takes relative paths in the
calling task's directory, so one file named two ways is never written and read at once."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from hermes_stdio.worker import batch_plan, terminal_dir

helpers = pytest.importorskip("agent.tool_dispatch_helpers")  # hermes' real planner

FILE_TOOLS = SimpleNamespace(
    _authoritative_workspace_root=lambda task_id="default": {"s1": "/ws"}.get(task_id),
    _resolve_base_dir=lambda task_id="default": "/ws" if task_id == "s1" else "/process",
)


def call(name: str, **args: Any) -> Any:
    return SimpleNamespace(id=name, function=SimpleNamespace(name=name, arguments=json.dumps(args)))


BATCH = [call("write_file", path="notes.txt", content="x"), call("read_file", path="/ws/notes.txt")]


def installed() -> tuple[Any, SimpleNamespace]:
    dispatch = SimpleNamespace(_plan_tool_batch_segments=helpers._plan_tool_batch_segments)

    class Agent:
        def _execute_tool_calls(self, message: Any, messages: Any, task_id: str, n: int) -> Any:
            # As hermes does: the shared shell's live directory, another session's.
            plan = dispatch._plan_tool_batch_segments
            return plan(message, execution_cwd=Path("/elsewhere"))

    assert batch_plan.install(Agent, dispatch, FILE_TOOLS)
    assert batch_plan.install(Agent, dispatch, FILE_TOOLS)  # once
    return Agent(), dispatch


def kinds(segments: Any) -> list[tuple[str, list[str]]]:
    return [(kind, [c.function.name for c in calls]) for kind, calls in segments]


@pytest.fixture
def local(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(terminal_dir, "local", lambda: True)
    yield


@pytest.mark.usefixtures("local")
def test_a_tasks_batch_sees_one_file_named_two_ways_and_runs_it_in_order() -> None:
    agent, dispatch = installed()
    assert kinds(agent._execute_tool_calls(BATCH, [], "s1", 1)) == [
        ("sequential", ["write_file", "read_file"])
    ]
    # Outside a task's tool calls, and for a task with no directory: hermes' own plan.
    assert kinds(dispatch._plan_tool_batch_segments(BATCH, execution_cwd=Path("/elsewhere"))) == [
        ("parallel", ["write_file", "read_file"])
    ]
    assert kinds(agent._execute_tool_calls(BATCH, [], "other", 1))[0][0] == "parallel"


def test_on_a_sandboxed_backend_the_plan_is_hermes_own(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(terminal_dir, "local", lambda: False)
    agent, _ = installed()
    assert kinds(agent._execute_tool_calls(BATCH, [], "s1", 1))[0][0] == "parallel"


def test_a_hermes_without_the_functions_is_left_alone() -> None:
    assert not batch_plan.install(type("Bare", (), {}), helpers, FILE_TOOLS)
    assert not batch_plan.install(
        type("A", (), {"_execute_tool_calls": print}), SimpleNamespace(), FILE_TOOLS
    )
