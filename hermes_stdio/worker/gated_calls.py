"""Which tool call a hermes plugin sent for the host's approval.

A plugin's ``pre_tool_call`` hook may answer ``{"action": "approve", ...}``:
hermes then asks the user before the call runs, through the same gate as a
dangerous command. What it asks names only the tool (``<terminal> (plugin
approval rule)``) and the plugin's message, and it asks before the call's
``tool.started``: a host could not show what it was approving.

Contract: ``install(plugins, redact)`` wraps hermes' ``resolve_pre_tool_block``
in ``hermes_cli.plugins`` (its tool dispatch looks it up there at call time)
once; False, changing nothing, when it has none. While it runs, ``current()``
on that thread (and in what it calls) gives the call it decides on as wire
JSON: ``toolCallId``, ``name`` and ``args`` as hermes' ``redact(name, args)``
shows them in ``tool.started``; None elsewhere.
"""

from __future__ import annotations

import contextvars
import functools
from collections.abc import Callable
from typing import Any

from ..wire.jsonrpc import to_jsonable

_MARK = "_hermes_stdio_gated_calls"
# Made into wire JSON only when asked for: most calls are never sent for approval.
_CURRENT: contextvars.ContextVar[Callable[[], dict[str, Any]] | None] = contextvars.ContextVar(
    "hermes_stdio_gated_call", default=None
)


def current() -> dict[str, Any] | None:
    shown = _CURRENT.get()
    return None if shown is None else shown()


def install(plugins: Any, redact: Callable[[str, Any], Any]) -> bool:
    resolve: Any = getattr(plugins, "resolve_pre_tool_block", None)
    if not callable(resolve):
        return False
    if getattr(resolve, _MARK, False):
        return True

    @functools.wraps(resolve)
    def resolve_pre_tool_block(tool_name: str, args: Any = None, *rest: Any, **kw: Any) -> Any:
        call_id = kw.get("tool_call_id")
        token = _CURRENT.set(lambda: _call(redact, tool_name, args, call_id))
        try:
            return resolve(tool_name, args, *rest, **kw)
        finally:
            _CURRENT.reset(token)

    setattr(resolve_pre_tool_block, _MARK, True)
    plugins.resolve_pre_tool_block = resolve_pre_tool_block
    return True


def _call(redact: Callable[[str, Any], Any], name: Any, args: Any, call_id: Any) -> dict[str, Any]:
    shown: Any = args
    try:
        shown = redact(str(name), args) or args
    except Exception:  # hermes' redactor failed: show no arguments rather than raw ones
        shown = {}
    return {
        "toolCallId": str(call_id or ""),
        "name": str(name or ""),
        "args": to_jsonable(shown) if isinstance(shown, dict) else {},
    }
