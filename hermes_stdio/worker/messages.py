"""OpenAI-style conversation messages crossing the wire.

Contract:
- ``public(messages)``: copies for the host, without hermes' private
  bookkeeping keys (those starting with ``_``, e.g. its persisted-row marker).
- ``checked(raw)``: a conversation the host sends to replace one: a non-empty
  list of objects, each with a ``role`` of system, user, assistant or tool.
  Returns fresh copies without private keys; raises ``ValueError`` naming the
  first bad item by its index.
- ``flush_turn(agent)``: writes what a hermes agent's current turn produced so
  far to its session database, through hermes' own flush (which skips rows
  already written), without hermes' retry scaffolding; a failure is reported
  on stderr, never raised.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..transport.log import log

ROLES = frozenset({"system", "user", "assistant", "tool"})


def _strip(message: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in message.items() if not (isinstance(k, str) and k.startswith("_"))}


def public(messages: Iterable[Any]) -> list[dict[str, Any]]:
    return [_strip(m) for m in messages if isinstance(m, dict)]


def checked(raw: list[Any]) -> list[dict[str, Any]]:
    if not raw:
        raise ValueError("messages must not be empty")
    out = []
    for i, item in enumerate(raw):
        if not isinstance(item, dict) or item.get("role") not in ROLES:
            raise ValueError(f"messages[{i}] needs a role: one of {', '.join(sorted(ROLES))}")
        out.append(_strip(item))
    return out


def flush_turn(agent: Any) -> None:
    messages = getattr(agent, "_session_messages", None)
    flush = getattr(agent, "_flush_messages_to_session_db", None)
    if not isinstance(messages, list) or not messages or not callable(flush):
        return
    try:
        strip = getattr(agent, "_drop_trailing_empty_response_scaffolding", None)
        if callable(strip):
            strip(messages)  # hermes' retry nudges are not part of the conversation
        flush(messages)
    except Exception as exc:
        log(f"worker: saving the turn's transcript failed: {exc!r}")
