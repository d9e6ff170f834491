"""A session's file tools work in its own directory, not where the shell its worker's
sessions share was left.

hermes' file tools share one ``ShellFileOperations`` per terminal environment,
and on the local backend the sessions of a worker share one environment. Its
commands (``wc``, ``cat``, ``rg``, ``find``) run in that environment's live
directory, which every command of every session moves, and which hermes sets to a
session's workspace as its turn starts. ``read_file`` and ``search_files`` hand
a relative path to those commands as it is: session A's ``read_file("x.txt")``
read session B's ``x.txt`` once B's turn had started. ``write_file`` and
``patch`` resolve the path first, against the session's own directory, so they
did not.

Contract: ``install(file_tools)`` wraps hermes' ``_get_file_ops`` (which its
tools look up at call time) so that the object it gives a task runs each
command that names no directory in the task's directory: hermes'
``_resolve_base_dir(task_id)``, the one ``write_file`` and ``patch`` resolve a
relative path against (where the task's commands last ``cd``-ed to, else its
registered workspace, else a usable ``TERMINAL_CWD``). It is a shallow copy of
the shared object, made per call, so all else (its environment, its caches) is
the shared object's. A task with none of those (``_authoritative_workspace_root``
finds none: hermes would take the process's directory, which on a sandboxed
backend is no directory of the sandbox) gets the shared object, as in hermes.
Once; False, changing nothing, when the module lacks any of those functions.

``own_dir(file_tools)`` is that rule alone, for other wrappers: a function
giving a task's own directory, or None when hermes finds it none (itself None
when the module lacks either function).
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable
from typing import Any

_MARK = "_hermes_stdio_file_dir"


def own_dir(file_tools: Any) -> Callable[[str], str | None] | None:
    anchor: Any = getattr(file_tools, "_authoritative_workspace_root", None)
    base_dir: Any = getattr(file_tools, "_resolve_base_dir", None)
    if not (callable(anchor) and callable(base_dir)):
        return None

    def task_dir(task_id: str) -> str | None:
        return str(base_dir(task_id)) if anchor(task_id) else None

    return task_dir


def install(file_tools: Any) -> bool:
    get_ops: Any = getattr(file_tools, "_get_file_ops", None)
    task_dir = own_dir(file_tools)
    if not callable(get_ops) or task_dir is None:
        return False
    if not getattr(get_ops, _MARK, False):
        file_tools._get_file_ops = _in_task_dir(get_ops, task_dir)
    return True


def _in_task_dir(get_ops: Callable[..., Any], task_dir: Callable[[str], str | None]) -> Any:
    @functools.wraps(get_ops)
    def get_file_ops(task_id: str = "default") -> Any:
        shared = get_ops(task_id)
        run = getattr(type(shared), "_exec", None)
        if not callable(run):
            return shared
        where = task_dir(task_id)
        if where is None:
            return shared
        ops = copy.copy(shared)

        def exec_in_task_dir(command: str, cwd: str | None = None, **kwargs: Any) -> Any:
            return run(ops, command, cwd or where, **kwargs)

        ops._exec = exec_in_task_dir
        return ops

    setattr(get_file_ops, _MARK, True)
    return get_file_ops
