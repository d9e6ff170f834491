"""A bounded, first-come queue for the requests a worker answers off its reader.

Contract:
- ``submit(key, job, on_cancel, label)`` runs ``job`` on one of at most
  ``size`` threads, in the order submitted; meanwhile the thread's name
  carries ``label`` (what a stack dump shows). Threads start when work
  arrives and end when none waits, so an idle worker keeps none and wakes for
  nothing.
- ``cancel(key)`` takes a job that has not started out of the queue and calls
  its ``on_cancel`` (on the caller's thread); it returns whether it did. A job
  already running runs to its end: hermes' calls cannot be stopped halfway.
- A job that raises is logged to stderr and its thread takes the next job.

Why bounded: a host that sends a thousand ``model/list`` at once (each ~0.1 s
of hermes' CPU) had the worker run a thousand threads, 800 MB of them, and
answer none of them within the supervisor's timeout, since all shared the
interpreter lock to the end. In a queue the first ones are answered at once.
"""

from __future__ import annotations

import threading
import traceback
from collections import OrderedDict
from collections.abc import Callable, Hashable

from ..transport.log import log

Job = Callable[[], None]

DEFAULT_SIZE = 4  # hermes' work holds the interpreter lock: more threads add no speed


class JobQueue:
    def __init__(self, size: int = DEFAULT_SIZE, name: str = "job") -> None:
        if size < 1:
            raise ValueError("size must be at least 1")
        self.size = size
        self._name = name
        self._lock = threading.Lock()
        self._waiting: OrderedDict[object, tuple[Job, Job | None, str]] = OrderedDict()
        self._anonymous = 0
        self.running = 0  # threads alive (each runs jobs until none waits)

    def submit(
        self, key: Hashable | None, job: Job, on_cancel: Job | None = None, label: str = ""
    ) -> None:
        """Queue ``job``; ``key`` (a request id) is what ``cancel`` names it by. A key
        already waiting is queued anew under a fresh private key."""
        with self._lock:
            if key is None or key in self._waiting:
                self._anonymous += 1
                key = ("anonymous", self._anonymous)
            self._waiting[key] = (job, on_cancel, label)
            if self.running >= self.size:
                return
            self.running += 1
        threading.Thread(target=self._work, name=self._name, daemon=True).start()

    def cancel(self, key: Hashable) -> bool:
        with self._lock:
            entry = self._waiting.pop(key, None)
        if entry is None:
            return False
        on_cancel = entry[1]
        if on_cancel is not None:
            on_cancel()
        return True

    @property
    def waiting(self) -> int:
        with self._lock:
            return len(self._waiting)

    def _work(self) -> None:
        while True:
            with self._lock:
                if not self._waiting:
                    self.running -= 1
                    return
                _key, (job, _on_cancel, label) = self._waiting.popitem(last=False)
            name = threading.current_thread().name = f"{self._name}:{label}"
            try:
                job()
            except Exception:  # one job's bug must not stop the queue
                log(f"worker: {name} failed:\n" + traceback.format_exc().rstrip())
