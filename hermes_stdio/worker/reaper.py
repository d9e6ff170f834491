"""Idle terminal environments are reaped by a timer set for the earliest expiry,
not by hermes' cleanup thread, which wakes every second for good.

hermes' terminal, file and code tools call ``terminal_tool._start_cleanup_thread()``
each time they create or use an environment (the shell state a session's commands
run in). The thread it starts never ends: it reaps environments idle longer than
``lifetime_seconds``, then sleeps 60 times 1 s. So a worker that ran one command
woke once a second for the rest of its life, where an idle worker should not
wake at all.

Contract: ``install(terminal_tool)`` replaces that starter in hermes' module
(its callers import it by name at call time), once; it returns False and
changes nothing when the module lacks what it was written against. The
replacement arms one daemon timer, unless one is armed, for when the
environment used longest ago turns ``lifetime_seconds`` idle (with none yet, a
lifetime from now: hermes' terminal tool calls it just before it creates
one). When it fires it runs hermes' own
``_cleanup_inactive_envs(lifetime_seconds)``, so hermes' rules hold (an
environment whose background processes still run is kept, and counts as used
now), then arms again for the next expiry if any environment is left. With
none left no timer runs: the worker sleeps until a tool runs again. A failing
pass is logged to stderr and tried again ``RETRY_S`` later; the replacement
itself never raises into the tool that called it.

``Reaper(terminal_tool, timer, clock)`` is the same with the timer factory and
clock given, for tests.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from ..transport.log import log_current_exception

SLACK_S = 1.0  # hermes reaps what is idle *longer* than its lifetime
RETRY_S = 300.0  # hermes' default lifetime


class TimerLike(Protocol):
    daemon: bool

    def start(self) -> None: ...


TimerFactory = Callable[[float, Callable[[], None]], TimerLike]


class Reaper:
    def __init__(
        self,
        terminal_tool: Any,
        timer: TimerFactory = threading.Timer,
        clock: Callable[[], float] = time.time,  # hermes stamps use with time.time()
    ) -> None:
        self._tt = terminal_tool
        self._timer = timer
        self._clock = clock
        self._lock = threading.Lock()
        self._armed = False

    def start(self) -> None:
        """hermes' ``_start_cleanup_thread``: make sure a reaping is due."""
        with self._lock:
            if self._armed:
                return
            try:
                # terminal_tool calls it before it creates the session's first
                # environment: one is about to be, used now
                self._arm(self._next_delay() or self._lifetime() + SLACK_S)
            except Exception:
                log_current_exception()

    def _lifetime(self) -> float:
        return float(self._tt._get_env_config()["lifetime_seconds"])

    def _next_delay(self) -> float | None:
        with self._tt._env_lock:
            used: list[float] = list(self._tt._last_activity.values())
        if not used:
            return None
        return max(0.0, min(used) + self._lifetime() - self._clock()) + SLACK_S

    def _arm(self, delay: float | None) -> None:
        self._armed = delay is not None
        if delay is not None:
            timer = self._timer(delay, self._fire)
            timer.daemon = True
            timer.start()

    def _fire(self) -> None:
        delay: float | None
        try:
            self._tt._cleanup_inactive_envs(self._lifetime())
            delay = self._next_delay()
        except Exception:
            log_current_exception()
            delay = RETRY_S
        with self._lock:
            self._arm(delay)


def install(terminal_tool: Any) -> bool:
    needed = ("_start_cleanup_thread", "_cleanup_inactive_envs", "_get_env_config")
    if not all(callable(getattr(terminal_tool, n, None)) for n in needed):
        return False
    if not hasattr(terminal_tool, "_last_activity") or not hasattr(terminal_tool, "_env_lock"):
        return False
    if getattr(terminal_tool._start_cleanup_thread, "reaper", None) is not None:
        return True
    reaper = Reaper(terminal_tool)

    def start() -> None:
        reaper.start()

    start.reaper = reaper  # type: ignore[attr-defined]
    terminal_tool._start_cleanup_thread = start
    return True
