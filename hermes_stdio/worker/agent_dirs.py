"""An agent's checkpoints and directory hints work in its session's project, not in the
worker's process directory.

hermes gives each agent two helpers that take their directory from the process
(``TERMINAL_CWD``, else its working directory). In hermes' CLI that is the
user's project. In a worker it is the profile's home, shared by every session:
- its checkpoint manager snapshots a project before a ``write_file`` or
  ``patch`` (the edited file's project; a relative path taken in the process's
  directory) and before a command it finds destructive (``rm``, ``mv``,
  ``sed -i``...: the call's ``workdir``, else the process's directory). With
  checkpoints on, ``write_file("notes.txt")`` or ``rm notes.txt`` in the
  session's workspace took no snapshot of it.
- its subdirectory hint tracker appends a directory's ``AGENTS.md`` (and the
  like) to the result of the first tool call that works there, only for
  directories in its working directory, which its system prompt's context
  comes from. In a worker no workspace's subdirectory was ever hinted.

Contract: ``install(agent_class, file_tools, runtime_cwd)`` wraps
``AIAgent.run_conversation`` once, so that as an agent (a session's, a
subagent's, a cron job's) starts a conversation in the worker, with the local
terminal backend (``terminal_dir.local()``; a sandbox's paths are left to
hermes):
- its checkpoint manager is bound (``bind_checkpoints``, once) to its task's
  directory: ``file_dir.own_dir`` of the agent's current task id, read at each
  call; where ``write_file`` puts a relative path and the task's commands run;
- its hint tracker is bound (``bind_hints``) to hermes'
  ``runtime_cwd.resolve_agent_cwd()`` on the conversation's thread: for a
  session's turn, its workspace, the directory its system prompt names and
  takes context from (so that one is not hinted again), and to the same task
  directory.
False, changing nothing, when hermes lacks what it needs.

``bind_checkpoints(manager, task_dir)``: a relative file path or directory given
to ``get_working_dir_for_path`` or ``ensure_checkpoint`` is taken in
``task_dir()``, and a destructive command's checkpoint for hermes' fallback
directory is taken in ``task_dir()``, where the command runs.
``bind_hints(tracker, project, task_dir)``: the tracker's working directory is
``project``, counted as hinted already, and a relative ``path``, ``file_path``
or ``workdir`` argument is found in ``task_dir()``. Where ``task_dir()`` is
None, hermes' helpers work as they do.
"""

from __future__ import annotations

import functools
import os
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import file_dir, terminal_dir

_MARK = "_hermes_stdio_agent_dirs"
_TERMINAL = "before terminal"  # how hermes names a destructive command's checkpoint
_PATH_KEYS = ("path", "file_path", "workdir")  # the arguments hermes' tracker reads

TaskDir = Callable[[], "str | None"]


def install(agent_class: Any, file_tools: Any, runtime_cwd: Any) -> bool:
    converse: Any = getattr(agent_class, "run_conversation", None)
    own_dir = file_dir.own_dir(file_tools)
    project_of: Any = getattr(runtime_cwd, "resolve_agent_cwd", None)
    if not (callable(converse) and callable(project_of)) or own_dir is None:
        return False
    if getattr(converse, _MARK, False):
        return True

    @functools.wraps(converse)
    def run_conversation(self: Any, *args: Any, **kwargs: Any) -> Any:
        if terminal_dir.local():
            task_dir = _task_dir_of(weakref.ref(self), own_dir)
            manager = getattr(self, "_checkpoint_mgr", None)
            if manager is not None:
                bind_checkpoints(manager, task_dir)
            tracker = getattr(self, "_subdirectory_hints", None)
            if tracker is not None:
                bind_hints(tracker, Path(project_of()), task_dir)
        return converse(self, *args, **kwargs)

    setattr(run_conversation, _MARK, True)
    agent_class.run_conversation = run_conversation
    return True


def _task_dir_of(agent: weakref.ref[Any], own_dir: Callable[[str], str | None]) -> TaskDir:
    def task_dir() -> str | None:
        task_id = getattr(agent(), "_current_task_id", None)
        if not task_id or not terminal_dir.local():
            return None
        return own_dir(str(task_id))

    return task_dir


def bind_checkpoints(manager: Any, task_dir: TaskDir) -> bool:
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


def bind_hints(tracker: Any, project: Path, task_dir: TaskDir) -> bool:
    check: Any = getattr(tracker, "check_tool_call", None)
    hinted: Any = getattr(tracker, "_loaded_dirs", None)
    if not (callable(check) and isinstance(hinted, set) and hasattr(tracker, "working_dir")):
        return False
    try:
        project = project.resolve()
    except (OSError, RuntimeError):
        return False
    tracker.working_dir = project
    hinted.add(project)
    if getattr(tracker, _MARK, False):
        return True

    def check_tool_call(tool_name: str, tool_args: Any) -> Any:
        if isinstance(tool_args, dict):
            relative = [k for k in _PATH_KEYS if _relative(tool_args.get(k))]
            if relative:
                tool_args = {**tool_args, **{k: _in(task_dir, tool_args[k]) for k in relative}}
        return check(tool_name, tool_args)

    tracker.check_tool_call = check_tool_call
    setattr(tracker, _MARK, True)
    return True


def _relative(path: object) -> bool:
    return isinstance(path, str) and bool(path.strip()) and not path.startswith(("/", "~"))


def _fallback(working_dir: object) -> bool:
    """Whether hermes took this directory for a command that named none."""
    return not working_dir or working_dir == os.getenv("TERMINAL_CWD", os.getcwd())


def _in(task_dir: TaskDir, path: str) -> str:
    where = task_dir()
    return os.path.join(where, path) if where else path
