"""worker/skill_changes.py: a successful skill_manage that changes a skill announces
that the profile's commands may have changed; nothing else does."""

from __future__ import annotations

import json
import types
from typing import Any

import pytest

from hermes_stdio.worker import skill_changes


def fake_tool(results: dict[str, Any]) -> types.SimpleNamespace:
    def skill_manage(action: str, name: str, **kwargs: Any) -> Any:
        return results[action]

    return types.SimpleNamespace(skill_manage=skill_manage)


OK = json.dumps({"success": True, "message": "done"})
FAILED = json.dumps({"success": False, "error": "no such skill"})


@pytest.mark.parametrize(
    ("action", "result", "announced"),
    [
        ("create", OK, 1),
        ("edit", OK, 1),
        ("patch", OK, 1),
        ("delete", OK, 1),
        ("delete", FAILED, 0),
        ("write_file", OK, 0),  # a skill's other files: no command changes
        ("remove_file", OK, 0),
        ("create", "not json", 0),
        ("create", None, 0),
    ],
)
def test_only_a_successful_change_of_a_skill_is_announced(
    action: str, result: Any, announced: int
) -> None:
    tool = fake_tool({action: result})
    calls: list[None] = []
    assert skill_changes.install(tool, lambda: calls.append(None))
    assert tool.skill_manage(action, "tidy", content="x") == result  # hermes' result as it was
    assert len(calls) == announced


def test_installing_twice_wraps_once() -> None:
    tool = fake_tool({"create": OK})
    calls: list[None] = []
    assert skill_changes.install(tool, lambda: calls.append(None))
    wrapped = tool.skill_manage
    assert skill_changes.install(tool, lambda: calls.append(None))
    assert tool.skill_manage is wrapped
    tool.skill_manage("create", "tidy")
    assert len(calls) == 1


def test_a_failing_announce_is_logged_and_the_tool_still_answers(
    capfd: pytest.CaptureFixture[str],
) -> None:
    tool = fake_tool({"create": OK})

    def broken() -> None:
        raise OSError("supervisor gone")

    assert skill_changes.install(tool, broken)
    assert tool.skill_manage("create", "tidy") == OK
    assert "supervisor gone" in capfd.readouterr().err


def test_a_module_without_skill_manage_is_left_alone() -> None:
    tool = types.SimpleNamespace()
    assert not skill_changes.install(tool, lambda: None)
    assert not hasattr(tool, "skill_manage")
