"""worker/gated_calls.py: while hermes decides whether a plugin's hook blocks a tool call
or sends it for approval, the call is known on that thread, as tool.started shows it."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from hermes_stdio.worker import gated_calls


def plugins(seen: list[Any]) -> SimpleNamespace:
    def resolve_pre_tool_block(tool_name: str, args: Any, **kw: Any) -> str | None:
        seen.append(gated_calls.current())
        return "blocked" if tool_name == "rm" else None

    return SimpleNamespace(resolve_pre_tool_block=resolve_pre_tool_block)


def redact(name: str, args: Any) -> Any:
    return {**args, "token": "***"} if "token" in args else args


def test_the_call_is_known_while_hermes_decides_and_forgotten_after() -> None:
    seen: list[Any] = []
    module = plugins(seen)
    assert gated_calls.install(module, redact)
    args = {"command": "ls", "token": "sk-secret"}
    assert module.resolve_pre_tool_block("terminal", args, tool_call_id="call-1") is None
    assert module.resolve_pre_tool_block("rm", {}, task_id="t") == "blocked"
    assert seen == [
        {"toolCallId": "call-1", "name": "terminal", "args": {"command": "ls", "token": "***"}},
        {"toolCallId": "", "name": "rm", "args": {}},
    ]
    assert gated_calls.current() is None


def test_a_redactor_that_fails_shows_no_arguments_rather_than_raw_ones() -> None:
    seen: list[Any] = []
    module = plugins(seen)

    def broken(name: str, args: Any) -> Any:
        raise ValueError("no")

    gated_calls.install(module, broken)
    module.resolve_pre_tool_block("terminal", {"command": "cat secret"}, tool_call_id="c")
    assert seen == [{"toolCallId": "c", "name": "terminal", "args": {}}]


def test_installed_once_and_not_without_hermes_function() -> None:
    module = plugins([])
    gated_calls.install(module, redact)
    wrapped = module.resolve_pre_tool_block
    assert gated_calls.install(module, redact)
    assert module.resolve_pre_tool_block is wrapped
    assert not gated_calls.install(SimpleNamespace(), redact)
