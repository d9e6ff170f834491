"""What the host is shown of the supervisor and its workers: ``supervisor/status``
and the ``worker/started`` push.

Contract (a mixin of ``Supervisor``, which provides ``home``, ``started``,
``pool``, ``routes``, ``idle``, ``_reply`` and ``_notify_host``):
- ``supervisor/status`` answers ``status()``: this process, the protocol, the
  Hermes home, every worker slot (``_worker_info``: its process, state,
  restarts, sessions and running runs, and how it started; what
  ``worker/restart`` answers with too) and the worker template's.
- ``_worker_started(slot)`` (the pool's ``on_ready``, on the worker's reader
  thread) pushes ``worker/started`` with the slot's info, and arms the idle
  timer.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..protocol import PROTOCOL_VERSION, encode
from ..protocol import types as t
from ..protocol import workers as pw
from ..wire import Request
from .idle import IdleWorkers
from .routes import Routes
from .slot import WorkerSlot
from .workers import WorkerPool


class WorkerStatus:
    home: Path
    started: float  # time.monotonic() at the supervisor's start
    pool: WorkerPool
    routes: Routes
    idle: IdleWorkers
    _reply: Callable[..., bool]
    _notify_host: Callable[[str, Any], None]

    def _h_supervisor_status(self, req: Request, p: t.EmptyParams) -> None:
        self._reply(req, encode(self.status()))

    def status(self) -> pw.SupervisorStatusResult:
        return pw.SupervisorStatusResult(
            pid=os.getpid(),
            uptime_ms=int((time.monotonic() - self.started) * 1000),
            protocol_version=PROTOCOL_VERSION,
            hermes_home=str(self.home),
            workers=[self._worker_info(s) for s in self.pool.slots()],
            template=self.pool.template.info() if self.pool.template is not None else None,
        )

    def _worker_info(self, slot: WorkerSlot) -> pw.WorkerInfo:
        sessions, running = self.routes.counts(slot.key)
        proc = slot.proc
        return pw.WorkerInfo(
            profile=slot.profile,
            worker_key=slot.worker_key,
            pid=proc.pid if proc is not None else None,
            state=slot.state,
            restarts=slot.restarts,
            started_at=slot.started_at if proc is not None else None,
            last_used_at=slot.last_used_at,
            sessions=sessions,
            running_runs=running,
            start_mode=slot.start_mode if proc is not None else None,
            fork_fallback=slot.fork_fallback if proc is not None else None,
        )

    def _worker_started(self, slot: WorkerSlot) -> None:
        self._notify_host(
            "worker/started", encode(pw.WorkerStartedNotification(self._worker_info(slot)))
        )
        self.idle.arm()
