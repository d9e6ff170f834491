"""The tools an agent offers its model, for ``tool/list``.

Contract: ``described(definitions, enabled, disabled, toolset_of)`` turns
hermes' OpenAI-style tool definitions (``{"type": "function", "function":
{"name", "description", ...}}``) into ``ToolListResult`` fields: each tool
once, by name, with its toolset (``toolset_of``, hermes' registry lookup) and
description; the toolsets the agent was built with (None: all) and those it
leaves out. Definitions without a name are skipped.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any


def described(
    definitions: Iterable[Any],
    enabled: Any,
    disabled: Any,
    toolset_of: Callable[[str], Any],
) -> dict[str, Any]:
    tools: dict[str, dict[str, Any]] = {}
    for definition in definitions:
        fn = definition.get("function") if isinstance(definition, dict) else None
        if not isinstance(fn, dict):
            continue
        name = fn.get("name")
        if not isinstance(name, str) or not name or name in tools:
            continue
        toolset = toolset_of(name)
        tools[name] = {
            "name": name,
            "toolset": str(toolset) if toolset else None,
            "description": str(fn.get("description") or ""),
        }
    return {
        "tools": [tools[name] for name in sorted(tools)],
        "enabled_toolsets": sorted(str(t) for t in enabled) if enabled is not None else None,
        "disabled_toolsets": sorted(str(t) for t in disabled or []),
    }
