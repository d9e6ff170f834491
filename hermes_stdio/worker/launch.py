"""Opening a run of a session and running it on a thread of its own.

Contract (a mixin of ``WorkerService``, which provides ``sessions``, ``runs``,
``_lock``, ``peer``, ``profile``, ``_threads``, ``_outbox``, ``opt_out`` and
``_release``):
``_open_run`` makes the session's new run (creating the session, to be
restored from the database when asked, if this worker does not hold it or it
was destroyed) or raises ``session_busy``; a session's run (this one or a
notice's) steers the session's agent (``Run.steer_target``). ``_launch``
acknowledges it with ``{runId, sessionId}``, before anything of the run can
reach the wire, and
does the run's work on its own thread (``_spawn_run``, for a run already
acknowledged), which always ends the run with exactly one ``run/completed``
(an ``internal_error`` if the work raised or did not end it, or the thread
could not start). Once the work is done the run kept for ``run/result`` no longer holds the
images it was sent, and a worker with no run left hands freed heap back.

``_hand_back(notice)`` gives a session background work that finished
(``notices``): a run of the worker's own, its ``run/started`` naming the
``trigger``, at once if the session is free, else as soon as its run ends (in
arrival order; a host's ``run/start`` that comes first goes first). Notices
still waiting when the worker stops are released to hermes, which keeps a
delegation's result for the next worker. ``_end_background(session_id)``,
as the host deletes the session (``session/delete``), interrupts its
subagents still at work and kills its processes; what they report then is
dropped, not run.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable

from ..protocol import encode
from ..protocol import types as t
from ..protocol.opt_out import OptOut
from ..transport import Peer
from ..transport.log import log, report_error
from ..wire import Request
from .contract import AgentAdapter, Announce
from .memory import release_free_memory
from .notices import Notice
from .outbox import Outbox
from .queries import DEFERRED, session_busy
from .runner import execute_run
from .state import Run, RunTable, Session, new_id


class RunLauncher:
    sessions: dict[str, Session]
    runs: RunTable
    _lock: threading.Lock
    peer: Peer | None
    profile: str
    _threads: dict[str, threading.Thread]
    _outbox: Callable[[], Outbox | Callable[[bytes], bool]]
    opt_out: OptOut  # the host's (``worker/setOptOut``), for each run as it opens
    _release: Callable[[Session, Run], None]
    _titled: Callable[[str], Announce]
    _stopped: bool
    _ended: deque[str]  # work ended with its session (``_end_background``)
    adapter: AgentAdapter

    def _open_run(
        self, session_id: str, model: str | None, provider: str | None, restore: bool
    ) -> tuple[Session, Run]:
        """A new run of the session (created, to be restored when ``restore``, if this
        worker does not hold it); ``session_busy`` while it runs another."""
        with self._lock:
            session = self.sessions.get(session_id)
            if session is not None and session.discarded:
                session = None  # destroyed: this run starts afresh from the database
            if session is None:
                session = Session(session_id, self.profile, restore=restore)
                if model is not None:  # a new session's model: the stored one's otherwise
                    session.choose(model=model, provider=provider)
                self.sessions[session_id] = session
            if session.run is not None:
                raise session_busy(session_id, session.run.run_id)
            run = self._turn_run_locked(session)
        return session, run

    def _turn_run_locked(self, session: Session, trigger: t.RunTrigger | None = None) -> Run:
        """A new run of the free session, registered as its run and the worker's
        (under ``_lock``); run/steer reaches the session's agent."""
        run = Run(new_id("run"), session.session_id, self._outbox(), self.opt_out)
        run.trigger = trigger
        run.steer_target = lambda: session.agent
        run.on_complete = lambda: self._release(session, run)
        session.run = run
        session.last_used_at = int(time.time() * 1000)
        self.runs.add(run)
        return run

    def _launch(self, req: Request, run: Run, body: Callable[[], None]) -> t.RunStartResult:
        """Acknowledge the run, then do ``body`` on the run's own thread."""
        assert self.peer is not None
        # The ack goes out before the run thread can emit anything for this run.
        self.peer.respond(req.id, encode(t.RunStartResult(run.run_id, run.session_id)))
        try:
            self._spawn_run(run, body)
        except Exception as exc:  # no thread (a process thread limit): it ends, once
            error = t.RunError(t.RunErrorType.INTERNAL_ERROR, f"the run could not start: {exc}")
            run.complete("error", None, error)
        return DEFERRED  # type: ignore[return-value]

    def _spawn_run(self, run: Run, body: Callable[[], None]) -> None:
        thread = threading.Thread(
            target=self._run_thread, args=(run, body), name=f"run-{run.run_id[-8:]}", daemon=True
        )
        self._threads[run.run_id] = thread  # registered before stop_runs can look for it
        try:
            thread.start()
        except BaseException:
            self._threads.pop(run.run_id, None)
            raise

    def _run_thread(self, run: Run, body: Callable[[], None]) -> None:
        try:
            body()
        except BaseException as exc:  # the run must end even on a bug
            wire = report_error(exc)
            run.complete(
                "error", None, t.RunError(t.RunErrorType.INTERNAL_ERROR, str(wire.get("message")))
            )
        finally:
            if not run.done:
                run.complete(
                    "error",
                    None,
                    t.RunError(t.RunErrorType.INTERNAL_ERROR, "run ended without a result"),
                )
            # The turn is over: the run table keeps its outcome for run/result, not
            # the images it was sent (decoded bytes, as large as a request may be).
            run.images = []
            self._threads.pop(run.run_id, None)
            session = self.sessions.get(run.session_id)
            if session is not None and session.notices:
                self._next_notice(session)
            if not self.runs.active():
                release_free_memory()  # idle now: hand the turn's freed heap back

    def _end_background(self, session_id: str) -> None:
        try:
            ended = self.adapter.end_background(session_id)
        except Exception as exc:
            log(f"worker: ending the background work of {session_id} failed: {exc!r}")
            return
        with self._lock:
            for source_id in ended:
                self._ended.append(source_id)  # bounded: the oldest fall off

    def _hand_back(self, notice: Notice) -> None:
        sid = notice.session_id
        with self._lock:
            ended = notice.source_id in self._ended
            held = self.sessions.get(sid)
            known = held is not None and not held.discarded
        if ended:
            log(f"worker: dropping the report of {notice.source_id}: its session ended")
            notice.settle(True)  # delivered as far as hermes goes: never offered again
            return
        if not known and self.adapter.stored_history(sid) is None:
            log(f"worker: dropping a background {notice.kind} result of a deleted session")
            notice.settle(True)  # nowhere to deliver it, now or later
            return
        with self._lock:
            session = self.sessions.get(sid)
            if session is None:  # resumed from the database to take it
                session = self.sessions[sid] = Session(sid, self.profile, restore=True)
            session.notices.append(notice)
        self._next_notice(session)

    def _next_notice(self, session: Session) -> None:
        """Start a run for the session's first waiting notice if it is free; once the
        worker is stopping, hand every waiting notice back to hermes instead."""
        with self._lock:
            if self._stopped:
                dropped, session.notices = session.notices, []
                taken = None
            else:
                dropped, taken = [], self._notice_run_locked(session)
        for notice in dropped:
            notice.settle(False)
        if taken is not None:
            taken.settle(True)

    def _notice_run_locked(self, session: Session) -> Notice | None:
        held = self.sessions.get(session.session_id)
        if held is not session or session.discarded:  # destroyed: the stored session takes it
            if held is None or held.discarded:
                held = Session(session.session_id, self.profile, restore=True)
                self.sessions[session.session_id] = held
            held.notices += session.notices
            session.notices = []
            session = held
        if session.run is not None or not session.notices:
            return None  # its run's end starts the next
        notice = session.notices.pop(0)
        trigger = t.RunTrigger(notice.kind, notice.source_id, notice.message)
        run = self._turn_run_locked(session, trigger)
        titled = self._titled(session.session_id)
        self._spawn_run(
            run, lambda: execute_run(self.adapter, session, run, notice.message, titled)
        )
        return notice
