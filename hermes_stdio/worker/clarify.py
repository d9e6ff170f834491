"""Clarifying questions: the agent's ``clarify`` tool, answered by the host.

Contract:
- ``ClarifyBridge(timeout_s)`` gives each session's agent a clarify callback
  (``callback(session)``). hermes calls it on the tool's thread with a
  question and optional choices; the bridge sends ``clarify/requested`` (a
  fresh ``clarifyId``, the question, the choices, ``timeoutMs``) through the
  session's current run and blocks that thread until the host answers with
  ``answer()``, ``timeout_s()`` passes, or the run is interrupted or ends
  (``waits.HostWaits``, which compression shares).
- Every request is closed by one ``clarify/resolved``: answered (with the
  answer), timed_out or cancelled. The tool gets the answer, or a bracketed
  note saying that none came, so the agent can go on.
- ``answer(session_id, clarify_id, text)`` is False when that request is not
  pending in that session.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .state import Session
from .waits import HostWaits


class ClarifyBridge:
    def __init__(self, timeout_s: Callable[[], float]) -> None:
        self._timeout_s = timeout_s
        self._waits: HostWaits[str] = HostWaits("clar")

    def callback(self, session: Session) -> Callable[..., str]:
        def clarify(question: Any, choices: Any = None) -> str:
            return self._ask(session, str(question or ""), choices)

        return clarify

    def _ask(self, session: Session, question: str, choices: Any) -> str:
        run = session.run
        if run is None:
            return "[no user is attached to answer this question]"
        timeout = max(0.0, float(self._timeout_s()))
        clarify_id = self._waits.open(session.session_id)
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
        outcome, answer = self._waits.wait(clarify_id, run, timeout)
        run.emit(
            "clarify/resolved", {"clarifyId": clarify_id, "outcome": outcome, "answer": answer}
        )
        if answer is not None:
            return answer
        if outcome == "cancelled":
            return "[the user cancelled the question]"
        return f"[the user did not answer within {timeout:g} s]"

    def answer(self, session_id: str, clarify_id: str, text: str) -> bool:
        return self._waits.answer(session_id, clarify_id, text)
