"""One lazy timer thread for every deadline in the process.

Contract: ``call_later(delay, fn)`` runs ``fn`` (which must not block) on the
timer thread after ``delay`` seconds unless the returned handle is cancelled
first. With nothing scheduled the thread sleeps without waking up, so an idle
process costs no CPU. ``Soonest(fn)`` keeps one timer for the earliest of many
deadlines: ``at(delay)`` sets it unless one already fires sooner (or no more
than ``SLACK_S`` later: callers derive delays from the wall clock, and resetting
a timer for a millisecond of jitter is churn); ``fn`` runs once it fires (the
timer is forgotten first, so ``fn`` may set the next).
"""

from __future__ import annotations

import heapq
import itertools
import sys
import threading
import time
import traceback
from collections.abc import Callable


class TimerHandle:
    __slots__ = ("cancelled", "deadline", "fn")

    def __init__(self, deadline: float, fn: Callable[[], None]) -> None:
        self.deadline = deadline
        self.fn = fn
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class Timers:
    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._heap: list[tuple[float, int, TimerHandle]] = []
        self._counter = itertools.count()
        self._thread: threading.Thread | None = None

    def call_later(self, delay: float, fn: Callable[[], None]) -> TimerHandle:
        handle = TimerHandle(time.monotonic() + delay, fn)
        with self._cond:
            heapq.heappush(self._heap, (handle.deadline, next(self._counter), handle))
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="timers", daemon=True)
                self._thread.start()
            self._cond.notify()
        return handle

    def _loop(self) -> None:
        while True:
            with self._cond:
                while self._heap and self._heap[0][2].cancelled:
                    heapq.heappop(self._heap)
                if not self._heap:
                    self._cond.wait()
                    continue
                wait = self._heap[0][0] - time.monotonic()
                if wait > 0:
                    self._cond.wait(wait)
                    continue
                _, _, handle = heapq.heappop(self._heap)
            if not handle.cancelled:
                try:
                    handle.fn()
                except Exception:
                    traceback.print_exc(file=sys.stderr)


TIMERS = Timers()
SLACK_S = 0.05


class Soonest:
    def __init__(self, fn: Callable[[], None], timers: Timers = TIMERS) -> None:
        self._fn, self._timers = fn, timers
        self._lock = threading.Lock()
        self._handle: TimerHandle | None = None

    def at(self, delay: float) -> None:
        deadline = time.monotonic() + max(0.0, delay)
        with self._lock:
            if self._handle is not None and not self._handle.cancelled:
                if self._handle.deadline <= deadline + SLACK_S:
                    return  # the one set fires sooner and looks again
                self._handle.cancel()
            self._handle = self._timers.call_later(max(0.0, delay), self._fire)

    def _fire(self) -> None:
        with self._lock:
            self._handle = None
        self._fn()
