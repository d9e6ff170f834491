"""hermes' end of a session, for a session a host closed or whose worker stops.

hermes' CLI (on exit), its TUI gateway (as a session closes) and its gateway (as
a session expires) tell the session's memory provider that the session is over
(``AIAgent.shutdown_memory_provider``: the provider keeps what it learned from
the conversation, then shuts down; the context engine is told too) and fire
plugins' (and shell hooks') ``on_session_finalize``. A worker only closed the
agent (``AIAgent.close``, which does neither), so an external memory provider
never kept anything of a session, and a finalize hook never ran.

Contract: ``end(agent, history, reason)`` does both, in hermes' CLI's order,
for ``agent`` (a session's hermes ``AIAgent``) and its conversation
``history``: the provider first, then ``on_session_finalize`` with the
agent's ``session_id`` and ``platform`` and ``reason``. Neither raising stops
the other, nor reaches the caller (logged). Call it once per session, on a
thread that runs no turn, before the agent is closed. A session unloaded for
idleness is not ended: it goes on when it is next used.
"""

from __future__ import annotations

from typing import Any

from ..transport.log import log


def end(agent: Any, history: list[dict[str, Any]], reason: str) -> None:
    shutdown = getattr(agent, "shutdown_memory_provider", None)
    if callable(shutdown):
        try:
            shutdown(list(history))
        except Exception as exc:
            log(f"worker: ending the session's memory provider failed: {exc!r}")
    try:
        from hermes_cli.plugins import invoke_hook
    except ImportError:
        return
    try:
        invoke_hook(
            "on_session_finalize",
            session_id=getattr(agent, "session_id", None),
            platform=getattr(agent, "platform", None),
            reason=reason,
        )
    except Exception as exc:  # hermes guards each callback; this is its own failure
        log(f"worker: on_session_finalize failed: {exc!r}")
