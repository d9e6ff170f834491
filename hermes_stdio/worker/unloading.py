"""Sessions let go of: unloaded when idle, and what hermes keeps of a dropped one.

Contract (a mixin of ``WorkerService``, which provides ``sessions``, ``adapter``,
``session_idle_s``, ``_idle_timer`` (a ``Soonest`` calling ``_unload_idle``),
``_lock`` and ``_working``):
- ``_arm_idle()`` sets the one timer for the earliest moment a session with no
  run turns ``session_idle_s`` unused (nothing when that is 0 or less).
- ``_unload_idle()`` (the timer) drops each such session from memory, except
  one whose background work goes on (``_working``: kept, unused from now),
  then lets go of each dropped one on a thread of its own (``_let_go``, reason
  ``idle``) and arms the timer again.
- ``_let_go(session, reason)`` tells hermes the session is let go of
  (``adapter.end_session``: ``idle``, its memory provider keeps what it learned
  so far and its DB row stays open; ``closed``, it is over), closes its agent,
  then drops what hermes keeps process-wide under its id
  (``adapter.forget_session``: its cached sudo password, "session"
  approvals, ...) unless the session was loaded again meanwhile (its first
  turn then drops that on its way in).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from ..transport.log import log
from ..transport.timers import Soonest
from .contract import AgentAdapter
from .state import Session


class SessionUnloading:
    sessions: dict[str, Session]
    adapter: AgentAdapter
    session_idle_s: float
    _idle_timer: Soonest
    _lock: threading.Lock
    _working: Callable[[], set[str]]

    def _arm_idle(self) -> None:
        if self.session_idle_s <= 0:
            return
        with self._lock:
            unused = [s.last_used_at for s in self.sessions.values() if s.run is None]
        if unused:
            self._idle_timer.at(min(unused) / 1000 + self.session_idle_s - time.time())

    def _unload_idle(self) -> None:
        cutoff = int((time.time() - self.session_idle_s) * 1000)
        working = self._working()
        now = int(time.time() * 1000)
        with self._lock:
            gone = [s for s in self.sessions.values() if s.run is None and s.last_used_at <= cutoff]
            for session in list(gone):
                if session.session_id in working:  # idle again session_idle_s from now
                    session.last_used_at = now
                    gone.remove(session)
                    log(
                        f"worker: keeping session {session.session_id}: its background work goes on"
                    )
                else:
                    del self.sessions[session.session_id]
        for session in gone:
            log(
                f"worker: unloading session {session.session_id}: "
                f"unused for {self.session_idle_s:g} s"
            )
            # Closing an agent may take a while: never on the timer thread.
            threading.Thread(
                target=self._let_go, args=(session, "idle"), name="close", daemon=True
            ).start()
        self._arm_idle()

    def _let_go(self, session: Session, reason: str) -> None:
        """End and close a dropped session's agent and what hermes keeps under its id,
        unless it was loaded again meanwhile (its first turn then drops that on its
        way in)."""
        if session.agent is not None:
            self.adapter.end_session(session.agent, session.history, reason)
        self.adapter.close(session.agent)
        with self._lock:
            again = session.session_id in self.sessions
        if not again:
            self.adapter.forget_session(session.session_id)
