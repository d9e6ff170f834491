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
- ``compress_now(agent, session, focus)``: the session's history compressed
  at once, as its ``compression`` says (``run/start`` ``forceCompress``,
  ``session/compress``), bypassing hermes' cooldown after a failed summary as
  its ``/compress`` does; an empty history stays empty.
- ``recall_compression(db, session)`` keeps a session's choice in the
  profile's database, so a session resumed by another worker keeps it.
- ``estimate(agent, messages, instructions, rough, breakdown)`` is what
  ``session/estimateContext`` reports: the request's rough size against the
  agent's context window, its make-up by hermes' ``breakdown`` (its context
  breakdown function; none when None or it fails, logged) with the session's
  own instructions as a part of their own, and the provider's count of the
  last request.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from ..protocol.usage import ContextPart
from ..transport.log import log
from .messages import public
from .state import Session
from .waits import HostWaits

TIMEOUT_S = 180.0
# The host's answer: its messages, or (None, its error).
_Answer = tuple[list[dict[str, Any]] | None, str | None]


class CompressionBridge:
    def __init__(self, timeout_s: float = TIMEOUT_S) -> None:
        self.timeout_s = timeout_s
        self._waits: HostWaits[_Answer] = HostWaits("cmp")

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
        compression_id = self._waits.open(session.session_id)
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
        waited, answer = self._waits.wait(compression_id, run, self.timeout_s)
        result, error = answer if answer is not None else (None, None)
        closed: dict[str, Any] = {"messageCount": None, "tokens": None, "error": None}
        if result is not None:
            outcome = "compressed"
            closed["messageCount"] = len(result)
            try:
                closed["tokens"] = measure(result)
            except Exception as exc:  # an odd message the estimator chokes on costs the figure
                log(f"worker: estimating the compressed tokens failed: {exc!r}")
        elif waited == "answered":
            outcome = "failed"
            closed["error"] = error
        else:
            outcome = waited
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
        if not self._waits.answer(session_id, compression_id, (messages, error)):
            return None
        return "compressed" if messages is not None else "failed"


def compress_now(agent: Any, session: Session, focus: str | None) -> list[dict[str, Any]]:
    if not session.history:
        return []
    compressed = agent._compress_context(
        list(session.history), None, task_id=session.session_id, focus_topic=focus, force=True
    )
    return list(compressed[0])


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
                log(f"worker: storing the host's compression failed: {exc!r}")
        agent._last_compaction_in_place = in_place
        return compressed, prompt

    agent._compress_context = compress


def recall_compression(db: Any, session: Session) -> None:
    """Settle the session's compression choice: a new one is stored in the profile's
    database (hermes' state meta), an unsaid one is read back from it."""
    key = f"hermes-stdio.compression:{session.session_id}"
    if db is None:  # no database opened (yet): the choice stays in memory
        session.compression = session.compression or "agent"
    elif session.compression_new:
        db.set_meta(key, session.compression or "agent")
        session.compression_new = False
    elif session.compression is None:
        stored = db.get_meta(key)
        session.compression = stored if stored in ("agent", "host") else "agent"


def estimate(
    agent: Any,
    messages: list[dict[str, Any]],
    instructions: str | None,
    rough: Any,
    breakdown: Callable[[Any, list[dict[str, Any]]], dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """How full an agent's next request with ``messages`` would be, by hermes' rough
    estimator: the keyword fields of ``SessionContextResult`` after ``model``."""
    prompt = str(getattr(agent, "_cached_system_prompt", "") or "")
    if not prompt:
        prompt = str(agent._build_system_prompt(None) or "")
    if instructions:  # hermes sends them with every request, after its own prompt
        prompt = f"{prompt}\n\n{instructions}"
    tools = list(getattr(agent, "tools", None) or [])
    fixed = int(rough([], system_prompt=prompt, tools=tools or None))
    system = int(rough([], system_prompt=prompt, tools=None))
    compressor = getattr(agent, "context_compressor", None)
    length = getattr(compressor, "context_length", None)
    return {
        "context_length": int(length) if isinstance(length, int) and length > 0 else None,
        "tokens": int(rough(messages, system_prompt=prompt, tools=tools or None)),
        "fixed_tokens": fixed,
        "system_prompt_tokens": system,
        "tool_tokens": max(0, fixed - system),
        "message_count": len(messages),
        "tool_count": len(tools),
        "breakdown": _parts(agent, messages, instructions, rough, breakdown),
        "last_prompt_tokens": _positive(getattr(compressor, "last_prompt_tokens", None)),
    }


def _parts(
    agent: Any,
    messages: list[dict[str, Any]],
    instructions: str | None,
    rough: Any,
    breakdown: Callable[[Any, list[dict[str, Any]]], dict[str, Any]] | None,
) -> list[ContextPart]:
    parts: list[ContextPart] = []
    try:
        got = breakdown(agent, messages) if breakdown is not None else {}
        for c in got.get("categories") or ():
            parts.append(
                ContextPart(id=str(c["id"]), label=str(c["label"]), tokens=int(c["tokens"]))
            )
    except Exception as exc:  # a meter without segments, not a failed request
        log(f"worker: hermes' context breakdown failed: {exc!r}")
        parts = []
    own = int(rough([], system_prompt=instructions, tools=None)) if instructions else 0
    if own > 0:  # hermes' breakdown knows nothing of them
        parts.append(ContextPart(id="instructions", label="Instructions", tokens=own))
    return parts


def _positive(value: Any) -> int | None:
    return value if isinstance(value, int) and value > 0 else None
