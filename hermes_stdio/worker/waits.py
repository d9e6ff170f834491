"""Requests a run sends the host and blocks on: the registry and the wait they share.

Contract: ``HostWaits[V](prefix)`` hands out fresh ids (``open``) for requests
of one session and blocks a run's thread on one (``wait``) until ``answer``
gives it a value, ``timeout_s`` passes, or the run is interrupted or ends
(``Run.wake_on_stop``: nothing polls). ``wait`` returns the outcome (``answered``,
``timed_out`` or ``cancelled``) and the value; the request is no longer
pending afterwards. ``answer(session_id, ident, value)`` is False when that
request is not pending in that session, or was answered already.
"""

from __future__ import annotations

import threading
import uuid
from dataclasses import dataclass, field
from typing import Generic, Literal, TypeVar

from .state import Run

V = TypeVar("V")
WaitOutcome = Literal["answered", "timed_out", "cancelled"]


@dataclass
class _Pending(Generic[V]):
    session_id: str
    event: threading.Event = field(default_factory=threading.Event)
    value: V | None = None
    answered: bool = False


class HostWaits(Generic[V]):
    def __init__(self, prefix: str) -> None:
        self._prefix = prefix
        self._lock = threading.Lock()
        self._pending: dict[str, _Pending[V]] = {}

    def open(self, session_id: str) -> str:
        ident = f"{self._prefix}_{uuid.uuid4().hex}"
        with self._lock:
            self._pending[ident] = _Pending(session_id)
        return ident

    def wait(self, ident: str, run: Run, timeout_s: float) -> tuple[WaitOutcome, V | None]:
        with self._lock:
            pending = self._pending[ident]
        forget = run.wake_on_stop(pending.event)
        try:
            pending.event.wait(timeout_s)
        finally:
            forget()
        with self._lock:
            self._pending.pop(ident, None)
            answered = pending.answered
        if answered:
            return "answered", pending.value
        return ("cancelled" if run.interrupt_requested or run.done else "timed_out"), None

    def answer(self, session_id: str, ident: str, value: V) -> bool:
        with self._lock:
            pending = self._pending.get(ident)
            if pending is None or pending.session_id != session_id or pending.answered:
                return False
            pending.value, pending.answered = value, True
            pending.event.set()
        return True
