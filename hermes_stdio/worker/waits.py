"""Requests a run sends the host and blocks on: the registry and the wait they share.

Contract: ``HostWaits[V](prefix)`` hands out fresh ids (``open``) for requests
of one session and blocks a run's thread on one (``wait``) until ``answer``
gives it a value, ``timeout_s`` passes, or the run is interrupted or ends
(checked every ``SLICE_S``). ``wait`` returns the outcome (``answered``,
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

SLICE_S = 0.25  # how soon a waiting request notices an interrupt
V = TypeVar("V")
WaitOutcome = Literal["answered", "timed_out", "cancelled"]


@dataclass
class _Pending(Generic[V]):
    session_id: str
    event: threading.Event = field(default_factory=threading.Event)
    value: V | None = None


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
        waited = 0.0
        while not pending.event.wait(min(SLICE_S, max(0.0, timeout_s - waited))):
            waited += SLICE_S
            if run.interrupt_requested or run.done or waited >= timeout_s:
                break
        with self._lock:
            self._pending.pop(ident, None)
            answered = pending.event.is_set()
        if answered:
            return "answered", pending.value
        return ("cancelled" if run.interrupt_requested or run.done else "timed_out"), None

    def answer(self, session_id: str, ident: str, value: V) -> bool:
        with self._lock:
            pending = self._pending.get(ident)
            if pending is None or pending.session_id != session_id or pending.event.is_set():
                return False
            pending.value = value
            pending.event.set()
        return True
