"""What a scripted LLM answers (``llm_server.ScriptedLLM``): one ``Reply`` per model
call, built with ``Reply.text`` / ``tool_call`` / ``tool_calls`` / ``error``; a ``Gate``
holds a reply back until the test releases it. Plain values: nothing here does I/O.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal


@dataclass(frozen=True)
class Gate:
    """Holds a reply back: ``arrived`` is set when its request comes in, and the
    reply waits until ``release`` is set (at most ``timeout_s``)."""

    arrived: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)
    timeout_s: float = 60.0


@dataclass(frozen=True)
class Reply:
    """One scripted model response.  Build with text / tool_call / tool_calls / error."""

    kind: Literal["text", "tool_calls", "error"]
    chunks: tuple[str, ...] = ()
    delay: float = 0.0  # seconds slept before each streamed chunk
    calls: tuple[tuple[str, str], ...] = ()  # (tool name, arguments JSON)
    reasoning: tuple[str, ...] = ()  # streamed first as ``delta.reasoning_content``
    status: int = 500
    message: str = ""
    gate: Gate | None = None
    headers: tuple[tuple[str, str], ...] = ()  # extra HTTP response headers

    @classmethod
    def text(
        cls,
        chunks: str | Sequence[str],
        delay: float = 0.0,
        reasoning: Sequence[str] = (),
        gate: Gate | None = None,
    ) -> Reply:
        pieces = (chunks,) if isinstance(chunks, str) else tuple(chunks)
        return cls(kind="text", chunks=pieces, delay=delay, reasoning=tuple(reasoning), gate=gate)

    @classmethod
    def tool_call(
        cls, name: str, arguments: Mapping[str, Any], delay: float = 0.0, text: Sequence[str] = ()
    ) -> Reply:
        """One tool call, optionally preceded by streamed ``text`` content pieces."""
        return cls.tool_calls([(name, arguments)], delay=delay, text=text)

    @classmethod
    def tool_calls(
        cls,
        calls: Sequence[tuple[str, Mapping[str, Any]]],
        delay: float = 0.0,
        text: Sequence[str] = (),
    ) -> Reply:
        """Several parallel tool calls in one assistant message."""
        encoded = tuple((name, json.dumps(dict(args))) for name, args in calls)
        return cls(kind="tool_calls", chunks=tuple(text), calls=encoded, delay=delay)

    @classmethod
    def error(cls, status: int = 500, message: str = "scripted error") -> Reply:
        return cls(kind="error", status=status, message=message)

    def with_headers(self, headers: Mapping[str, str]) -> Reply:
        """This reply, its HTTP response also carrying ``headers`` (e.g. x-ratelimit-*)."""
        return replace(self, headers=tuple(headers.items()))
