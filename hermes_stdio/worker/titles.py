"""Session titles, the way hermes' TUI gets them.

Contract: ``auto_title(maybe_auto_title, db, agent, history, message, final,
announce)`` hands a finished exchange to hermes' ``maybe_auto_title`` (passed
in), which titles a session after one of its first two exchanges unless it
has a title or the profile switches titling off
(``auxiliary.title_generation.enabled``). The title is generated on hermes'
own background thread with the agent's model and provider (skipped if the
session switched model meanwhile), saved in the profile's database, and then
``announce(title)`` is called on that thread.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_RUNTIME = ("model", "provider", "base_url", "api_key", "api_mode")


def auto_title(
    maybe_auto_title: Callable[..., None],
    db: Any,
    agent: Any,
    history: list[dict[str, Any]],
    message: str,
    final: str,
    announce: Callable[[str], None],
) -> None:
    if not message.strip() or not final.strip():
        return
    model, provider = getattr(agent, "model", None), getattr(agent, "provider", None)
    maybe_auto_title(
        db,
        agent.session_id,
        message,
        final,
        history,
        main_runtime={key: getattr(agent, key, None) for key in _RUNTIME},
        runtime_validator=lambda: (agent.model, agent.provider) == (model, provider),
        title_callback=announce,
    )
