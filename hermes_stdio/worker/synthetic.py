"""A scripted stand-in agent for benchmarks (``hermes-stdio --synthetic-agent``).

Contract:
- ``SyntheticAdapter`` implements ``AgentAdapter`` without importing
  hermes-agent: ``preload`` does nothing, ``build`` returns a small agent
  object bound to the session's ``EventSink``.
- A run/start ``message`` of the form
  ``bench count=N size=S interval_ms=I work_us=W`` makes ``run_turn`` emit
  ``N`` deltas (defaults 100, 20, 0, 0). Each delta's
  text is exactly ``max(S, STAMP_BYTES)`` ASCII bytes: a stamp (see
  ``format_stamp``: ``time.monotonic_ns()`` taken at the callback, zero
  padded to 19 digits, then ``|``) padded with ``.``. CLOCK_MONOTONIC is
  system-wide on Linux, so a host on the same machine can subtract the stamp
  from its own receipt time. With ``I > 0`` deltas are paced on absolute
  deadlines ``I`` ms apart (pacing only, never synchronisation). With
  ``W > 0`` the agent's thread first computes for ``W`` µs before each delta,
  holding the interpreter lock as a real agent parsing a chunk does.
- Any other message yields one delta echoing it (``echo: <message>``).
- The turn stops early when ``stop_requested()`` turns true or ``interrupt``
  was called, and reports ``interrupted``. The session history gains one
  user and one assistant message per turn (the assistant text is a summary,
  never the streamed bytes).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from .callbacks import EventSink
from .contract import TurnOutcome, UserContent
from .plain import PlainAdapterMethods
from .state import Session

STAMP_DIGITS = 19
STAMP_BYTES = STAMP_DIGITS + 1  # digits + "|"
PAD = "."


def format_stamp(ns: int, size: int) -> str:
    """The delta text for a stamp taken at ``ns``: ``max(size, STAMP_BYTES)`` bytes."""
    head = f"{ns:0{STAMP_DIGITS}d}|"
    return head if size <= STAMP_BYTES else head + PAD * (size - STAMP_BYTES)


def parse_stamps(text: str, size: int) -> list[int]:
    """Every stamp in ``text``: one delta, or several coalesced consecutive ones."""
    unit = max(size, STAMP_BYTES)
    return [int(text[i : i + STAMP_DIGITS]) for i in range(0, len(text) - unit + 1, unit)]


def parse_params(message: str) -> dict[str, int] | None:
    """``{"count", "size", "interval_ms", "work_us"}`` for a ``bench ...`` message,
    else None."""
    words = message.split()
    if not words or words[0] != "bench":
        return None
    params = {"count": 100, "size": 20, "interval_ms": 0, "work_us": 0}
    for word in words[1:]:
        key, sep, value = word.partition("=")
        if sep and key in params:
            params[key] = max(0, int(value))
    return params


class SyntheticAgent:
    """What ``build`` returns: the sink plus an interrupt flag."""

    def __init__(self, sink: EventSink) -> None:
        self.sink = sink
        self.interrupted = threading.Event()


class SyntheticAdapter(PlainAdapterMethods):
    model = "synthetic"

    def preload(self) -> None:
        return None

    def build(self, session: Session, sink: EventSink) -> Any:
        return SyntheticAgent(sink)

    def model_of(self, agent: Any) -> str | None:
        return self.model

    def run_turn(
        self,
        agent: Any,
        session: Session,
        message: UserContent,
        stop_requested: Callable[[], bool],
    ) -> TurnOutcome:
        assert isinstance(agent, SyntheticAgent)
        agent.interrupted.clear()
        text = message if isinstance(message, str) else str(message)
        params = parse_params(text)
        sink = agent.sink
        sent = 0
        interrupted = False
        if params is None:
            sink.delta(f"echo: {text}")
            sent = 1
            final = f"echo: {text}"
        else:
            count, size = params["count"], params["size"]
            interval_ns = params["interval_ms"] * 1_000_000
            work_ns = params["work_us"] * 1_000
            next_at = time.monotonic_ns()
            delta = sink.delta
            now = time.monotonic_ns
            for _ in range(count):
                if agent.interrupted.is_set() or stop_requested():
                    interrupted = True
                    break
                if interval_ns:
                    wait = next_at - now()
                    if wait > 0:
                        agent.interrupted.wait(wait / 1e9)
                    next_at += interval_ns
                if work_ns:
                    busy_until = now() + work_ns
                    while now() < busy_until:  # Python bytecode: the lock stays held
                        pass
                delta(format_stamp(now(), size))
                sent += 1
            final = f"sent {sent} deltas of {max(size, STAMP_BYTES)} bytes"
        messages = [
            *session.history,
            {"role": "user", "content": message},
            {"role": "assistant", "content": final},
        ]
        return TurnOutcome(
            final_response=final, messages=messages, interrupted=interrupted, api_calls=0
        )

    def interrupt(self, agent: Any, message: str | None) -> None:
        if isinstance(agent, SyntheticAgent):
            agent.interrupted.set()

    def close(self, agent: Any) -> None:
        if isinstance(agent, SyntheticAgent):
            agent.interrupted.set()
