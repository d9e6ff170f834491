"""A push when the profile's slash commands may have changed: hermes' agent
created, edited or deleted one of its skills.

hermes' ``skill_manage`` tool is how an agent (a session's, a subagent, or
hermes' own background review) changes the profile's skills, and so its slash
commands (``command/list``): a new skill is a new command, an edit may change
its description. A host that shows a command palette would otherwise have to
ask again after every run.

Contract: ``install(skill_manager_tool, announce)`` wraps the module's
``skill_manage`` (its registry entry calls it by name), once: after a call
whose action is one of ``CHANGES`` and whose result (hermes' JSON) says
``"success": true``, ``announce()`` is called on the calling thread. A failing
``announce`` is logged; hermes' result is returned unchanged either way. It
returns False and changes nothing when the module has no ``skill_manage``.
Files changed by anything else (the user, another program) are not seen:
``command/list`` scans afresh each time.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ..transport.log import log

CHANGES = frozenset({"create", "edit", "patch", "delete"})  # not a skill's other files


def succeeded(result: Any) -> bool:
    try:
        return bool(json.loads(result).get("success")) if isinstance(result, str) else False
    except (ValueError, AttributeError):
        return False


def install(skill_manager_tool: Any, announce: Callable[[], None]) -> bool:
    manage = getattr(skill_manager_tool, "skill_manage", None)
    if not callable(manage):
        return False
    if getattr(manage, "announces", False):
        return True

    def skill_manage(action: str, *args: Any, **kwargs: Any) -> Any:
        result = manage(action, *args, **kwargs)
        if action in CHANGES and succeeded(result):
            try:
                announce()
            except Exception as exc:
                log(f"worker: command/listChanged was not sent: {exc!r}")
        return result

    skill_manage.announces = True  # type: ignore[attr-defined]
    skill_manager_tool.skill_manage = skill_manage
    return True
