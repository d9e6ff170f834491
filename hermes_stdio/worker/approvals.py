"""Dangerous-command approvals: hermes' notify-and-wait flow, answered by the host.

Contract:
- ``ApprovalBridge(hermes_approval)`` works on hermes-agent's ``tools.approval``
  module, passed in (``adapter`` is the only module that imports hermes). With
  ``HERMES_EXEC_ASK=1`` hermes calls the notify callback registered for the
  tool call's session key (``keys.hermes_session_key`` of the session id),
  then waits (its ``approvals.timeout``, default 60 s, and interrupts) for the
  request to be resolved.
- ``open(session_id, emit)`` registers the session's notify callback for a
  turn; ``close(session_id)`` unregisters it, which releases anything still
  waiting (hermes then blocks the command). Each request is sent as
  ``approval/requested`` with a fresh ``approvalId``; when hermes stops
  waiting, for whatever reason, ``approval/resolved`` follows with the
  outcome: approved or denied (by the host), timed_out, or cancelled
  (interrupt, or the turn ended). A request's ``edits`` are those its data
  carries (``edit_review``'s file edits), else none.
- ``answer(session_id, approval_id, decision, reason)`` resolves exactly that
  request, even with several pending in one session (hermes' own resolver
  takes the oldest); it returns the outcome, or None when the request is not
  pending in that session. An answer it accepts is what hermes acts on, even
  one that lands as hermes' wait times out or is interrupted (hermes would
  otherwise block a command the host was told is approved).
- hermes' default approval mode, ``smart``, lets an auxiliary model approve
  flagged commands without asking anyone. Unless the profile's config sets
  ``approvals.mode`` itself (``configured_mode()`` returns it), the bridge
  makes the mode ``manual``: the host is asked. A configured ``smart`` or
  ``off`` is the user's choice and is kept.
- Without the hermes internals this was written against, ``supported`` is
  False and nothing is registered: dangerous commands stay refused.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from . import gated_calls
from .keys import hermes_session_key

Emit = Callable[[str, dict[str, Any]], object]
_APPROVED = frozenset({"once", "session", "always"})
_PLUGIN_RULE = "plugin_rule:"  # hermes' key for a call a plugin sent for approval


def _from_plugin(data: dict[str, Any]) -> bool:
    return any(str(k).startswith(_PLUGIN_RULE) for k in data.get("pattern_keys") or [])


@dataclass
class _Pending:
    approval_id: str
    session_id: str
    data: dict[str, Any]
    emit: Emit
    decision: str | None = None
    reason: str | None = None


class ApprovalBridge:
    def __init__(self, hermes_approval: Any, configured_mode: Callable[[], object]) -> None:
        self._h = hermes_approval
        self._configured_mode = configured_mode
        self._lock = threading.Lock()
        self._pending: dict[str, _Pending] = {}
        self._by_data: dict[int, _Pending] = {}  # id(approval data dict) while pending
        self.supported = self._install()

    def _install(self) -> bool:
        h = self._h
        wait = getattr(h, "_await_gateway_decision", None)
        mode = getattr(h, "_get_approval_mode", None)
        needed = ("register_gateway_notify", "unregister_gateway_notify", "_lock")
        if not callable(wait) or not callable(mode) or not all(hasattr(h, n) for n in needed):
            return False
        if not isinstance(getattr(h, "_gateway_queues", None), dict):
            return False
        if getattr(wait, "__module__", None) != h.__name__:
            return True  # already wrapped (another bridge in this process)

        def approval_mode() -> str:
            configured = self._configured_mode()
            return str(mode()) if configured is not None else "manual"

        def await_decision(
            session_key: str, notify_cb: Any, approval_data: dict[str, Any], **kw: Any
        ) -> dict[str, Any]:
            decision: dict[str, Any] | None = None
            try:
                decision = self._honour_answer(
                    approval_data, wait(session_key, notify_cb, approval_data, **kw)
                )
                return decision
            finally:
                self._finished(approval_data, decision)

        h._await_gateway_decision = await_decision
        h._get_approval_mode = approval_mode
        return True

    # --- per turn ----------------------------------------------------------

    def open(self, session_id: str, emit: Emit) -> None:
        if not self.supported:
            return

        def notify(data: dict[str, Any]) -> None:
            pending = _Pending(f"appr_{uuid.uuid4().hex}", session_id, data, emit)
            with self._lock:
                self._pending[pending.approval_id] = pending
                self._by_data[id(data)] = pending
            emit(
                "approval/requested",
                {
                    "approvalId": pending.approval_id,
                    "command": str(data.get("command") or ""),
                    "description": str(data.get("description") or ""),
                    "patternKeys": [str(k) for k in data.get("pattern_keys") or []],
                    "allowPermanent": bool(data.get("allow_permanent", True)),
                    "edits": list(data.get("edits") or []),  # edit_review's, already wire JSON
                    "toolCall": gated_calls.current() if _from_plugin(data) else None,
                },
            )

        self._h.register_gateway_notify(hermes_session_key(session_id), notify)

    def close(self, session_id: str) -> None:
        if self.supported:
            self._h.unregister_gateway_notify(hermes_session_key(session_id))

    # --- host answers ------------------------------------------------------

    def answer(
        self, session_id: str, approval_id: str, decision: str, reason: str | None
    ) -> Literal["approved", "denied"] | None:
        h, key = self._h, hermes_session_key(session_id)
        # One critical section (ours, then hermes' queue lock) so the wait's
        # wrapper sees either no answer or the one the host was told about.
        with self._lock:
            pending = self._pending.get(approval_id)
            if pending is None or pending.session_id != session_id or pending.decision:
                return None
            with h._lock:
                queue = h._gateway_queues.get(key) or []
                entry = next((e for e in queue if e.data is pending.data), None)
                if entry is None:  # hermes stopped waiting a moment ago
                    return None
                queue.remove(entry)
                if not queue:
                    h._gateway_queues.pop(key, None)
            pending.decision = decision
            pending.reason = reason if decision == "deny" else None
        entry.result = decision
        entry.reason = pending.reason
        entry.event.set()
        return "approved" if decision in _APPROVED else "denied"

    def _honour_answer(self, data: dict[str, Any], decision: dict[str, Any]) -> dict[str, Any]:
        # hermes' loop can give up (deadline, interrupt) just after the answer
        # took its entry; the host has been told the answer's outcome, so the
        # answer is what hermes gets.
        with self._lock:
            pending = self._by_data.get(id(data))
            answered = None if pending is None else pending.decision
            reason = None if pending is None else pending.reason
        if answered is None:
            return decision
        if decision.get("resolved") and decision.get("choice") == answered:
            return decision
        return {**decision, "resolved": True, "choice": answered, "reason": reason}

    def _finished(self, data: dict[str, Any], decision: dict[str, Any] | None) -> None:
        with self._lock:
            pending = self._by_data.pop(id(data), None)
            if pending is not None:
                self._pending.pop(pending.approval_id, None)
        if pending is None:
            return  # not ours (notify failed before registering)
        if pending.decision is not None:
            outcome = "approved" if pending.decision in _APPROVED else "denied"
        elif decision is not None and not decision.get("resolved"):
            outcome = "timed_out"
        else:
            outcome = "cancelled"
        pending.emit(
            "approval/resolved",
            {"approvalId": pending.approval_id, "outcome": outcome, "decision": pending.decision},
        )
