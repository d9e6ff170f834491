"""The key hermes files a session's approvals and background processes under.

Contract: ``hermes_session_key(session_id)`` is one key per session id, never
equal to hermes' fallback key ``default`` (what hermes uses on a thread that
carries no session), whatever id the host chose: a host session named
``default`` must not receive, or approve, another thread's commands.
"""

from __future__ import annotations

PREFIX = "hermes-stdio:"


def hermes_session_key(session_id: str) -> str:
    return PREFIX + session_id
