"""What a host opted out of (``initialize``'s capabilities), checked once.

Contract:
- ``opt_out(capabilities)`` checks ``ClientCapabilities`` against the tables: a
  name the server never sends, or one of ``REQUIRED_NOTIFICATIONS``, is
  ``invalid_params`` naming its place in the params; otherwise an ``OptOut``.
  ``NO_OPT_OUT`` mutes nothing.
- Who applies it: a run's notifications are dropped by the worker before they
  are numbered, so ``seq`` stays gapless; the others a worker writes are not
  written (``OptOut.for_worker`` is what a worker is told, ``from_worker`` what
  it rebuilds, never dropping what a run needs); the supervisor drops those it
  sends itself, and those a worker wrote before it was told (``mutes``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..wire import ErrorType, RpcError
from .events import EVENT_TYPES
from .notifications import REQUIRED_NOTIFICATIONS, SERVER_NOTIFICATIONS
from .types import ClientCapabilities
from .workers import WorkerSetOptOutParams


@dataclass(frozen=True)
class OptOut:
    methods: frozenset[str] = frozenset()
    run_events: frozenset[str] = frozenset()

    def mutes(self, method: str) -> bool:
        return method in self.methods

    def mutes_run_note(self, method: str, payload: dict[str, Any]) -> bool:
        """Whether a run notification with these params (past runId, sessionId, seq)
        is dropped."""
        if method in self.methods:
            return True
        if method != "run/event" or not self.run_events:
            return False
        event = payload.get("event")
        return isinstance(event, dict) and event.get("type") in self.run_events

    def for_worker(self) -> WorkerSetOptOutParams:
        return WorkerSetOptOutParams(sorted(self.methods), sorted(self.run_events))

    @staticmethod
    def from_worker(p: WorkerSetOptOutParams) -> OptOut:
        # What a run needs stays, whatever a worker is told: its runs must end.
        return OptOut(frozenset(p.notifications) - REQUIRED_NOTIFICATIONS, frozenset(p.run_events))


NO_OPT_OUT = OptOut()


def _refuse(field: str, message: str) -> RpcError:
    return RpcError(ErrorType.INVALID_PARAMS, message, field=f"params.capabilities.{field}")


def opt_out(capabilities: ClientCapabilities | None) -> OptOut:
    if capabilities is None:
        return NO_OPT_OUT
    methods = capabilities.opt_out_notification_methods or []
    for i, name in enumerate(methods):
        where = f"optOutNotificationMethods[{i}]"
        if name not in SERVER_NOTIFICATIONS:
            raise _refuse(where, f"{name!r} is not a notification this server sends")
        if name in REQUIRED_NOTIFICATIONS:
            raise _refuse(where, f"{name!r} cannot be opted out of: runs and requests need it")
    events = capabilities.opt_out_run_events or []
    for i, name in enumerate(events):
        if name not in EVENT_TYPES:
            raise _refuse(f"optOutRunEvents[{i}]", f"{name!r} is not a run/event type")
    return OptOut(frozenset(methods), frozenset(events))
