"""Clarifying questions: the agent's ``clarify`` tool, answered by the host.

Contract:
- ``ClarifyBridge(timeout_s)`` gives each session's agent a clarify callback
  (``callback(session)``). hermes calls it on the tool's thread with a
  question and optional choices; the bridge sends ``clarify/requested`` (a
  fresh ``clarifyId``, the question, the choices, ``timeoutMs``) through the
  session's current run and blocks that thread until the host answers with
  ``answer()``, ``timeout_s()`` passes, or the run is interrupted or ends.
- Every request is closed by one ``clarify/resolved``: answered (with the
  answer), timed_out or cancelled. The tool gets the answer, or a bracketed
  note saying that none came, so the agent can go on.
- ``answer(session_id, clarify_id, text)`` is False when that request is not
  pending in that session.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .state import Session

_SLICE_S = 0.25  # how soon a waiting question notices an interrupt


@dataclass
class _Question:
    session_id: str
    event: threading.Event = field(default_factory=threading.Event)
    answer: str | None = None


class ClarifyBridge:
    def __init__(self, timeout_s: Callable[[], float]) -> None:
        self._timeout_s = timeout_s
        self._lock = threading.Lock()
        self._pending: dict[str, _Question] = {}

    def callback(self, session: Session) -> Callable[..., str]:
        def clarify(question: Any, choices: Any = None) -> str:
            return self._ask(session, str(question or ""), choices)

        return clarify

    def _ask(self, session: Session, question: str, choices: Any) -> str:
        run = session.run
        if run is None:
            return "[no user is attached to answer this question]"
        timeout = max(0.0, float(self._timeout_s()))
        clarify_id = f"clar_{uuid.uuid4().hex}"
        pending = _Question(session.session_id)
        with self._lock:
            self._pending[clarify_id] = pending
        offered = [str(c) for c in choices] if isinstance(choices, list | tuple) else None
        run.emit(
            "clarify/requested",
            {
                "clarifyId": clarify_id,
                "question": question,
                "choices": offered or None,
                "timeoutMs": int(timeout * 1000),
            },
        )
        waited = 0.0
        while not pending.event.wait(min(_SLICE_S, max(0.0, timeout - waited))):
            waited += _SLICE_S
            if run.interrupt_requested or run.done or waited >= timeout:
                break
        with self._lock:
            self._pending.pop(clarify_id, None)
            answer = pending.answer
        if answer is not None:
            outcome = "answered"
        elif run.interrupt_requested or run.done:
            outcome = "cancelled"
        else:
            outcome = "timed_out"
        run.emit(
            "clarify/resolved", {"clarifyId": clarify_id, "outcome": outcome, "answer": answer}
        )
        if answer is not None:
            return answer
        if outcome == "cancelled":
            return "[the user cancelled the question]"
        return f"[the user did not answer within {timeout:g} s]"

    def answer(self, session_id: str, clarify_id: str, text: str) -> bool:
        with self._lock:
            pending = self._pending.get(clarify_id)
            if pending is None or pending.session_id != session_id or pending.answer is not None:
                return False
            pending.answer = text
        pending.event.set()
        return True
