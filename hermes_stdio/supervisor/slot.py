"""One worker slot: a (profile, workerKey), its current process and its health.

Contract: a ``WorkerSlot`` is plain state that ``workers.WorkerPool`` changes
under the slot's ``lock`` (starts, stops, exits) and ``use_lock`` (a request
handed to the ready worker, against an idle stop deciding). ``ready`` is set
once a start has ended, ready or failed (``start_error``); ``exit_handled``
once the current or last process's exit has been handled. ``crashed`` counts an
unexpected exit, putting the slot into backoff after ``max_crashes`` within
``window_s``; ``exit_note`` describes an exit as ``worker/exited``. ``now_ms()`` is
the wall clock in ms that ``started_at`` and ``last_used_at`` use.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable

from ..protocol import workers as pw
from ..transport import Peer
from ..transport.process import ChildProcess, exit_status
from ..wire import Request, RpcError
from .routes import SlotKey


def now_ms() -> int:
    return int(time.time() * 1000)


class WorkerSlot:
    """One (profile, workerKey): its current process, if any, and its health."""

    def __init__(self, profile: str, worker_key: str | None) -> None:
        self.profile = profile
        self.worker_key = worker_key
        self.state: pw.WorkerState = "exited"
        self.proc: ChildProcess | None = None
        self.start_mode: pw.StartMode | None = None
        self.fork_fallback: str | None = None
        self.peer: Peer | None = None
        self.restarts = 0
        self.crashes: deque[float] = deque()
        self.started_at: int | None = None
        self.last_used_at = now_ms()
        self.stopping = False
        self.forgotten = False  # dropped from the pool: the key has a new slot if used again
        self.stop_reason: pw.StopReason = "shutdown"  # why, once stopping is set
        self.ready = threading.Event()
        self.start_error: RpcError | None = None
        # Set once the current (or last) process's exit has been handled.
        self.exit_handled = threading.Event()
        self.exit_handled.set()
        # Re-entrant: a failed start stops what it started, and an idle stop holds it too.
        self.lock = threading.RLock()
        # Held while a request is handed to the ready worker, and while an idle stop
        # decides: a request either counts as a use or finds the worker stopping.
        self.use_lock = threading.Lock()
        # What to do once the worker starting now is ready (or failed): (then, on_error).
        self.waiting: list[tuple[Callable[[Peer], object], Callable[[Exception], object]]] = []
        # worker/restart requests (under use_lock) whose restart has not yet stopped
        # the old process: any that arrives now joins them, as its new worker will
        # start after it arrived anyway.
        self.restart_group: list[Request] | None = None

    @property
    def key(self) -> SlotKey:
        return (self.profile, self.worker_key)

    @property
    def label(self) -> str:
        return self.profile if self.worker_key is None else f"{self.profile}/{self.worker_key}"

    def crashed(self, window_s: float, max_crashes: int) -> None:
        self.restarts += 1
        t = time.monotonic()
        self.crashes.append(t)
        while self.crashes and t - self.crashes[0] > window_s:
            self.crashes.popleft()
        if len(self.crashes) >= max_crashes:
            self.state = "backoff"

    def exit_note(
        self, pid: int, code: int | None, expected: bool, reason: pw.ExitReason
    ) -> pw.WorkerExitedNotification:
        exit_code, ended_by = exit_status(code)
        return pw.WorkerExitedNotification(
            profile=self.profile,
            worker_key=self.worker_key,
            pid=pid,
            exit_code=exit_code,
            signal=ended_by,
            expected=expected,
            reason=reason,
        )
