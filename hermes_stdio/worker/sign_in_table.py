"""What the worker's two kinds of sign-in (``mcp_login``, ``account_login``) share: a
table of the logins under way, by id, whose end is told once and never before the
host has the id.

Contract: ``SignInTable(ended)``, for a subclass whose logins carry ``answered``,
``ended`` and ``error``; ``ended(login_id, name, error)`` tells an end.
``_answered(login_id, login, name)`` once the login's start was answered: its
end, if it came already, is told now (and the login leaves the table).
``_finish(login_id, login, name, error)``, under ``_lock``, ends a login and
returns whether to tell it now (it was answered; it leaves the table), else it
stays until ``_answered``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, Protocol, TypeVar


class Login(Protocol):
    answered: bool
    ended: bool
    error: str | None


L = TypeVar("L", bound=Login)


class SignInTable(Generic[L]):
    def __init__(self, ended: Callable[[str, str, str | None], None]) -> None:
        self._ended = ended
        self._lock = threading.Lock()
        self._by_id: dict[str, L] = {}  # under way, or ended before its id was given

    def _answered(self, login_id: str, login: L, name: str) -> None:
        with self._lock:
            login.answered = True
            told = login.ended
            if told:
                self._by_id.pop(login_id, None)
        if told:
            self._ended(login_id, name, login.error)

    def _finish(self, login_id: str, login: L, error: str | None) -> bool:
        login.ended, login.error = True, error
        if login.answered:
            self._by_id.pop(login_id, None)
        return login.answered
