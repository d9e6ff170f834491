"""hermes' end of a session, for a session a host closed, whose worker stops, or
that is unloaded for idleness.

hermes' CLI (on exit), its TUI gateway (as a session closes) and its gateway (as
a session expires) tell the session's memory provider that the session is over
(``AIAgent.shutdown_memory_provider``: the provider keeps what it learned from
the conversation, then shuts down; the context engine is told too) and fire
plugins' (and shell hooks') ``on_session_finalize``. A worker only closed the
agent (``AIAgent.close``, which does neither), so an external memory provider
never kept anything of a session, and a finalize hook never ran.

Contract: ``end(agent, history, reason)``, for ``agent`` (a session's hermes
``AIAgent``) and its conversation ``history``, once per agent, on a thread that
runs no turn, before the agent is closed:
- ``closed`` (the host closed the session) or ``shutdown`` (its worker stops):
  both, in hermes' CLI's order: the provider is handed the conversation and
  shut down, then ``on_session_finalize`` runs with the agent's ``session_id``
  and ``platform`` and ``reason``;
- ``idle`` (unloaded for idleness; it goes on when next used): the provider is
  handed the conversation so far and shut down too (this agent is dropped; the
  next one starts its own), but no hook runs and the session's row in hermes'
  DB is left open when the agent is closed (as hermes' gateway leaves a session
  whose agent it evicts from its cache).
Neither step raising stops the other, nor reaches the caller (logged).
"""

from __future__ import annotations

import contextlib
from typing import Any

from ..transport.log import log

IDLE = "idle"


def end(agent: Any, history: list[dict[str, Any]], reason: str) -> None:
    if reason == IDLE:
        with contextlib.suppress(Exception):  # what AIAgent.close reads; hermes' gateway sets it
            agent._end_session_on_close = False
    # Not commit_memory_session at idle: that leaves the provider's threads and
    # connections to an agent no one uses again.
    hand_over = getattr(agent, "shutdown_memory_provider", None)
    if callable(hand_over):
        try:
            hand_over(list(history))
        except Exception as exc:
            log(f"worker: handing the session to its memory provider failed: {exc!r}")
    if reason == IDLE:
        return
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
