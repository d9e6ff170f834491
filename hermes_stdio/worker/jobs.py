"""A bounded, first-come queue for the requests a worker answers off its reader.

Contract:
- ``submit(key, job, on_cancel, label)`` runs ``job`` on one of at most
  ``size`` threads, oldest first; meanwhile the thread's name
  carries ``label`` (what a stack dump shows). Threads start when work
  arrives and end when none waits, so an idle worker keeps none and wakes for
  nothing.
- ``cancel(key)`` takes a job that has not started out of the queue and calls
  its ``on_cancel`` (on the caller's thread); it returns whether it did. A job
  already running runs to its end: hermes' calls cannot be stopped halfway.
- A job that raises is logged to stderr and its thread takes the next job.
- ``slow=True`` marks a job that may wait on something outside the worker
  (the network, an MCP server, git) or build an agent. Slow jobs hold at most
  ``size - 1`` threads at once (1 when ``size`` is 1), so with two or more
  threads one is always left for quick jobs (reads of the profile's store),
  which then never wait behind slow ones. A thread takes the oldest job it
  may run, so jobs of one kind start in the order submitted.

Why bounded: a host that sends a thousand ``model/list`` at once (each ~0.1 s
of hermes' CPU) had the worker run a thousand threads, 800 MB of them, and
answer none of them within the supervisor's timeout, since all shared the
interpreter lock to the end. In a queue the first ones are answered at once.
Why two kinds: offline, each ``model/list`` can wait 5 s on a DNS lookup, and
four of them held every thread while a ``session/history`` waited.
"""

from __future__ import annotations

import threading
import traceback
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import NamedTuple

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
        self.slow_limit = max(1, size - 1)
        # One first-come queue per kind (slow or not); ``seq`` orders them together.
        self._lanes: dict[bool, OrderedDict[object, _Entry]] = {
            False: OrderedDict(),
            True: OrderedDict(),
        }
        self._seq = 0
        self._anonymous = 0
        self.running = 0  # threads alive (each runs jobs until none it may run waits)
        self.slow_running = 0

    def submit(
        self,
        key: Hashable | None,
        job: Job,
        on_cancel: Job | None = None,
        label: str = "",
        *,
        slow: bool = False,
    ) -> None:
        """Queue ``job``; ``key`` (a request id) is what ``cancel`` names it by. A key
        already waiting is queued anew under a fresh private key."""
        with self._lock:
            if key is None or any(key in lane for lane in self._lanes.values()):
                self._anonymous += 1
                key = ("anonymous", self._anonymous)
            self._seq += 1
            self._lanes[slow][key] = _Entry(self._seq, job, on_cancel, label, slow)
            if self.running >= self.size or (slow and self.slow_running >= self.slow_limit):
                return  # a thread that ends a slow job takes it
            self.running += 1
        threading.Thread(target=self._work, name=self._name, daemon=True).start()

    def cancel(self, key: Hashable) -> bool:
        with self._lock:
            entry = self._lanes[False].pop(key, None) or self._lanes[True].pop(key, None)
        if entry is None:
            return False
        if entry.on_cancel is not None:
            entry.on_cancel()
        return True

    @property
    def waiting(self) -> int:
        with self._lock:
            return sum(len(lane) for lane in self._lanes.values())

    def _work(self) -> None:
        entry: _Entry | None = None
        while True:
            with self._lock:
                if entry is not None and entry.slow:
                    self.slow_running -= 1
                entry = self._next()
                if entry is None:
                    self.running -= 1
                    return
                if entry.slow:
                    self.slow_running += 1
            name = threading.current_thread().name = f"{self._name}:{entry.label}"
            try:
                entry.job()
            except Exception:  # one job's bug must not stop the queue
                log(f"worker: {name} failed:\n" + traceback.format_exc().rstrip())

    def _next(self) -> _Entry | None:
        """The oldest waiting job this thread may run (under the lock)."""
        slow_ok = self.slow_running < self.slow_limit
        heads = [q for kind, q in self._lanes.items() if q and (slow_ok or not kind)]
        if not heads:
            return None
        lane = min(heads, key=lambda q: next(iter(q.values())).seq)
        return lane.popitem(last=False)[1]


class _Entry(NamedTuple):
    seq: int
    job: Job
    on_cancel: Job | None
    label: str
    slow: bool
