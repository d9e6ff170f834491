"""The worker's request handlers: sessions and runs of one profile.

Contract:
- Requests are validated against the method table (and by ``checks``).
  ``run/start`` is answered at once with ``{runId, sessionId}``, or, for a new
  session naming a provider, once that resolves; the agent is built and the
  turn runs on the run's own thread afterwards. A session runs one run at a time
  (``session_busy`` otherwise). Nothing here blocks the reader thread.
- Requests that may be slow (hermes' stores, a new session's provider, a model
  switch) wait their turn in ``jobs``, a few at a time; a ``$/cancelRequest``
  from the supervisor answers one that has not started ``request_cancelled``.
- Every acknowledged run ends with exactly one ``run/completed``: the run
  thread completes it in a ``finally``, and shutdown/EOF interrupts runs and
  waits (bounded) for them. Once its thread is done, the run kept for
  ``run/result`` no longer holds the images it was sent.
- ``worker/shutdown`` interrupts every run, waits for them (bounded), answers,
  then lets the process exit. EOF on stdin does the same without answering.
  That, and ``session/destroy``, are ``stopping``'s.
- A session with no run that nothing has used (a run's start or end, a
  request that loads it) for ``session_idle_s`` is unloaded: dropped from
  memory and its agent closed; its history stays in the database, and the
  next run resumes it from there; one whose background work goes on (a
  process still running, a subagent at work, a result waiting for its run)
  is kept, and idle again ``session_idle_s`` later. One timer is set for the
  earliest such moment, from the end of each run; nothing polls.
- ``worker/background`` answers the sessions whose background work goes on
  (``tasks``, with the host's requests about that work).
- ``worker/setOptOut`` sets the notifications the host opted out of: not
  written from then on; a run's, for each run opened after it (``state.Run``
  drops them before numbering).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from ..protocol import HOST_METHODS, WORKER_METHODS, decode, encode
from ..protocol import types as t
from ..protocol import workers as pw
from ..protocol.opt_out import NO_OPT_OUT, OptOut
from ..transport import FrameWriter, Peer
from ..transport.log import log, report_error
from ..transport.timers import TIMERS, Soonest, Timers
from ..wire import ErrorType, Notification, Request, RpcError
from . import images
from .account_methods import AccountMethods
from .answers import AnswerMethods
from .checks import check_toolsets, check_workspace, usable_model
from .config_methods import ConfigMethods
from .contract import AgentAdapter
from .cron_methods import CronMethods
from .export_methods import ExportMethods
from .jobs import JobQueue
from .launch import RunLauncher
from .mcp_methods import McpMethods
from .memory_methods import MemoryMethods
from .one_shot import OneShotMethods
from .outbox import Outbox
from .parts import request_error
from .project_methods import ProjectMethods
from .queries import DEFERRED as _DEFERRED
from .queries import QueryMethods
from .reference_methods import ReferenceMethods
from .repo_files import RepoFiles
from .runner import execute_run
from .shell_methods import ShellMethods
from .skill_doc_methods import SkillDocMethods
from .state import Run, RunTable, Session, new_id
from .stopping import Stopping
from .tasks import TaskMethods
from .toggle_methods import ToggleMethods
from .transcripts import TranscriptMethods
from .unloading import SessionUnloading
from .usage_methods import UsageMethods

_METHODS = {**HOST_METHODS, **WORKER_METHODS}
# What a worker answers: every request the supervisor routes to it, and its own.
_ROUTED = {
    name for name, m in HOST_METHODS.items() if m.route != "supervisor" and not m.notification
} | {name for name, m in WORKER_METHODS.items() if not m.notification}


class WorkerService(
    AnswerMethods,
    AccountMethods,
    McpMethods,
    QueryMethods,
    OneShotMethods,
    ProjectMethods,
    ConfigMethods,
    CronMethods,
    MemoryMethods,
    ToggleMethods,
    SkillDocMethods,
    ReferenceMethods,
    ShellMethods,
    TaskMethods,
    TranscriptMethods,
    UsageMethods,
    ExportMethods,
    SessionUnloading,
    Stopping,
    RunLauncher,
):
    def __init__(
        self,
        profile: str,
        adapter: AgentAdapter,
        *,
        stop_timeout: float = 10.0,
        session_idle_s: float = 0.0,
        timers: Timers = TIMERS,
    ) -> None:
        self.profile = profile
        self.session_idle_s = session_idle_s
        self._idle_timer = Soonest(self._unload_idle, timers)
        self.adapter = adapter
        self.stop_timeout = stop_timeout
        self.sessions: dict[str, Session] = {}
        self.runs = RunTable()
        self._lock = threading.Lock()
        self.peer: Peer | None = None
        self.done = threading.Event()
        self.exit_reason = ""
        self._threads: dict[str, threading.Thread] = {}
        self._stopped = False
        self._ended = deque(maxlen=256)
        self._cron_firing: set[str] = set()  # jobs a run of this worker runs now
        self._text_streams = {}
        self.jobs = JobQueue(name="query")
        self.repo_files = RepoFiles()
        self.commands, self.commands_lock, self.commands_stopped = {}, threading.Lock(), False
        self.streams = {}
        self.opt_out = NO_OPT_OUT

    def attach(self, peer: Peer) -> None:
        self.peer = peer
        self.adapter.watch_background(self._hand_back)
        self.adapter.watch_processes(self._process_changed)
        self.adapter.watch_subagents(self._subagent_changed, self._subagent_progress)
        self.adapter.watch_commands(self._commands_changed)
        self.adapter.watch_mcp(self._mcp_changed)
        self.adapter.watch_mcp_logins(self._mcp_login_ended)
        self.adapter.watch_account_logins(self._account_login_ended)

    def _outbox(self) -> Outbox | Callable[[bytes], bool]:
        assert self.peer is not None
        writer = getattr(self.peer, "writer", None)
        return writer if isinstance(writer, FrameWriter) else self.peer.send_raw

    # --- PeerHandler -------------------------------------------------------

    def on_request(self, peer: Peer, req: Request) -> None:
        try:
            method = _METHODS.get(req.method)
            if method is None or req.method not in _ROUTED:
                raise RpcError(ErrorType.METHOD_NOT_FOUND, f"unknown method {req.method!r}")
            params: Any = decode(method.params, req.params)
            handler = getattr(self, "_h_" + req.method.replace("/", "_"))
            result = handler(req, params)
            if result is not _DEFERRED:
                peer.respond(req.id, encode(result))
        except Exception as exc:
            peer.respond_error(req.id, report_error(exc))

    def on_notification(self, peer: Peer, note: Notification, body: bytes) -> None:
        if note.method == "$/cancelRequest":  # the supervisor no longer waits for it
            try:
                target: t.CancelParams = decode(t.CancelParams, note.params)
            except RpcError as exc:
                log(f"worker: ignoring $/cancelRequest: {exc.message}")
                return
            self.jobs.cancel(target.id)
            self.cancel_command(target.id)
            return
        if note.method == "worker/setOptOut":
            try:
                told: pw.WorkerSetOptOutParams = decode(pw.WorkerSetOptOutParams, note.params)
            except RpcError as exc:
                log(f"worker: ignoring worker/setOptOut: {exc.message}")
                return
            self.opt_out = OptOut.from_worker(told)
            return
        log(f"worker: ignoring notification {note.method!r}")

    def on_closed(self, peer: Peer, reason: str) -> None:
        self.stop_runs()
        self.exit_reason = self.exit_reason or f"supervisor connection closed ({reason})"
        self.done.set()

    # --- runs --------------------------------------------------------------

    def _fresh_runtime(self) -> None:
        """New work needs the agent code this worker loaded to be the code on disk."""
        changed = self.adapter.runtime_changed()
        if changed is not None:
            raise RpcError(
                ErrorType.AGENT_RUNTIME_STALE,
                f"hermes-agent changed on disk since this worker loaded it ({changed});"
                " restart the worker (worker/restart) to use the new version",
                profile=self.profile,
            )

    def _h_run_start(self, req: Request, p: t.RunStartParams) -> t.RunStartResult:
        self._fresh_runtime()
        attachments = images.checked(p.images)
        check_workspace(p.workspace)
        held = self.sessions.get(p.session_id) if p.session_id is not None else None
        resolve = p.provider is not None and (held is None or held.discarded)
        if not resolve and not p.disabled_toolsets:
            return self._start_run(req, p, attachments)

        def start() -> None:  # what needs hermes is checked off the reader
            assert self.peer is not None
            try:
                if p.disabled_toolsets:
                    check_toolsets(self.adapter, p.disabled_toolsets)
                if resolve:  # a new session's provider must resolve, as in switchModel
                    usable_model(self.adapter, p.model or "", p.provider)
                self._start_run(req, p, attachments)
            except Exception as exc:
                self.peer.respond_error(req.id, report_error(exc))

        return self.queue(req, "run-start", start)  # type: ignore[return-value]

    def _start_run(
        self, req: Request, p: t.RunStartParams, attachments: list[images.Attachment]
    ) -> t.RunStartResult:
        # A known id this worker does not hold (e.g. after a restart): the run
        # thread loads its stored history, unless the host sends one.
        restore = p.session_id is not None and p.conversation_history is None
        session, run = self._open_run(p.session_id or new_id("sess"), p.model, p.provider, restore)
        run.expand_commands, run.images = p.expand_commands, attachments
        run.expand_references = p.expand_references
        if p.instructions is not None:
            session.choose(instructions=p.instructions)
        if p.reasoning_effort is not None:
            session.choose(reasoning_effort=p.reasoning_effort)
        if p.disabled_toolsets is not None:
            session.choose(disabled_toolsets=tuple(sorted(set(p.disabled_toolsets))) or None)
        if p.workspace is not None:
            session.workspace = p.workspace
        if p.source is not None:
            session.source = p.source
        if p.auto_approve is not None:
            self.adapter.set_auto_approve(session, p.auto_approve)
        if p.review_edits is not None:
            session.review_edits = p.review_edits
        if p.compression is not None:
            session.compression, session.compression_new = p.compression, True
        session.compress_next = p.force_compress
        if p.conversation_history is not None:
            session.history = list(p.conversation_history)
            session.restore = False  # the host's history wins over a stored one
            session.forget_reads = True
        titled = self._titled(session.session_id)
        return self._launch(
            req, run, lambda: execute_run(self.adapter, session, run, p.message, titled)
        )

    def _titled(self, session_id: str) -> Callable[[str], None]:
        def announce(title: str) -> None:
            if self.peer is not None and not self.opt_out.mutes("session/titled"):
                note = t.SessionTitledNotification(session_id, title)
                self.peer.notify("session/titled", encode(note))

        return announce

    def _release(self, session: Session, run: Run) -> None:
        with self._lock:
            if session.run is run:
                session.run = None
            session.last_used_at = int(time.time() * 1000)
        self.runs.finished(run)
        self._arm_idle()

    def _h_run_interrupt(self, req: Request, p: t.RunTarget) -> t.RunInterruptResult:
        run = self._run(p.run_id)
        if run.done:
            return t.RunInterruptResult(False)
        self._interrupt(run)
        return t.RunInterruptResult(True)

    def _interrupt(
        self, run: Run, message: str | None = None, session: Session | None = None
    ) -> None:
        run.request_interrupt(message)
        session = session or self.sessions.get(run.session_id)
        if session is not None and session.agent is not None:
            self.adapter.interrupt(session.agent, message)

    def _h_run_result(self, req: Request, p: t.RunTarget) -> t.RunResultResult:
        return self._run(p.run_id).status()

    def _run(self, run_id: str) -> Run:
        run = self.runs.get(run_id)
        if run is None:
            raise RpcError(ErrorType.UNKNOWN_RUN, f"unknown run {run_id!r}", runId=run_id)
        return run

    # --- sessions ----------------------------------------------------------

    def _h_session_status(self, req: Request, p: t.SessionStatusParams) -> t.SessionInfo:
        session = self.sessions.get(p.session_id)
        if session is None:
            return t.SessionInfo.unloaded(p.session_id, self.profile)
        return session.info()

    def _h_session_list(self, req: Request, p: t.SessionListParams) -> t.SessionListResult:
        with self._lock:
            sessions = list(self.sessions.values())
        return t.SessionListResult([s.info() for s in sessions])

    def _h_session_switchModel(self, req: Request, p: t.SessionSwitchModelParams) -> Any:
        def switch() -> None:
            assert self.peer is not None
            try:
                provider = usable_model(self.adapter, p.model, p.provider)
            except RpcError as exc:
                self.peer.respond_error(req.id, exc)
                return
            session = self._session(p.session_id)
            try:  # the rest of what is stored with it stays
                self.adapter.recall_settings(session)
            except Exception as exc:
                self.peer.respond_error(req.id, request_error(exc))
                return
            with self._lock:
                session.choose(model=p.model, provider=provider)
                session.switch_pending = True
                deferred = session.run is not None
            try:
                self.adapter.keep_settings(session)
            except Exception as exc:  # kept in memory; stored by its next run
                log(f"worker: storing the session's model failed: {exc!r}")
            result = t.SessionSwitchModelResult(p.session_id, p.model, provider, deferred)
            self.peer.respond(req.id, encode(result))

        return self.queue(req, "switch-model", switch)

    def _session(self, session_id: str) -> Session:
        """The session, or a new one resumed from the database when this worker lacks it."""
        with self._lock:
            session = self.sessions.get(session_id)
            if session is None or session.discarded:
                session = Session(session_id, self.profile, restore=True)
                self.sessions[session_id] = session
            session.last_used_at = int(time.time() * 1000)
            return session
