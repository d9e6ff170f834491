"""Background work that finished after its turn: handed back to its session.

hermes runs a top-level ``delegate_task`` in the background and tells the
model the result "re-enters the conversation" later; a background terminal
command with ``notify_on_complete`` (or ``watch_patterns``) reports the same
way. Both go onto hermes' process-wide completion queue, which hermes' CLI
and gateways poll to start a new turn. A worker has no such loop, so without
this the results would be lost.

Contract:
- ``Notice``: one finished piece of background work for session
  ``session_id``: ``kind`` (``subagent`` or ``process``), ``source_id`` (the
  delegation's or the process's id), ``message`` (what hermes tells the model,
  its own formatting) and ``settle(delivered)``, called once: true when a run
  took it, false when it was dropped (hermes keeps a delegation's result to
  deliver again to a later worker).
- ``watch(queue, hermes, deliver)`` starts one daemon thread that blocks on
  the queue (no polling: idle it never wakes) and calls ``deliver(notice)``
  for each event filed under one of this worker's session keys
  (``keys.hermes_session_key``). Others (no key, another program's) are
  logged and dropped; so are completions the agent already read (hermes'
  ``is_completion_consumed``), delegations another consumer claimed, and a
  process's completion after its first (``watches.ProcessWatch`` may queue
  one hermes queued too).
  ``hermes`` is the ``Hermes`` bundle of hermes' own functions, so that only
  ``adapter`` imports hermes-agent.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from ..transport.log import log
from .keys import PREFIX

CONSUMER = "hermes-stdio"
# Processes whose completion was taken: a second one is a duplicate. A late one
# follows the first within one tool call, so few need remembering.
MAX_COMPLETED = 1024


@dataclass(frozen=True)
class Notice:
    session_id: str
    kind: Literal["subagent", "process"]
    source_id: str
    message: str
    settle: Callable[[bool], None]


@dataclass(frozen=True)
class Hermes:
    format: Callable[[dict[str, Any]], str | None]  # process_registry's notification text
    consumed: Callable[[str], bool]  # process_registry.is_completion_consumed
    claim: Callable[[dict[str, Any], str], str | None]  # async_delegation.claim_event_delivery
    complete: Callable[[dict[str, Any], str], None]  # ...complete_event_delivery
    release: Callable[[dict[str, Any], str], None]  # ...release_event_delivery


def notice_of(event: Any, hermes: Hermes) -> Notice | None:
    """The notice an event of hermes' completion queue makes; None to drop it."""
    if not isinstance(event, dict):
        return None
    key = str(event.get("session_key") or "")
    kind: Literal["subagent", "process"] = (
        "subagent" if event.get("type") == "async_delegation" else "process"
    )
    source_id = str(event.get("delegation_id" if kind == "subagent" else "session_id") or "")
    if not key.startswith(PREFIX) or len(key) == len(PREFIX):
        log(f"worker: dropping a background {kind} result of no session here (key {key!r})")
        return None
    if event.get("type") == "completion" and hermes.consumed(source_id):
        return None  # the agent waited for it, or read its whole log, in its turn
    message = hermes.format(event)
    if not message:
        return None
    settle: Callable[[bool], None] = lambda delivered: None  # noqa: E731
    if kind == "subagent":
        claim = hermes.claim(event, CONSUMER)
        if claim is None:
            return None  # delivered already, or being delivered by someone else
        settle = _settler(event, claim, hermes)
    return Notice(key[len(PREFIX) :], kind, source_id, message, settle)


def _settler(event: dict[str, Any], claim: str, hermes: Hermes) -> Callable[[bool], None]:
    def settle(delivered: bool) -> None:
        try:
            (hermes.complete if delivered else hermes.release)(event, claim)
        except Exception as exc:  # its record stays pending: hermes offers it again later
            log(f"worker: settling a background result failed: {exc!r}")

    return settle


def watch(queue: Any, hermes: Hermes, deliver: Callable[[Notice], None]) -> threading.Thread:
    completed: dict[str, None] = {}  # process ids, oldest first

    def first_completion(event: Any) -> bool:
        if not isinstance(event, dict) or event.get("type") != "completion":
            return True
        process_id = str(event.get("session_id") or "")
        if process_id in completed:
            return False
        if len(completed) >= MAX_COMPLETED:
            del completed[next(iter(completed))]
        completed[process_id] = None
        return True

    def loop() -> None:
        while True:
            event = queue.get()  # blocks: no timeout, no wake-ups while idle
            if not first_completion(event):
                continue
            try:
                notice = notice_of(event, hermes)
                if notice is not None:
                    deliver(notice)
            except Exception as exc:  # one bad event must not end the watch
                log(f"worker: a background result was lost: {exc!r}")

    thread = threading.Thread(target=loop, name="notices", daemon=True)
    thread.start()
    return thread
