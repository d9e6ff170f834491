"""A session's background work, as a host sees and stops it: the processes and
subagents its agent started that go on after its turn.

Contract (a mixin of ``WorkerService``, which provides ``adapter``,
``sessions``, ``_lock`` and ``answer_off_reader``):
- ``process/list`` and ``process/kill``: the session's background processes,
  running or recently finished, and killing one (``background.owned``,
  ``background.kill``); ``subagent/list`` and ``subagent/interrupt``: its
  subagents of an async ``delegate_task``, and telling those still at work to
  stop (each still reports when it ends: a run of its session, ``launch``).
  Each is answered off the reader (it may import hermes).
- ``_working()`` is the sessions whose background work goes on: a process
  still running, a subagent at work, or a result waiting for its run. Cheap,
  and it never imports hermes; ``worker/background`` (the supervisor's, before
  an idle stop) answers it.
- ``_process_changed(change, session_id, info)`` pushes ``process/started`` or
  ``process/exited`` to the host when one of the sessions' background processes
  starts or ends (``watch_processes``); ``_subagent_changed`` pushes
  ``subagent/started`` or ``subagent/ended`` for its subagents (``watch_subagents``),
  and ``_subagent_progress`` ``subagent/progress`` for what they do meanwhile.
  A subagent's streamed reply (``subagent.text``, one report per token) is
  sent as a run's deltas are: consecutive pieces with the same fields
  coalesce into one notification while the host lags or the stream is fast,
  up to ``background.TAIL_CHARS`` characters each, in order and whole.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from ..protocol import encode
from ..protocol import processes as pr
from ..protocol import types as t
from ..protocol import workers as pw
from ..protocol.accounts import WorkerAccountLoginEndedNotification
from ..protocol.mcp_login import WorkerMcpLoginEndedNotification
from ..protocol.opt_out import OptOut
from ..protocol.record import Record
from ..protocol.toolbox import McpServerInfo
from ..transport import Peer
from ..transport.log import log
from ..wire import Request
from ..wire.jsonrpc import encode_notification
from . import background
from .contract import AgentAdapter
from .outbox import Outbox, TextItem, TextStream, as_outbox
from .state import Session
from .watches import Change

# Streams whose text was written lately, for the writer's linger; at most this many
# (forgetting one only makes its next piece leave at once).
_MAX_TEXT_STREAMS = 256


class TaskMethods:
    adapter: AgentAdapter
    sessions: dict[str, Session]
    _lock: threading.Lock  # guards ``sessions``
    peer: Peer | None
    answer_off_reader: Callable[[Request, str, Callable[[], Record]], object]  # ``queries``
    _outbox: Callable[[], Outbox | Callable[[bytes], bool]]
    _text_streams: dict[tuple[str, str, str | None], TextStream]
    opt_out: OptOut  # what the host opted out of is not written

    def _h_process_list(self, req: Request, p: t.SessionTarget) -> Any:
        def listed() -> pr.ProcessListResult:
            registry = self.adapter.process_registry()
            found = background.owned(registry, p.session_id) if registry is not None else []
            return pr.ProcessListResult(found)

        return self.answer_off_reader(req, "processes", listed)

    def _h_process_kill(self, req: Request, p: pr.ProcessKillParams) -> Any:
        def killed() -> pr.ProcessKillResult:
            registry = self.adapter.process_registry()
            done = registry is not None and background.kill(registry, p.session_id, p.process_id)
            return pr.ProcessKillResult(done)

        return self.answer_off_reader(req, "kill", killed)

    def _h_subagent_list(self, req: Request, p: t.SessionTarget) -> Any:
        def listed() -> Record:
            return pr.SubagentListResult(self.adapter.subagents(p.session_id))

        return self.answer_off_reader(req, "subagents", listed)

    def _h_subagent_interrupt(self, req: Request, p: t.SessionTarget) -> Any:
        def stopped() -> Record:
            return pr.SubagentInterruptResult(self.adapter.interrupt_subagents(p.session_id))

        return self.answer_off_reader(req, "interrupt", stopped)

    def _process_changed(self, change: Change, session_id: str, info: pr.ProcessInfo) -> None:
        self._tell(
            "process",
            change,
            pr.ProcessStartedNotification(session_id, info)
            if change == "started"
            else pr.ProcessExitedNotification(session_id, info),
        )

    def _subagent_changed(self, change: Change, session_id: str, info: pr.SubagentInfo) -> None:
        self._tell(
            "subagent",
            change,
            pr.SubagentStartedNotification(session_id, info)
            if change == "started"
            else pr.SubagentEndedNotification(session_id, info),
        )

    def _subagent_progress(
        self, session_id: str, subagent_id: str, progress: pr.SubagentProgress
    ) -> None:
        if self.opt_out.mutes("subagent/progress"):
            return
        note = pr.SubagentProgressNotification(session_id, subagent_id, progress)
        if progress.kind != "subagent.text" or not progress.preview or self.peer is None:
            self._tell("subagent", "progress", note)
            return
        # Every field but the text: what a later piece must share to join this one.
        key = (session_id, subagent_id, {**vars(progress), "preview": None})
        out = as_outbox(self._outbox())
        if out.merge_tail(key, progress.preview):
            return
        streams, name = self._text_streams, (session_id, subagent_id, progress.child_id)
        stream = streams.get(name)
        if stream is None:
            if len(streams) >= _MAX_TEXT_STREAMS:
                streams.clear()
            stream = streams[name] = TextStream()

        def render(text: str) -> bytes:
            params = encode(note)
            params["progress"]["preview"] = text
            return encode_notification("subagent/progress", params)

        cap = background.TAIL_CHARS
        out.send_lazy(TextItem(stream, key, progress.preview, render, cap=cap))

    def _mcp_changed(self, servers: list[McpServerInfo]) -> None:
        self._tell("worker", "mcpChanged", pw.WorkerMcpChangedNotification(servers))

    def _mcp_login_ended(self, login_id: str, name: str, error: str | None) -> None:
        ended = WorkerMcpLoginEndedNotification(login_id, name, error)
        self._tell("worker", "mcpLoginEnded", ended)

    def _account_login_ended(self, login_id: str, provider: str, error: str | None) -> None:
        ended = WorkerAccountLoginEndedNotification(login_id, provider, error)
        self._tell("worker", "accountLoginEnded", ended)

    def _commands_changed(self, fingerprint: str) -> None:
        self._tell("worker", "commandsChanged", pw.WorkerCommandsChangedNotification(fingerprint))

    def _tell(self, work: str, change: str, note: Record) -> None:
        if self.peer is not None and not self.opt_out.mutes(f"{work}/{change}"):
            self.peer.notify(f"{work}/{change}", encode(note))

    def _h_worker_background(self, req: Request, p: t.EmptyParams) -> pw.WorkerBackgroundResult:
        return pw.WorkerBackgroundResult(sorted(self._working()))

    def _working(self) -> set[str]:
        """Sessions whose background work goes on: closing their agent may end it
        (hermes' close kills its task's processes and stops its child agents)."""
        with self._lock:
            held = list(self.sessions)
            waiting = {s.session_id for s in self.sessions.values() if s.notices}
        try:
            return waiting | self.adapter.working_sessions(held)
        except Exception as exc:
            log(f"worker: reading the sessions' background work failed: {exc!r}")
            return waiting
