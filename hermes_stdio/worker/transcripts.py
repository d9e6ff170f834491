"""Requests that edit a stored session's transcript: ``session/undo``, ``session/fork``
and ``session/delete``.

Contract (a mixin of ``WorkerService``, beside ``QueryMethods``): each is
refused with ``session_busy`` while the session runs, loads the session (as
``session/estimateContext`` does; a session the database does not know is
``unknown_session`` and stays unloaded), and does its work off the reader
thread holding the session's build lock. A run accepted once the work has
begun waits for it and sees its result; one accepted between the request and
its work makes the request ``session_busy``, so no edit happens under a turn.
hermes' database does the editing (``catalog.rewind``, ``catalog.fork`` and
``catalog.delete``, as its ``/undo``, ``/branch`` and ``sessions delete``).
- ``session/undo``: after exchanges were taken back, the session's history is
  read back from the database and its agent is released (its clients, not
  the session's background processes, terminal or browser); the next run
  builds a new one, as hermes' gateway does after ``/undo``.
- ``session/fork``: the branch is stored, not loaded; ``run/start`` naming it
  resumes it. A ``newSessionId`` this worker or the database already has, or
  a title hermes refuses, is ``invalid_params``.
- ``session/delete``: the conversation is removed from the database; the
  session's agent is closed (as ``session/destroy`` closes it) and forgotten.
  A run accepted while the delete worked starts the conversation afresh.

``session/compress`` is not an edit but a run of its own (``runner``'s
``execute_compaction``), answered ``{runId, sessionId}`` like ``run/start``:
``session_busy`` while the session runs, ``unknown_session`` (looked up off
the reader) for one neither held nor stored, ``invalid_params`` for a focus
over ``MAX_FOCUS_CHARS``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from ..protocol import stored as st
from ..protocol import types as t
from ..protocol.record import Record
from ..transport.peer import Peer
from ..wire import ErrorType, Request, RpcError
from .catalog import SessionExists, TitleRefused, UnknownSession
from .contract import AgentAdapter
from .parts import request_error
from .queries import session_busy, stored_only
from .runner import execute_compaction
from .state import Run, Session, new_id

MAX_FOCUS_CHARS = 1000


class TranscriptMethods:
    adapter: AgentAdapter
    sessions: dict[str, Session]
    _session: Callable[[str], Session]  # the held session, or a new one to resume
    _lock: threading.Lock  # guards ``sessions``
    answer_off_reader: Callable[[Request, str, Callable[[], Record]], object]
    queue: Callable[[Request, str, Callable[[], None]], object]
    peer: Peer | None
    _fresh_runtime: Callable[[], None]
    _end_background: Callable[[str], None]
    _open_run: Callable[[str, str | None, str | None, bool], tuple[Session, Run]]
    _launch: Callable[[Request, Run, Callable[[], None]], t.RunStartResult]

    def _h_session_compress(self, req: Request, p: t.SessionCompressParams) -> Any:
        if p.focus is not None and len(p.focus) > MAX_FOCUS_CHARS:
            raise RpcError(
                ErrorType.INVALID_PARAMS,
                f"focus must be at most {MAX_FOCUS_CHARS} characters",
                field="params.focus",
            )
        self._fresh_runtime()

        def start() -> t.RunStartResult:
            session, run = self._open_run(p.session_id, None, None, True)
            work = lambda: execute_compaction(self.adapter, session, run, p.focus)  # noqa: E731
            return self._launch(req, run, work)

        held = self.sessions.get(p.session_id)
        if held is not None and not held.discarded:
            return start()

        def look_up() -> None:  # the database may not know it: then nothing is created
            assert self.peer is not None
            try:
                if self.adapter.stored_history(p.session_id) is None:
                    raise RpcError(
                        ErrorType.UNKNOWN_SESSION,
                        f"unknown session {p.session_id!r}",
                        sessionId=p.session_id,
                    )
                start()
            except Exception as exc:
                self.peer.respond_error(req.id, request_error(exc))

        return self.queue(req, "compress", look_up)

    def _h_session_undo(self, req: Request, p: st.SessionUndoParams) -> Any:
        if p.turns < 1:
            raise RpcError(
                ErrorType.INVALID_PARAMS, "turns must be 1 or more", field="params.turns"
            )

        def undo(session: Session) -> st.SessionUndoResult:
            done = self.adapter.undo_turns(p.session_id, p.turns)
            if done.turns:  # a new agent, the session's processes and terminal kept
                self.adapter.release(session.agent)
                session.agent = None
                session.history = self.adapter.stored_history(p.session_id) or []
                session.restore = False
                session.forget_reads = True  # what those turns read is no longer in it
            return st.SessionUndoResult(p.session_id, done.turns, done.removed, done.message)

        return self._edit(req, "undo", p.session_id, undo)

    def _h_session_fork(self, req: Request, p: st.SessionForkParams) -> Any:
        branch = new_id("sess") if p.new_session_id is None else p.new_session_id
        if not branch.strip():
            raise RpcError(
                ErrorType.INVALID_PARAMS,
                "newSessionId must not be blank",
                field="params.newSessionId",
            )
        if branch in self.sessions:
            raise _taken(branch)

        def fork(session: Session) -> st.SessionForkResult:
            try:
                done = self.adapter.fork_session(p.session_id, branch, p.title)
            except SessionExists as exc:
                raise _taken(branch) from exc
            except TitleRefused as exc:
                raise RpcError(ErrorType.INVALID_PARAMS, str(exc), field="params.title") from exc
            return st.SessionForkResult(branch, p.session_id, done.title, done.messages)

        return self._edit(req, "fork", p.session_id, fork)

    def _h_session_delete(self, req: Request, p: st.SessionDeleteParams) -> Any:
        def delete(session: Session) -> st.SessionDeleteResult:
            done = self.adapter.delete_session(p.session_id)
            self._end_background(p.session_id)
            self.adapter.close(session.agent)
            self.adapter.forget_session(p.session_id)  # its sudo password, approvals...
            session.agent = None
            session.history = []
            session.restore = False  # its stored history is gone
            session.forget_hermes = True  # and so is what hermes kept for it
            with self._lock:
                if self.sessions.get(p.session_id) is session and session.run is None:
                    del self.sessions[p.session_id]
            return st.SessionDeleteResult(p.session_id, list(done.session_ids), done.messages)

        return self._edit(req, "delete", p.session_id, delete)

    def _edit(
        self, req: Request, name: str, session_id: str, act: Callable[[Session], Record]
    ) -> object:
        held = session_id in self.sessions
        session = self._session(session_id)
        run = session.run
        if run is not None:
            raise session_busy(session_id, run.run_id)

        def locked() -> Record:
            with session.build_lock:
                run = session.run  # accepted since, and built first: its turn is going on
                if run is not None:
                    raise session_busy(session_id, run.run_id)
                try:
                    return act(session)
                except UnknownSession:
                    if not held:  # nothing to load: leave no trace
                        with self._lock:
                            if self.sessions.get(session_id) is session and session.run is None:
                                del self.sessions[session_id]
                    raise

        return self.answer_off_reader(req, name, lambda: stored_only(session_id, locked))


def _taken(session_id: str) -> RpcError:
    return RpcError(
        ErrorType.INVALID_PARAMS,
        f"session {session_id!r} already exists",
        field="params.newSessionId",
    )
