"""worker/hooks.py: a profile's shell hooks are registered through hermes' own
``register_from_config`` without ever asking, and each payload names the calling
session's directory."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from hermes_stdio.worker import hooks


class ShellHooks:
    """hermes' agent.shell_hooks, in short."""

    def __init__(self, fails: bool = False) -> None:
        self.calls: list[tuple[Any, bool]] = []
        self.fails = fails

    def register_from_config(self, cfg: Any, *, accept_hooks: bool = False) -> list[str]:
        if self.fails:
            raise RuntimeError("broken hooks block")
        self.calls.append((cfg, accept_hooks))
        return ["one", "two"]

    def _serialize_payload(self, event: str, kwargs: dict[str, Any]) -> str:
        if event == "odd":
            return "not json"
        return json.dumps({"hook_event_name": event, "cwd": "/profile-home", "extra": kwargs})


CONFIG = SimpleNamespace(load_config=lambda: {"hooks": {"pre_tool_call": []}})
RUNTIME_CWD = SimpleNamespace(resolve_agent_cwd=lambda: Path("/ws"))


def test_hooks_are_registered_as_hermes_gateway_does_and_told_the_sessions_directory() -> None:
    shell_hooks = ShellHooks()
    assert hooks.install(shell_hooks, CONFIG, RUNTIME_CWD) == 2
    assert shell_hooks.calls == [({"hooks": {"pre_tool_call": []}}, False)]
    body = json.loads(shell_hooks._serialize_payload("pre_tool_call", {"é": 1}))
    assert body == {"hook_event_name": "pre_tool_call", "cwd": "/ws", "extra": {"é": 1}}
    assert shell_hooks._serialize_payload("odd", {}) == "not json"


def test_the_payload_is_wrapped_once() -> None:
    shell_hooks = ShellHooks()
    hooks.install(shell_hooks, CONFIG, RUNTIME_CWD)
    wrapped = shell_hooks._serialize_payload
    hooks.install(shell_hooks, CONFIG, RUNTIME_CWD)
    assert shell_hooks._serialize_payload is wrapped


def test_a_config_hermes_cannot_register_leaves_the_worker_running(
    capfd: pytest.CaptureFixture[str],
) -> None:
    assert hooks.install(ShellHooks(fails=True), CONFIG, RUNTIME_CWD) == 0
    assert "shell hooks not registered: RuntimeError: broken hooks block" in capfd.readouterr().err


def test_a_hermes_without_the_functions_is_left_alone() -> None:
    bare = SimpleNamespace(register_from_config=lambda cfg, accept_hooks=False: [])
    assert hooks.install(bare, CONFIG, RUNTIME_CWD) == 0
    assert not hasattr(bare, "_serialize_payload")
    assert hooks.install(ShellHooks(), SimpleNamespace(), RUNTIME_CWD) == 0
