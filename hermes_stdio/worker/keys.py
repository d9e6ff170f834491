"""The key hermes files a session's approvals and background processes under, and
the platform hermes runs a worker's agents as.

Contract: ``PLATFORM`` is that platform (hermes' ``cli``: its toolsets, its
disabled skills). ``hermes_session_key(session_id)`` is one key per session id, never
equal to hermes' fallback key ``default`` (what hermes uses on a thread that
carries no session), whatever id the host chose: a host session named
``default`` must not receive, or approve, another thread's commands.
"""

from __future__ import annotations

PREFIX = "hermes-stdio:"
PLATFORM = "cli"


def hermes_session_key(session_id: str) -> str:
    return PREFIX + session_id
