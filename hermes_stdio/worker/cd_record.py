"""A session's terminal commands and its other tools agree on where it works.

hermes keeps where each session's commands last ``cd``-ed to (``terminal_tool``'s
session cwd record). Its terminal files and reads that record under the
approval session key of the calling context, but its file tools, its
``execute_code`` scripts and a subagent's start (which inherits its parent's
directory) read it under the agent's task id. In hermes' CLI, TUI and ACP
adapter the two are one string. In a worker they are not: the key is
``keys.hermes_session_key(session_id)`` and the task id the session's id. So
after ``cd sub``, the session's ``read_file("notes.md")``, a script's
``os.getcwd()`` and a subagent still worked in the workspace, while its next
command ran in ``sub``.

Contract: ``install(terminal_tool)`` replaces the module's
``record_session_cwd``, ``get_session_cwd`` and ``clear_session_cwd`` (hermes'
tools look them up there at call time) with ones that file a key
``hermes_session_key(x)`` as ``x``, once; other keys, and the key of a session
whose id is hermes' fallback key ``default``, are kept as they are. It returns
False, changing nothing, when the module lacks any of the three.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from .keys import PREFIX

_NAMES = ("record_session_cwd", "get_session_cwd", "clear_session_cwd")
_MARK = "_hermes_stdio_cd_record"
_FALLBACK = "default"  # hermes' record for a thread with no key: never a session's


def task_key(key: Any) -> Any:
    """The name hermes' other tools read a session's record under."""
    if isinstance(key, str) and key.startswith(PREFIX):
        session_id = key[len(PREFIX) :]
        if session_id and session_id != _FALLBACK:
            return session_id
    return key


def install(terminal_tool: Any) -> bool:
    calls: list[Any] = [getattr(terminal_tool, name, None) for name in _NAMES]
    if not all(callable(call) for call in calls):
        return False
    for name, call in zip(_NAMES, calls, strict=True):
        if not getattr(call, _MARK, False):
            setattr(terminal_tool, name, _by_task_key(call))
    return True


def _by_task_key(call: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(call)
    def filed(key: Any, *args: Any, **kwargs: Any) -> Any:
        return call(task_key(key), *args, **kwargs)

    setattr(filed, _MARK, True)
    return filed
