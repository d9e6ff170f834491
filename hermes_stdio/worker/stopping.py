"""Sessions a host destroys, and every session and run as the worker stops.

Contract (a mixin of ``WorkerService``, which provides what is declared below):
- ``session/destroy`` interrupts the session's run, if any, and answers once
  that run has ended (bounded by ``stop_timeout``) and the session is let go
  of (``_let_go``, reason ``closed``): ``{destroyed: true}``; ``false`` for a
  session this worker does not hold or already destroys. The session is held,
  and busy, until then, so no new run of it can overlap the old one; a request
  after that gets a fresh session, resumed from the database.
- ``worker/shutdown`` stops every run (``stop_runs``), answers, then lets the
  process exit (``done``).
- ``stop_runs()``, once per process: ends every shell command, interrupts
  every run and waits for each (bounded, all together, by ``stop_timeout``;
  a run stuck past that has its turn's transcript saved so far), completes
  each (``worker_stopped``), then, for each session held, hands its waiting
  notices back to hermes, ends it (reason ``shutdown``) and closes its agent.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from ..protocol import encode
from ..protocol import types as t
from ..transport import Peer
from ..wire import Request
from .contract import AgentAdapter
from .queries import DEFERRED
from .state import Run, RunTable, Session


class Stopping:
    adapter: AgentAdapter
    peer: Peer | None
    sessions: dict[str, Session]
    runs: RunTable
    stop_timeout: float
    done: threading.Event
    exit_reason: str
    _lock: threading.Lock
    _threads: dict[str, threading.Thread]
    _stopped: bool
    _interrupt: Callable[..., None]
    _let_go: Callable[[Session, str], None]
    _next_notice: Callable[[Session], None]
    stop_commands: Callable[[], None]
    join_commands: Callable[[], None]

    def _h_session_destroy(self, req: Request, p: t.SessionTarget) -> Any:
        # Held (and busy) until its run has ended, so no new run of it can overlap
        # the old one; a request after that gets a fresh session.
        with self._lock:
            session = self.sessions.get(p.session_id)
            if session is None or session.closing:
                return t.SessionDestroyResult(False)
            session.closing = True
            run = session.run
        if run is not None:
            self._interrupt(run, "session destroyed", session)

        def finish() -> None:
            self._join(run)
            with self._lock:
                if self.sessions.get(p.session_id) is session:
                    del self.sessions[p.session_id]
            self._let_go(session, "closed")
            assert self.peer is not None
            self.peer.respond(req.id, encode(t.SessionDestroyResult(True)))

        threading.Thread(target=finish, name="destroy", daemon=True).start()
        return DEFERRED

    def _join(self, run: Run | None) -> None:
        thread = self._threads.get(run.run_id) if run is not None else None
        if thread is not None:
            thread.join(self.stop_timeout)

    def _h_worker_shutdown(self, req: Request, p: t.EmptyParams) -> Any:
        def finish() -> None:
            self.stop_runs()
            assert self.peer is not None
            self.peer.respond(req.id, None)
            self.exit_reason = "worker/shutdown requested"
            self.done.set()

        threading.Thread(target=finish, name="shutdown", daemon=True).start()
        return DEFERRED

    def stop_runs(self) -> None:
        """Interrupt every run and wait for each to complete (bounded); once per process."""
        with self._lock:
            if self._stopped:
                return
            self._stopped = True
        self.stop_commands()
        runs = self.runs.active()
        for run in runs:
            run.worker_stopping = True
            self._interrupt(run, "worker stopping")
        deadline = time.monotonic() + self.stop_timeout
        for run in runs:
            thread = self._threads.get(run.run_id)
            if thread is not None:
                thread.join(max(0.0, deadline - time.monotonic()))
                if thread.is_alive():  # stuck past the bound: keep what the turn did so far
                    session = self.sessions.get(run.session_id)
                    if session is not None and session.agent is not None:
                        self.adapter.save_transcript(session.agent)
            # A run stuck past the bound still gets its terminal notification.
            run.complete("interrupted", None, None)  # as worker_stopped (Run.complete)
        self.join_commands()
        for session in list(self.sessions.values()):
            self._next_notice(session)  # stopped: hands what still waits back to hermes
            if session.agent is not None:
                self.adapter.end_session(session.agent, session.history, "shutdown")
            self.adapter.close(session.agent)
