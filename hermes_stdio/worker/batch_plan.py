"""hermes decides which of a model message's tool calls may run at once by the paths
they name in the session's directory, not where the worker's shared shell was left.

When the model asks for several tool calls in one message, hermes runs the ones
that touch different files in parallel. It judges that by their paths, taking a
relative one in the live directory of the task's terminal environment. On the
local backend a worker's sessions share one environment, whose directory moves
with every session's commands and turns: a batch that named one file as
``notes.txt`` and as its absolute path, while another session's turn had moved
the shell, was judged to touch two files and ran both calls at once.

Contract: ``install(agent_class, dispatch_helpers, file_tools)`` wraps
``AIAgent._execute_tool_calls`` (which gets the task id) and hermes' planner
``_plan_tool_batch_segments`` in ``agent.tool_dispatch_helpers`` (where
``_execute_tool_calls`` looks it up at call time), once each. A plan made within a
task's ``_execute_tool_calls``, with the local terminal backend
(``terminal_dir.local()``), takes relative paths in the task's own directory
(``file_dir.own_dir``: where its file tools resolve them) when it has one;
every other plan is hermes' own. False, changing nothing, when hermes lacks one
of those functions.
"""

from __future__ import annotations

import contextvars
import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import file_dir, terminal_dir

_MARK = "_hermes_stdio_batch_plan"
_PLAN = "_plan_tool_batch_segments"
_TASK: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "hermes_stdio_batch_task", default=None
)


def install(agent_class: Any, dispatch_helpers: Any, file_tools: Any) -> bool:
    execute: Any = getattr(agent_class, "_execute_tool_calls", None)
    plan: Any = getattr(dispatch_helpers, _PLAN, None)
    own_dir = file_dir.own_dir(file_tools)
    if not (callable(execute) and callable(plan)) or own_dir is None:
        return False
    if not getattr(execute, _MARK, False):
        agent_class._execute_tool_calls = _within_task(execute)
    if not getattr(plan, _MARK, False):
        setattr(dispatch_helpers, _PLAN, _in_task_dir(plan, own_dir))
    return True


def _within_task(execute: Callable[..., Any]) -> Any:
    @functools.wraps(execute)
    def _execute_tool_calls(self: Any, *a: Any, **k: Any) -> Any:
        # hermes' signature: (assistant_message, messages, effective_task_id, ...)
        task_id = k.get("effective_task_id", a[2] if len(a) > 2 else None)
        token = _TASK.set(str(task_id) if task_id else None)
        try:
            return execute(self, *a, **k)
        finally:
            _TASK.reset(token)

    setattr(_execute_tool_calls, _MARK, True)
    return _execute_tool_calls


def _in_task_dir(planner: Callable[..., Any], own_dir: Callable[[str], str | None]) -> Any:
    @functools.wraps(planner)
    def plan(tool_calls: Any, *a: Any, **k: Any) -> Any:
        task_id = _TASK.get()
        if task_id and not a and terminal_dir.local():
            where = own_dir(task_id)
            if where:
                k["execution_cwd"] = Path(where)
        return planner(tool_calls, *a, **k)

    setattr(plan, _MARK, True)
    return plan
