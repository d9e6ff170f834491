"""Sign-ins (``mcp/login``, ``account/login``) routed to their worker, and those under
way in each worker, so one whose worker exits still ends with its completion
notification, as a run does.

Contract: ``SignIns()``: ``started(key, login_id, end)`` as a sign-in's answer is
relayed to the host (``end(error)`` gives its failed completion: method and
params); ``ended(key, login_id)`` as its worker tells its end; ``orphaned(key,
error)`` takes the ends of those still under way in the worker of ``key``,
which exited. An end told before its start was relayed (a worker may write it
first) is kept, so that start adds nothing (the last ``KEPT_EARLY`` of them).
``SignInRouting`` (a mixin of ``Supervisor``, which provides ``pool``,
``_key``, ``_forward`` and ``sign_ins``) routes ``mcp/login`` and
``account/login`` to the profile's worker, noting each sign-in it answers.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from typing import Any

from ..protocol import accounts as ac
from ..protocol import encode
from ..protocol import mcp_login as ml
from ..wire import Request
from .routes import SlotKey
from .slot import WorkerSlot
from .workers import WorkerPool

KEPT_EARLY = 64

End = Callable[[str], tuple[str, Any]]


class SignIns:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._open: dict[SlotKey, dict[str, End]] = {}
        self._early: deque[tuple[SlotKey, str]] = deque(maxlen=KEPT_EARLY)

    def started(self, key: SlotKey, login_id: str, end: End) -> None:
        with self._lock:
            if (key, login_id) in self._early:
                self._early.remove((key, login_id))
                return
            self._open.setdefault(key, {})[login_id] = end

    def ended(self, key: SlotKey, login_id: str) -> None:
        with self._lock:
            if self._open.get(key, {}).pop(login_id, None) is None:
                self._early.append((key, login_id))

    def orphaned(self, key: SlotKey, error: str) -> list[tuple[str, Any]]:
        with self._lock:
            ends = self._open.pop(key, {})
        return [end(error) for end in ends.values()]


Failed = Callable[[WorkerSlot, str, str], tuple[str, Any]]


class SignInRouting:
    pool: WorkerPool
    sign_ins: SignIns
    _key: Callable[[str | None, str | None], SlotKey]
    _forward: Callable[..., None]

    def _h_mcp_login(self, req: Request, p: ml.McpLoginParams) -> None:
        def failed(slot: WorkerSlot, login_id: str, error: str) -> tuple[str, Any]:
            done = ml.McpLoginCompletedNotification(
                slot.profile, slot.worker_key, login_id, p.name, False, error
            )
            return "mcp/loginCompleted", encode(done)

        self._sign_in(req, self._key(p.profile, p.worker_key), failed)

    def _h_account_login(self, req: Request, p: ac.AccountLoginParams) -> None:
        def failed(slot: WorkerSlot, login_id: str, error: str) -> tuple[str, Any]:
            done = ac.AccountLoginCompletedNotification(
                slot.profile, slot.worker_key, login_id, p.provider, False, error
            )
            return "account/loginCompleted", encode(done)

        self._sign_in(req, self._key(p.profile, p.worker_key), failed)

    def _sign_in(self, req: Request, key: SlotKey, failed: Failed) -> None:
        slot = self.pool.slot(*key)

        def started(result: Any) -> None:
            login_id = result["loginId"]
            end: End = lambda error: failed(slot, login_id, error)  # noqa: E731
            self.sign_ins.started(slot.key, login_id, end)

        self._forward(req, slot, started)
