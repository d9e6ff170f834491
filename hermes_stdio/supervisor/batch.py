"""Requests that may share one answer, computed once after each of them arrived.

Contract: ``Batch(compute, answer)``; ``add(req)`` queues a request. One thread
at a time runs ``compute()`` for every request queued before it began, then
calls ``answer(group, result, error)`` once (``error``: the exception
``compute`` raised, else None). Requests that arrive meanwhile wait for the
next run, which starts when this one ends. So one thread serves them all,
however many arrive during a run cost one more run between them, and no
request gets an answer computed before it arrived. If no thread can start,
the error is raised to the caller of ``add`` (which answers its request) and
given to ``answer`` for the others that joined meanwhile.

Why: each ``profile/list`` reads every profile's files; 3,000 sent at once
had the supervisor run 70 threads that all did the same reading.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from ..wire import Request
from .routing import spawn_thread

Answer = Callable[[list[Request], Any, "Exception | None"], None]


class Batch:
    def __init__(self, compute: Callable[[], Any], answer: Answer) -> None:
        self._compute, self._answer = compute, answer
        self._lock = threading.Lock()
        self._waiting: list[Request] = []
        self._busy = False  # a thread runs (or is about to run) the batches

    def add(self, req: Request) -> None:
        with self._lock:
            self._waiting.append(req)
            if self._busy:
                return  # the running thread takes it next
            self._busy = True
        try:
            spawn_thread(self._drain)
        except Exception as exc:
            with self._lock:
                group, self._waiting, self._busy = self._waiting, [], False
            others = [r for r in group if r is not req]  # joined before the failure
            if others:
                self._answer(others, None, exc)
            raise

    def _drain(self) -> None:
        while True:
            with self._lock:
                group, self._waiting = self._waiting, []
                if not group:
                    self._busy = False
                    return
            try:
                result, error = self._compute(), None
            except Exception as exc:
                result, error = None, exc
            self._answer(group, result, error)
