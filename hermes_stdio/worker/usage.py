"""What a run's model calls used, from the counters hermes keeps on its agent.

Contract: ``counters(agent)`` snapshots hermes' per-session token counters
(``session_input_tokens`` and the like; all 0 for an agent without them);
``turn_usage(agent, before)`` is the difference since ``before`` as a
``TokenUsage``, with the window's fill (hermes' ``last_prompt_tokens``) and
size from its context compressor; None when the agent keeps no counters.
``UsageWatch(agent)``, made as a turn begins, gives that usage once after
each change of the counters (``report``): what a ``usage`` event says.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from ..protocol.usage import TokenUsage

_COUNTERS = ("input", "output", "cache_read", "cache_write", "reasoning", "total")


def counters(agent: Any) -> dict[str, int] | None:
    if not hasattr(agent, "session_total_tokens"):
        return None
    found = {}
    for name in _COUNTERS:
        value = getattr(agent, f"session_{name}_tokens", 0)
        found[name] = value if isinstance(value, int) else 0
    return found


def turn_usage(agent: Any, before: dict[str, int] | None) -> TokenUsage | None:
    after = counters(agent)
    if after is None or before is None:
        return None
    spent = {name: max(0, after[name] - before[name]) for name in _COUNTERS}
    compressor = getattr(agent, "context_compressor", None)
    last = getattr(compressor, "last_prompt_tokens", None)
    length = getattr(compressor, "context_length", None)
    return TokenUsage(
        input_tokens=spent["input"],
        output_tokens=spent["output"],
        cache_read_tokens=spent["cache_read"],
        cache_write_tokens=spent["cache_write"],
        reasoning_tokens=spent["reasoning"],
        total_tokens=spent["total"],
        # hermes sets -1 right after compressing, until the next response says.
        context_tokens=last if isinstance(last, int) and last > 0 else None,
        context_length=length if isinstance(length, int) and length > 0 else None,
    )


class UsageWatch:
    """A turn's usage, reported each time hermes' counters move (after each model
    call that reported usage). Callbacks arrive on several threads: one lock makes
    each report happen once and in order."""

    def __init__(self, agent: Any) -> None:
        self._agent = agent
        self._before = self._seen = counters(agent)
        self._lock = threading.Lock()

    def report(self, send: Callable[[TokenUsage], object]) -> None:
        """``send`` the turn's usage so far, if the counters moved since the last report."""
        if self._before is None:
            return
        with self._lock:
            now = counters(self._agent)
            if now == self._seen:
                return
            self._seen = now
            used = turn_usage(self._agent, self._before)
            if used is not None:
                send(used)
