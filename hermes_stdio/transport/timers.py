"""One lazy timer thread for every deadline in the process.

Contract: ``call_later(delay, fn)`` runs ``fn`` (which must not block) on the
timer thread after ``delay`` seconds unless the returned handle is cancelled
first. The thread wakes for a deadline that is due, and otherwise only while
timers are being set: at most once per ``linger_s`` (default ``LINGER_S``)
after the last ``call_later``, to look again. Once no timer was set for that
long it sleeps towards the earliest live deadline, or without waking when
none is left. So an idle process costs no CPU, and its thread does not wake
later for a request timeout cancelled long ago. A new deadline wakes it only
when it is sooner than the one it sleeps towards, which a request's timeout,
set while it lingers, never is (the first one after it slept for good is: the
process is at work then); a cancellation that leaves nothing live wakes
it only when it slept past the linger towards a deadline now gone (a request
answered after a while), and at once, not then. Cancelled deadlines are
dropped in bulk. So a request timeout per call costs neither a wake-up nor
memory that grows with the request rate.

``Soonest(fn)`` keeps one timer for the earliest of many deadlines:
``at(delay)`` sets it unless one already fires sooner (or no more than
``SLACK_S`` later: callers derive delays from the wall clock, and resetting a
timer for a millisecond of jitter is churn); ``fn`` runs once it fires (the
timer is forgotten first, so ``fn`` may set the next).
"""

from __future__ import annotations

import heapq
import itertools
import threading
import time
from collections.abc import Callable

from .log import log_current_exception


class TimerHandle:
    __slots__ = ("cancelled", "deadline", "fn", "timers")

    def __init__(
        self, deadline: float, fn: Callable[[], None], timers: Timers | None = None
    ) -> None:
        self.deadline = deadline
        self.fn = fn
        self.cancelled = False
        self.timers = timers  # set while the handle waits in that heap

    def cancel(self) -> None:
        self.cancelled = True
        timers = self.timers
        if timers is not None:
            timers._cancelled(self)


class Timers:
    def __init__(self, linger_s: float | None = None) -> None:
        self._cond = threading.Condition()
        self._heap: list[tuple[float, int, TimerHandle]] = []
        self._counter = itertools.count()
        self._thread: threading.Thread | None = None
        self._dead = 0  # cancelled handles still in the heap
        # When the thread wakes by itself: inf while it waits for work, 0 while it runs
        # (it looks at the heap before it sleeps again).
        self._wakes_at = 0.0
        self._linger = LINGER_S if linger_s is None else linger_s
        self._set_at = float("-inf")  # when call_later was last called

    def call_later(self, delay: float, fn: Callable[[], None]) -> TimerHandle:
        now = time.monotonic()
        handle = TimerHandle(now + delay, fn, self)
        with self._cond:
            heapq.heappush(self._heap, (handle.deadline, next(self._counter), handle))
            self._set_at = now
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="timers", daemon=True)
                self._thread.start()
            # Wake the thread only when it would wake too late: a request's timeout is
            # later than the one it sleeps towards, even once that one was cancelled,
            # and a wake-up per request costs a context switch and the GIL.
            if handle.deadline < self._wakes_at:
                self._cond.notify()
        return handle

    def _cancelled(self, handle: TimerHandle) -> None:
        with self._cond:
            if handle.timers is None:  # fired or dropped meanwhile
                return
            handle.timers = None
            self._dead += 1
            # Timeouts are mostly cancelled long before they fall due; drop them in
            # bulk (as asyncio does) so a busy stream of requests cannot grow the heap,
            # and all at once when nothing live is left: an idle process then wakes at
            # most once more (for the deadline the thread already sleeps towards).
            if self._dead == len(self._heap):
                self._heap.clear()
                self._dead = 0
                # It sleeps towards a deadline that is gone: have it look again now,
                # while the process is at work, rather than wake for nothing later.
                if self._wakes_at != float("inf") and self._wakes_at > (
                    time.monotonic() + self._linger
                ):
                    self._cond.notify()
            elif self._dead > PURGE_MIN and self._dead * 2 > len(self._heap):
                self._heap = [entry for entry in self._heap if entry[2].timers is not None]
                heapq.heapify(self._heap)
                self._dead = 0

    @property
    def size(self) -> int:
        """Entries in the heap, cancelled ones included (for tests)."""
        with self._cond:
            return len(self._heap)

    def _loop(self) -> None:
        while True:
            with self._cond:
                while self._heap and self._heap[0][2].timers is None:
                    heapq.heappop(self._heap)
                    self._dead -= 1
                now = time.monotonic()
                target = self._heap[0][0] if self._heap else float("inf")
                if target > now:
                    # While timers are being set, look again soon: the requests whose
                    # timeouts they are are mostly answered by then, and the next
                    # request's timeout falls after this and needs no wake-up.
                    lingering = self._set_at + self._linger
                    if lingering > now:
                        target = min(target, lingering)
                    self._wakes_at = target
                    self._cond.wait(None if target == float("inf") else target - now)
                    self._wakes_at = 0.0
                    continue
                _, _, handle = heapq.heappop(self._heap)
                handle.timers = None
            if not handle.cancelled:
                try:
                    handle.fn()
                except Exception:
                    log_current_exception()


PURGE_MIN = 100
LINGER_S = 1.0
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
