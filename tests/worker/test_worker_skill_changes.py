"""worker/skill_changes.py: every skill_manage call is followed by a look at the
profile's commands, on the calling thread; hermes' answer is left as it was."""

from __future__ import annotations

import json
import types
from typing import Any

import pytest

from hermes_stdio.worker import skill_changes

OK = json.dumps({"success": True, "message": "done"})


def fake_tool(result: Any) -> types.SimpleNamespace:
    def skill_manage(action: str, name: str, **kwargs: Any) -> Any:
        if isinstance(result, Exception):
            raise result
        return result

    return types.SimpleNamespace(skill_manage=skill_manage)


@pytest.mark.parametrize("action", ["create", "patch", "delete", "write_file"])
def test_each_call_is_followed_by_one_look_and_returns_hermes_result(action: str) -> None:
    tool = fake_tool(OK)
    calls: list[None] = []
    assert skill_changes.install(tool, lambda: calls.append(None))
    assert tool.skill_manage(action, "tidy", content="x") == OK
    assert len(calls) == 1


def test_a_call_that_raises_is_looked_after_too_and_still_raises() -> None:
    tool = fake_tool(ValueError("bad frontmatter"))
    calls: list[None] = []
    assert skill_changes.install(tool, lambda: calls.append(None))
    with pytest.raises(ValueError, match="bad frontmatter"):
        tool.skill_manage("create", "tidy")
    assert len(calls) == 1


def test_installing_twice_wraps_once() -> None:
    tool = fake_tool(OK)
    calls: list[None] = []
    assert skill_changes.install(tool, lambda: calls.append(None))
    wrapped = tool.skill_manage
    assert skill_changes.install(tool, lambda: calls.append(None))
    assert tool.skill_manage is wrapped
    tool.skill_manage("create", "tidy")
    assert len(calls) == 1


def test_a_failing_look_is_logged_and_the_tool_still_answers(
    capfd: pytest.CaptureFixture[str],
) -> None:
    tool = fake_tool(OK)

    def broken() -> None:
        raise OSError("disk gone")

    assert skill_changes.install(tool, broken)
    assert tool.skill_manage("create", "tidy") == OK
    assert "disk gone" in capfd.readouterr().err


def test_a_module_without_skill_manage_is_left_alone() -> None:
    tool = types.SimpleNamespace()
    assert not skill_changes.install(tool, lambda: None)
    assert not hasattr(tool, "skill_manage")
