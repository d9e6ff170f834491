"""A profile's shell hooks run in its worker, as in hermes' CLI and gateway.

hermes runs the commands a profile's ``config.yaml`` lists under ``hooks:`` (by
event: ``pre_tool_call``, ``post_tool_call``, ``pre_llm_call``...) once its CLI
or its gateway registered them at start-up; a ``pre_tool_call`` hook can block a
tool call (only a Python plugin's hook can send one for approval: ``gated_calls``).
A worker is neither, so the user's hooks (their policy, too) silently did not run.

Contract: ``install(shell_hooks, config, runtime_cwd)``, once per worker process
(hermes' ``agent.shell_hooks``, ``hermes_cli.config`` and ``agent.runtime_cwd``
modules), registers the profile's hooks through hermes' own
``register_from_config``, as its gateway does: only a hook its user allowed
(hermes' allowlist in the profile's home, where its CLI records a yes), or all
of them with ``HERMES_ACCEPT_HOOKS`` or ``hooks_auto_accept: true``. It never
asks: a worker has no terminal (hermes asks only on one). It returns how many
it registered; 0, changing nothing, when hermes lacks those functions. The
payload a hook reads names as its ``cwd`` the calling session's directory
(``runtime_cwd.resolve_agent_cwd()``: its workspace, the one its system prompt
names), not the worker's process directory; ``hook_runner`` runs the hook
there, and stops it when its turn is interrupted. Hooks are read once, as hermes'
gateway reads them: a change applies after ``worker/restart``.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any

from ..transport.log import log

_MARK = "_hermes_stdio_hooks"


def install(shell_hooks: Any, config: Any, runtime_cwd: Any) -> int:
    register: Any = getattr(shell_hooks, "register_from_config", None)
    payload: Any = getattr(shell_hooks, "_serialize_payload", None)
    load: Any = getattr(config, "load_config", None)
    where: Any = getattr(runtime_cwd, "resolve_agent_cwd", None)
    if not all(callable(f) for f in (register, payload, load, where)):
        return 0
    if not getattr(payload, _MARK, False):
        shell_hooks._serialize_payload = _in_session_dir(payload, where)
    try:
        registered = register(load(), accept_hooks=False)
    except Exception as exc:  # a broken hook must not stop the worker (nor does it hermes)
        log(f"worker: shell hooks not registered: {type(exc).__name__}: {exc}")
        return 0
    return len(registered or ())


def _in_session_dir(payload: Callable[..., str], where: Callable[[], Any]) -> Any:
    @functools.wraps(payload)
    def serialize(event: str, kwargs: Any) -> str:
        text = payload(event, kwargs)
        try:
            body = json.loads(text)
            body["cwd"] = str(where())
            return json.dumps(body, ensure_ascii=False, default=str)
        except (ValueError, TypeError, OSError):  # hermes' text, as it made it
            return text

    setattr(serialize, _MARK, True)
    return serialize
