"""A look at the profile's slash commands each time hermes' agent has managed
its skills.

hermes' ``skill_manage`` tool is how an agent (a session's, a subagent, or
hermes' own background review) changes the profile's skills, and so its slash
commands (``command/list``): a new skill is a new command, an edit may change
its description. The file watch (``command_watch``) sees those changes too, a
moment later and only where inotify works; this look makes the push come
before the tool's result, everywhere.

Contract: ``install(skill_manager_tool, changed)`` wraps the module's
``skill_manage`` (its registry entry calls it by name), once: after each call,
``changed()`` is called on the calling thread (``CommandWatch.check``, which
reports only a real change, so a failed call or a skill's other files cost one
scan and send nothing). A failing ``changed`` is logged; hermes' result is
returned unchanged either way. It returns False and changes nothing when the
module has no ``skill_manage``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..transport.log import log


def install(skill_manager_tool: Any, changed: Callable[[], None]) -> bool:
    manage = getattr(skill_manager_tool, "skill_manage", None)
    if not callable(manage):
        return False
    if getattr(manage, "announces", False):
        return True

    def skill_manage(*args: Any, **kwargs: Any) -> Any:
        try:
            return manage(*args, **kwargs)
        finally:
            try:
                changed()
            except Exception as exc:
                log(f"worker: the profile's slash commands were not looked at again: {exc!r}")

    skill_manage.announces = True  # type: ignore[attr-defined]
    skill_manager_tool.skill_manage = skill_manage
    return True
