"""Sudo passwords: a terminal command's ``sudo``, answered by the host.

hermes asks for a sudo password through a per-thread callback (its terminal
tool's ``set_sudo_password_callback``, which hermes carries into the threads
that run tools) when a command runs ``sudo``, no ``SUDO_PASSWORD`` is set,
none is cached for the session, and sudo does not work without one. A
subagent hermes runs within the turn is given the turn's callback (``inturn``).

Contract:
- ``SudoBridge(timeout_s)`` gives each session a callback (``callback(session)``)
  for ``scope.session_scope`` to install. Called, it sends ``sudo/requested``
  (a fresh ``sudoId`` and ``timeoutMs``) through the session's current run and
  blocks until the host answers with ``answer()``, ``timeout_s`` passes, or
  the run is interrupted or ends (``waits.HostWaits``).
- Every request is closed by one ``sudo/resolved``: answered, declined,
  timed_out or cancelled. The password is given to hermes only (which pipes
  it to sudo and caches it for the session); it is never sent back, logged or
  kept here. Without one, hermes runs the command as it is (sudo then fails).
- ``answer(session_id, sudo_id, password)`` is ``answered`` / ``declined`` (a
  None password), or None when that request is not pending in that session.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from .state import Session
from .waits import HostWaits

# hermes' TUI waits this long for the password (its terminal asks for 45 s).
TIMEOUT_S = 120.0


class SudoBridge:
    def __init__(self, timeout_s: float = TIMEOUT_S) -> None:
        self._timeout_s = timeout_s
        self._waits: HostWaits[str] = HostWaits("sudo")

    def callback(self, session: Session) -> Callable[[], str]:
        def sudo_password() -> str:
            return self._ask(session)

        return sudo_password

    def _ask(self, session: Session) -> str:
        run = session.run
        if run is None:
            return ""
        sudo_id = self._waits.open(session.session_id)
        run.emit(
            "sudo/requested",
            {"sudoId": sudo_id, "timeoutMs": int(self._timeout_s * 1000)},
        )
        outcome, password = self._waits.wait(sudo_id, run, self._timeout_s)
        shown = "declined" if outcome == "answered" and not password else outcome
        run.emit("sudo/resolved", {"sudoId": sudo_id, "outcome": shown})
        return password or ""

    def answer(
        self, session_id: str, sudo_id: str, password: str | None
    ) -> Literal["answered", "declined"] | None:
        if not self._waits.answer(session_id, sudo_id, password or ""):
            return None
        return "answered" if password else "declined"
