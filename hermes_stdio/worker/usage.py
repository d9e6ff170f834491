"""What a run's model calls used, from the counters hermes keeps on its agent.

Contract: ``counters(agent)`` snapshots hermes' per-session token counters
(``session_input_tokens`` and the like; all 0 for an agent without them) and
its cost estimate (``session_estimated_cost_usd``); ``turn_usage(agent,
before)`` is the difference since ``before`` as a ``TokenUsage``, with the
window's fill (hermes' ``last_prompt_tokens``) and size from its context
compressor, and the cost unless hermes could not price the calls; None when
the agent keeps no counters.
``UsageWatch(agent)``, made as a turn begins, gives that usage once after
each change of the counters (``report``): what a ``usage`` event says.
``limits(state)`` turns the rate limits hermes read from a response's
x-ratelimit-* headers (its ``RateLimitState``) into a ``usage.limits`` event,
each window it lacks (limit 0) null; None for no state. ``report_limits``
gives that event once for each state hermes captured since the watch was made
(hermes replaces its state object per response that carried the headers, and
keeps the old one otherwise).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, NamedTuple

from ..protocol.events import RateLimitWindow, UsageLimitsEvent
from ..protocol.usage import TokenUsage

_COUNTERS = ("input", "output", "cache_read", "cache_write", "reasoning", "total")
# hermes' cost status when it priced the call: estimated from a price, or included
# in a subscription (0); "unknown" when it had no price.
PRICED = frozenset({"estimated", "included", "actual"})


class Counters(NamedTuple):
    tokens: dict[str, int]
    cost_usd: float  # hermes' running estimate for the session


def counters(agent: Any) -> Counters | None:
    if not hasattr(agent, "session_total_tokens"):
        return None
    found = {}
    for name in _COUNTERS:
        value = getattr(agent, f"session_{name}_tokens", 0)
        found[name] = value if isinstance(value, int) else 0
    cost = getattr(agent, "session_estimated_cost_usd", 0.0)
    return Counters(found, float(cost) if isinstance(cost, int | float) else 0.0)


def turn_usage(agent: Any, before: Counters | None) -> TokenUsage | None:
    after = counters(agent)
    if after is None or before is None:
        return None
    spent = {name: max(0, after.tokens[name] - before.tokens[name]) for name in _COUNTERS}
    cost = after.cost_usd - before.cost_usd
    priced = cost > 0 or getattr(agent, "session_cost_status", None) in PRICED
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
        # Rounded to a nano-dollar: the difference of two float sums carries noise.
        cost_usd=round(max(cost, 0.0), 9) if priced else None,
    )


def _window(bucket: Any, captured_at: float) -> RateLimitWindow | None:
    limit, remaining = getattr(bucket, "limit", 0), getattr(bucket, "remaining", 0)
    reset = getattr(bucket, "reset_seconds", 0.0)
    if not isinstance(limit, int) or limit <= 0:
        return None
    reset = float(reset) if isinstance(reset, int | float) else 0.0
    return RateLimitWindow(
        limit=limit,
        remaining=remaining if isinstance(remaining, int) else 0,
        resets_at=round((captured_at + max(reset, 0.0)) * 1000),
    )


def limits(state: Any) -> UsageLimitsEvent | None:
    captured = getattr(state, "captured_at", 0.0)
    if state is None or not isinstance(captured, int | float) or captured <= 0:
        return None
    provider = getattr(state, "provider", None)
    return UsageLimitsEvent(
        provider=str(provider) if provider else None,
        requests_per_minute=_window(getattr(state, "requests_min", None), captured),
        requests_per_hour=_window(getattr(state, "requests_hour", None), captured),
        tokens_per_minute=_window(getattr(state, "tokens_min", None), captured),
        tokens_per_hour=_window(getattr(state, "tokens_hour", None), captured),
    )


def _limits_state(agent: Any) -> Any:
    get = getattr(agent, "get_rate_limit_state", None)
    return get() if callable(get) else None


class UsageWatch:
    """A turn's usage, reported each time hermes' counters move (after each model
    call that reported usage). Callbacks arrive on several threads: one lock makes
    each report happen once and in order."""

    def __init__(self, agent: Any) -> None:
        self._agent = agent
        self._before = self._seen = counters(agent)
        self._limits_seen = _limits_state(agent)  # an earlier turn's: told then
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

    def report_limits(self, send: Callable[[UsageLimitsEvent], object]) -> None:
        """``send`` the rate limits hermes read since the last report, if it read any."""
        with self._lock:
            state = _limits_state(self._agent)
            if state is self._limits_seen:
                return
            self._limits_seen = state
            event = limits(state)
            if event is not None:
                send(event)
