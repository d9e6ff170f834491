"""hermes' checkpoints snapshot the session's project, not the worker's process directory.

Before a ``write_file`` or ``patch``, hermes snapshots the project of the file it
edits; before a command it finds destructive (``rm``, ``mv``, ``sed -i``...), the
command's directory: the call's ``workdir``, else ``TERMINAL_CWD``, else the
process's directory. It resolves a relative file path, or ``workdir``, against
the process's directory too. In hermes' CLI that is the user's project. In a
worker it is the profile's home, shared by every session: with checkpoints on,
the agent's ``write_file("notes.txt")`` or ``rm notes.txt`` in the session's
workspace took no snapshot of it, and ``checkpoint/restore`` had nothing to
bring back.

Contract: ``install(agent_class, file_tools)`` wraps ``AIAgent.run_conversation``
once, so that each agent that starts a conversation in the worker (a session's,
a subagent's, a cron job's) has its checkpoint manager bound (``bind``) to the
directory of the task it runs: hermes' ``file_dir.own_dir``, where ``write_file``
puts a relative path and the task's commands run, read at each call from the
agent's current task id. Only with the local terminal backend
(``terminal_dir.local()``); elsewhere the paths name a sandbox's files and are
left to hermes. False, changing nothing, when hermes lacks what it needs.

``bind(manager, task_dir)``, once per manager: a relative file path or directory
given to its ``get_working_dir_for_path`` or ``ensure_checkpoint`` is taken in
``task_dir()``, and a destructive command's checkpoint for hermes' fallback
directory is taken in ``task_dir()`` instead, where the command runs. When
``task_dir()`` is None, hermes' manager works as it does.
"""

from __future__ import annotations

import functools
import os
import weakref
from collections.abc import Callable
from typing import Any

from . import file_dir, terminal_dir

_MARK = "_hermes_stdio_checkpoint_dirs"
_TERMINAL = "before terminal"  # how hermes names a destructive command's checkpoint


def install(agent_class: Any, file_tools: Any) -> bool:
    converse: Any = getattr(agent_class, "run_conversation", None)
    own_dir = file_dir.own_dir(file_tools)
    if not callable(converse) or own_dir is None:
        return False
    if getattr(converse, _MARK, False):
        return True

    @functools.wraps(converse)
    def run_conversation(self: Any, *args: Any, **kwargs: Any) -> Any:
        manager = getattr(self, "_checkpoint_mgr", None)
        if manager is not None and not getattr(manager, _MARK, False):
            bind(manager, _task_dir_of(weakref.ref(self), own_dir))
        return converse(self, *args, **kwargs)

    setattr(run_conversation, _MARK, True)
    agent_class.run_conversation = run_conversation
    return True


def _task_dir_of(
    agent: weakref.ref[Any], own_dir: Callable[[str], str | None]
) -> Callable[[], str | None]:
    def task_dir() -> str | None:
        task_id = getattr(agent(), "_current_task_id", None)
        if not task_id or not terminal_dir.local():
            return None
        return own_dir(str(task_id))

    return task_dir


def bind(manager: Any, task_dir: Callable[[], str | None]) -> bool:
    where_for: Any = getattr(manager, "get_working_dir_for_path", None)
    ensure: Any = getattr(manager, "ensure_checkpoint", None)
    if not (callable(where_for) and callable(ensure)):
        return False
    if getattr(manager, _MARK, False):
        return True

    def get_working_dir_for_path(file_path: str) -> Any:
        return where_for(_in(task_dir, file_path) if _relative(file_path) else file_path)

    def ensure_checkpoint(working_dir: str, reason: str = "auto") -> Any:
        if _relative(working_dir):
            working_dir = _in(task_dir, working_dir)
        elif str(reason).startswith(_TERMINAL) and _fallback(working_dir):
            working_dir = task_dir() or working_dir
        return ensure(working_dir, reason)

    manager.get_working_dir_for_path = get_working_dir_for_path
    manager.ensure_checkpoint = ensure_checkpoint
    setattr(manager, _MARK, True)
    return True


def _relative(path: object) -> bool:
    return isinstance(path, str) and bool(path) and not path.startswith(("/", "~"))


def _fallback(working_dir: object) -> bool:
    """Whether hermes took this directory for a command that named none."""
    return not working_dir or working_dir == os.getenv("TERMINAL_CWD", os.getcwd())


def _in(task_dir: Callable[[], str | None], path: str) -> str:
    where = task_dir()
    return os.path.join(where, path) if where else path
