"""Opening a run of a session and running it on a thread of its own.

Contract (a mixin of ``WorkerService``, which provides ``sessions``, ``runs``,
``_lock``, ``peer``, ``profile``, ``_threads``, ``_outbox`` and ``_release``):
``_open_run`` makes the session's new run (creating the session, to be
restored from the database when asked, if this worker does not hold it or it
was destroyed) or raises ``session_busy``; ``_launch`` acknowledges it with
``{runId, sessionId}``, before anything of the run can reach the wire, and
does the run's work on its own thread, which always ends the run with exactly
one ``run/completed`` (an ``internal_error`` if the work raised or did not end
it). Once the work is done the run kept for ``run/result`` no longer holds the
images it was sent, and a worker with no run left hands freed heap back.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from ..protocol import encode
from ..protocol import types as t
from ..transport import Peer
from ..transport.log import report_error
from ..wire import Request
from .memory import release_free_memory
from .outbox import Outbox
from .queries import DEFERRED, session_busy
from .state import Run, RunTable, Session, new_id


class RunLauncher:
    sessions: dict[str, Session]
    runs: RunTable
    _lock: threading.Lock
    peer: Peer | None
    profile: str
    _threads: dict[str, threading.Thread]
    _outbox: Callable[[], Outbox | Callable[[bytes], bool]]
    _release: Callable[[Session, Run], None]

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
            run = Run(new_id("run"), session_id, self._outbox())
            run.on_complete = lambda: self._release(session, run)
            session.run = run
            session.last_used_at = int(time.time() * 1000)
            self.runs.add(run)
        return session, run

    def _launch(self, req: Request, run: Run, body: Callable[[], None]) -> t.RunStartResult:
        """Acknowledge the run, then do ``body`` on the run's own thread."""
        assert self.peer is not None
        # The ack goes out before the run thread can emit anything for this run.
        self.peer.respond(req.id, encode(t.RunStartResult(run.run_id, run.session_id)))
        thread = threading.Thread(
            target=self._run_thread, args=(run, body), name=f"run-{run.run_id[-8:]}", daemon=True
        )
        self._threads[run.run_id] = thread
        thread.start()
        return DEFERRED  # type: ignore[return-value]

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
            if not self.runs.active():
                release_free_memory()  # idle now: hand the turn's freed heap back
