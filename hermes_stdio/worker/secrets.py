"""Secrets a skill needs, asked of the host: hermes' secret capture.

When the agent loads a skill (``skill_view``, also behind a ``/skill``
command) that declares environment variables (``required_environment_variables``
or ``setup.collect_secrets`` in its frontmatter) which neither the profile's
``.env`` nor the environment sets, hermes asks for each through one
process-wide callback (``skills_tool.set_secret_capture_callback``), as its
TUI gateway does. It asks only on an interactive surface (``HERMES_INTERACTIVE``,
which the adapter sets); elsewhere the agent is told to set the variable up
by hand.

Contract:
- ``install(skills_tool, save)`` makes this bridge hermes' callback (once);
  ``save`` is hermes' ``save_env_value_secure``.
- ``serving(session)`` is a context manager for a session's turn (or command
  expansion): a request made inside it, or in a thread hermes starts from it
  (hermes copies the context into its tool threads), belongs to that
  session; ``SERVING`` is the contextvar that says so, which ``inturn``
  carries to a subagent hermes runs within the turn. A request outside any,
  or while the session has no run, is skipped without asking.
- A request sends ``secret/requested`` (a fresh ``secretId``, the variable,
  the skill's prompt, name, help and purpose, ``timeoutMs``) through the
  session's current run and blocks until the host answers (``answer()``),
  ``timeout_s`` passes, or the run is interrupted or ends
  (``waits.HostWaits``).
- A value is given to ``save(name, value)``: hermes writes it to the
  profile's ``.env`` and this process's environment, after validating the
  name, refusing variables it denylists (such as ``PATH`` or ``LD_PRELOAD``)
  and stripping line breaks; a value with a NUL or a character that is not
  ASCII (``env_vars.unsavable``) is not given to hermes, and fails. It is
  stored if the environment has it
  afterwards (hermes skips a variable an administrator manages without
  raising). Every request is closed by one ``secret/resolved``: stored,
  skipped (null or empty), failed (not stored, or ``save`` raised),
  timed_out or cancelled. The value is never sent back, logged or kept here.
- ``answer(session_id, secret_id, value)`` is ``answered`` / ``skipped``, or
  None when that request is not pending in that session.
"""

from __future__ import annotations

import contextvars
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Literal

from ..transport.log import log
from .env_vars import unsavable
from .state import Session
from .waits import HostWaits

# hermes' TUI waits this long for a secret (its default for a blocking prompt).
TIMEOUT_S = 300.0

SERVING: contextvars.ContextVar[Session | None] = contextvars.ContextVar(
    "hermes_stdio_secret_session", default=None
)


def _result(name: str, stored: bool) -> dict[str, Any]:
    # The shape hermes' skill tool reads from its callback (and hermes' TUI returns).
    return {"success": stored, "stored_as": name, "validated": False, "skipped": not stored}


class SecretBridge:
    def __init__(self, timeout_s: float = TIMEOUT_S) -> None:
        self._timeout_s = timeout_s
        self._waits: HostWaits[str] = HostWaits("secret")
        self._save: Callable[[str, str], object] | None = None

    def install(self, skills_tool: Any, save: Callable[[str, str], object]) -> None:
        if self._save is None:
            self._save = save
            skills_tool.set_secret_capture_callback(self.capture)

    @contextmanager
    def serving(self, session: Session) -> Iterator[None]:
        token = SERVING.set(session)
        try:
            yield
        finally:
            SERVING.reset(token)

    def capture(
        self, env_var: str, prompt: str, metadata: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """hermes' secret capture callback."""
        session = SERVING.get()
        run = session.run if session is not None else None
        if session is None or run is None:
            return _result(env_var, False)
        meta = metadata or {}
        secret_id = self._waits.open(session.session_id)
        run.emit(
            "secret/requested",
            {
                "secretId": secret_id,
                "envVar": env_var,
                "prompt": prompt,
                "skillName": str(meta.get("skill_name") or ""),
                "help": _text(meta.get("help")),
                "requiredFor": _text(meta.get("required_for")),
                "timeoutMs": int(self._timeout_s * 1000),
            },
        )
        waited, value = self._waits.wait(secret_id, run, self._timeout_s)
        if waited != "answered":
            outcome: str = waited
        elif not value:
            outcome = "skipped"
        else:
            outcome = "stored" if self._stored(env_var, value) else "failed"
        run.emit("secret/resolved", {"secretId": secret_id, "outcome": outcome})
        return _result(env_var, outcome == "stored")

    def _stored(self, env_var: str, value: str) -> bool:
        assert self._save is not None  # hermes calls back only once installed
        if (why := unsavable(value)) is not None:
            log(f"worker: secret {env_var} not saved: {why}")
            return False
        try:
            self._save(env_var, value)
            return bool(os.environ.get(env_var))
        except Exception as exc:  # hermes refused the name, or the write failed
            # The type only: a message might quote what it was given.
            log(f"worker: secret {env_var} not saved: {type(exc).__name__}")
            return False

    def answer(
        self, session_id: str, secret_id: str, value: str | None
    ) -> Literal["answered", "skipped"] | None:
        if not self._waits.answer(session_id, secret_id, value or ""):
            return None
        return "answered" if value else "skipped"


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None
