"""Context compression done by the host: the run asks and waits for its answer.

Contract:
- ``CompressionBridge.ask(session, ...)`` runs on the run's thread when the
  session's compression is ``host`` and the agent decides (or is told) to
  compress. It sends ``compression/requested`` (a fresh ``compressionId``, the
  conversation, its rough tokens, the context window, ``timeoutMs``) through
  the session's current run and blocks until the host answers with
  ``answer()``, ``timeout_s`` passes, or the run is interrupted or ends.
- Every request is closed by one ``compression/resolved``: compressed (with
  the new message count and tokens, from ``measure``), failed (the host's
  error), timed_out or cancelled (``tokens`` is null when hermes' estimator
  cannot count the host's messages). ``ask`` returns the host's messages when
  compressed, else None: the conversation stays as it was.
- ``answer(session_id, compression_id, messages, error)`` takes already
  checked messages (``messages.checked``) or an error; it returns the outcome,
  or None when that request is not pending in that session.
- ``delegate_compression(agent, session, bridge, rough)`` wraps a hermes
  ``AIAgent``'s ``_compress_context`` (``rough`` is hermes' token estimator,
  passed in so that only ``adapter`` imports hermes): hermes' own compression
  while the session's ``compression`` is ``agent``, the host's while it is
  ``host``. A compressed conversation replaces the session's live rows in its
  database in place (the old rows are archived), as hermes' own in-place
  compaction does; otherwise the conversation stays as it was and hermes,
  seeing no progress, carries on.
"""

from __future__ import annotations

import sys
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from .messages import public
from .state import Session

_SLICE_S = 0.25  # how soon a waiting request notices an interrupt
TIMEOUT_S = 180.0


@dataclass
class _Request:
    session_id: str
    event: threading.Event = field(default_factory=threading.Event)
    messages: list[dict[str, Any]] | None = None
    error: str | None = None


class CompressionBridge:
    def __init__(self, timeout_s: float = TIMEOUT_S) -> None:
        self.timeout_s = timeout_s
        self._lock = threading.Lock()
        self._pending: dict[str, _Request] = {}

    def ask(
        self,
        session: Session,
        messages: list[dict[str, Any]],
        tokens: int,
        context_length: int | None,
        focus_topic: str | None,
        measure: Callable[[list[dict[str, Any]]], int],
    ) -> list[dict[str, Any]] | None:
        run = session.run
        if run is None:
            return None
        compression_id = f"cmp_{uuid.uuid4().hex}"
        pending = _Request(session.session_id)
        with self._lock:
            self._pending[compression_id] = pending
        run.emit(
            "compression/requested",
            {
                "compressionId": compression_id,
                "messages": messages,
                "messageCount": len(messages),
                "tokens": tokens,
                "contextLength": context_length,
                "focusTopic": focus_topic,
                "timeoutMs": int(self.timeout_s * 1000),
            },
        )
        waited = 0.0
        while not pending.event.wait(min(_SLICE_S, max(0.0, self.timeout_s - waited))):
            waited += _SLICE_S
            if run.interrupt_requested or run.done or waited >= self.timeout_s:
                break
        with self._lock:
            self._pending.pop(compression_id, None)
            answered = pending.event.is_set()
        result = pending.messages if answered else None
        closed: dict[str, Any] = {"messageCount": None, "tokens": None, "error": None}
        if result is not None:
            outcome = "compressed"
            closed["messageCount"] = len(result)
            try:
                closed["tokens"] = measure(result)
            except Exception as exc:  # an odd message the estimator chokes on costs the figure
                print(f"worker: estimating the compressed tokens failed: {exc!r}", file=sys.stderr)
        elif answered:
            outcome = "failed"
            closed["error"] = pending.error
        elif run.interrupt_requested or run.done:
            outcome = "cancelled"
        else:
            outcome = "timed_out"
        run.emit(
            "compression/resolved", {"compressionId": compression_id, "outcome": outcome, **closed}
        )
        return result

    def answer(
        self,
        session_id: str,
        compression_id: str,
        messages: list[dict[str, Any]] | None,
        error: str | None,
    ) -> Literal["compressed", "failed"] | None:
        with self._lock:
            pending = self._pending.get(compression_id)
            if pending is None or pending.session_id != session_id or pending.event.is_set():
                return None
            pending.messages, pending.error = messages, error
            pending.event.set()
        return "compressed" if messages is not None else "failed"


def delegate_compression(
    agent: Any, session: Session, bridge: CompressionBridge, rough: Callable[..., Any]
) -> None:
    own = getattr(agent, "_compress_context", None)
    if not callable(own):
        return

    def compress(messages: list[Any], system_message: Any = None, **kw: Any) -> Any:
        if session.compression != "host":
            return own(messages, system_message, **kw)
        prompt = getattr(agent, "_cached_system_prompt", None) or agent._build_system_prompt(
            system_message
        )
        tools = list(getattr(agent, "tools", None) or []) or None

        def measure(msgs: list[dict[str, Any]]) -> int:
            return int(rough(msgs, system_prompt=prompt or "", tools=tools))

        approx = kw.get("approx_tokens")
        length = getattr(getattr(agent, "context_compressor", None), "context_length", None)
        compressed = bridge.ask(
            session,
            public(messages),
            approx if isinstance(approx, int) and approx > 0 else measure(messages),
            length if isinstance(length, int) and length > 0 else None,
            kw.get("focus_topic"),
            measure,
        )
        if compressed is None:
            return messages, prompt
        db = getattr(agent, "_session_db", None)
        in_place = False
        if db is not None:
            try:
                db.archive_and_compact(agent.session_id, compressed)
                agent._flushed_db_message_ids = set()
                agent._last_flushed_db_idx = 0  # the next flush diffs against the new rows
                in_place = True
            except Exception as exc:
                print(f"worker: storing the host's compression failed: {exc!r}", file=sys.stderr)
        agent._last_compaction_in_place = in_place
        return compressed, prompt

    agent._compress_context = compress
