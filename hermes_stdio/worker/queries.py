"""Requests a worker answers from hermes' own stores, off the reader thread.

Contract (a mixin of ``WorkerService``, which provides ``adapter``,
``sessions`` and ``peer``): ``command/list`` (the profile's skills and
bundles), ``session/listStored`` (its stored
sessions, a page at a time; a relative ``workspace`` is ``invalid_params``),
``session/search`` (their messages, by hermes'
full-text search; a blank or over-long query is ``invalid_params``),
``session/rename`` and ``session/archive`` (a
stored session's title, and whether it is listed), ``tool/list`` (the
tools a session's agent offers its model, or a new agent's), ``model/list`` (the
models the profile can use; a session's current choice marked when this
worker holds it, and those ``account/login`` signs in to), ``checkpoint/list``,
``checkpoint/diff`` and ``checkpoint/restore`` (hermes' file checkpoints of a
project directory; a refused one is ``invalid_params`` naming the field),
``session/estimateContext`` (which may build the session's agent),
``session/goal`` (its goals) and ``session/history`` (from memory when a worker
holds the session, else read from the profile's database without loading it;
a page of it, the newest ``limit`` messages before ``before``, when asked)
may import hermes-agent, touch the disk or copy a long history, so each is
answered off the reader, in the worker's ``JobQueue`` (``answer_off_reader``,
which returns ``DEFERRED``); one cancelled before it starts is answered
``request_cancelled``. hermes-agent missing is ``agent_unavailable``; an action hermes
refuses is ``invalid_params``; a session nobody knows is ``unknown_session``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from ..protocol import checkpoints as ck
from ..protocol import encode
from ..protocol import providers as pv
from ..protocol import stored as st
from ..protocol import toolbox as x
from ..protocol import types as t
from ..protocol import usage as u
from ..protocol.record import Record
from ..transport import Peer
from ..wire import ErrorType, Request, RpcError
from . import checkpoints
from .catalog import Spent, UnknownSession
from .contract import AgentAdapter
from .jobs import JobQueue
from .message_search import Found, snippet_parts
from .messages import public
from .parts import request_error
from .runner import AgentNotReady, ready_agent
from .state import Session

DEFERRED = object()  # a handler's result: the answer is sent later, by a thread
MAX_QUERY_CHARS = 1000  # a session/search query; hermes' FTS5 work grows with its terms


class QueryMethods:
    adapter: AgentAdapter
    sessions: dict[str, Session]
    peer: Peer | None
    jobs: JobQueue
    _session: Callable[[str], Session]  # the held session, or a new one to resume
    _fresh_runtime: Callable[[], None]  # raises agent_runtime_stale

    def answer_off_reader(
        self, req: Request, name: str, answer: Callable[[], Record], slow: bool = False
    ) -> object:
        def run() -> None:
            assert self.peer is not None
            try:
                result = answer()
            except Exception as exc:
                self.peer.respond_error(req.id, request_error(exc))
            else:
                self.peer.respond(req.id, encode(result))

        return self.queue(req, name, run, slow)

    def queue(self, req: Request, name: str, job: Callable[[], None], slow: bool = False) -> object:
        """Run ``job`` (which answers ``req``) in the worker's ``JobQueue`` (``slow``:
        one that may wait on the network or build an agent). If the supervisor gives
        up on ``req`` first (its host cancelled it, or it timed out), it is answered
        ``request_cancelled``: every request gets one answer."""

        def cancelled() -> None:
            assert self.peer is not None
            self.peer.respond_error(req.id, RpcError(ErrorType.REQUEST_CANCELLED))

        self.jobs.submit(req.id, job, cancelled, name, slow=slow)
        return DEFERRED

    def _h_command_list(self, req: Request, p: t.WorkerTarget) -> Any:
        def scan() -> x.CommandListResult:
            found = self.adapter.list_commands()
            return x.CommandListResult([x.CommandInfo(**c) for c in found])  # type: ignore[arg-type]

        return self.answer_off_reader(req, "commands", scan)

    def _h_session_listStored(self, req: Request, p: st.SessionListStoredParams) -> Any:
        _page_bounds(p.limit, p.offset, 200)
        if p.workspace is not None and not os.path.isabs(p.workspace):
            raise RpcError(
                ErrorType.INVALID_PARAMS,
                "workspace must be an absolute path",
                field="params.workspace",
            )

        def browse() -> st.SessionListStoredResult:
            rows, next_offset = self.adapter.stored_sessions(
                p.query, p.source, p.archived, p.workspace, p.limit, p.offset
            )
            return st.SessionListStoredResult([_stored(r, u) for r, u in rows], next_offset)

        return self.answer_off_reader(req, "stored-sessions", browse)

    def _h_session_search(self, req: Request, p: st.SessionSearchParams) -> Any:
        _page_bounds(p.limit, p.offset, 100)
        if not p.query.strip() or len(p.query) > MAX_QUERY_CHARS:
            raise RpcError(
                ErrorType.INVALID_PARAMS,
                f"query must hold 1 to {MAX_QUERY_CHARS} characters, not only spaces",
                field="params.query",
            )
        if p.roles == []:
            raise RpcError(
                ErrorType.INVALID_PARAMS,
                "roles must name a role, or be left out",
                field="params.roles",
            )
        roles: list[str] | None = sorted(set(p.roles)) if p.roles else None

        def search() -> st.SessionSearchResult:
            found, next_offset = self.adapter.search_sessions(
                p.query, roles, p.source, p.order, p.limit, p.offset
            )
            return st.SessionSearchResult([_hit(f, p.query) for f in found], next_offset)

        return self.answer_off_reader(req, "search", search)

    def _h_session_rename(self, req: Request, p: st.SessionRenameParams) -> Any:
        def rename() -> st.SessionRenameResult:
            try:
                saved = self.adapter.rename_session(p.session_id, p.title)
            except ValueError as exc:  # hermes refuses it: in use, too long, ...
                raise RpcError(ErrorType.INVALID_PARAMS, str(exc), field="params.title") from exc
            return st.SessionRenameResult(p.session_id, saved)

        return self.answer_off_reader(req, "rename", lambda: stored_only(p.session_id, rename))

    def _h_session_archive(self, req: Request, p: st.SessionArchiveParams) -> Any:
        def archive() -> st.SessionArchiveResult:
            done = self.adapter.archive_session(p.session_id, p.archived)
            return st.SessionArchiveResult(p.session_id, done)

        return self.answer_off_reader(req, "archive", lambda: stored_only(p.session_id, archive))

    def _h_checkpoint_list(self, req: Request, p: ck.CheckpointListParams) -> Any:
        return self._checkpoint(req, lambda mgr: checkpoints.listed(mgr, p.directory))

    def _h_checkpoint_diff(self, req: Request, p: ck.CheckpointDiffParams) -> Any:
        return self._checkpoint(req, lambda mgr: checkpoints.diffed(mgr, p.directory, p.hash))

    def _h_checkpoint_restore(self, req: Request, p: ck.CheckpointRestoreParams) -> Any:
        def restore(mgr: Any) -> Record:
            return checkpoints.restored(mgr, p.directory, p.hash, p.path)

        return self._checkpoint(req, restore)

    def _checkpoint(self, req: Request, act: Callable[[Any], Record]) -> object:
        def answer() -> Record:
            try:
                return act(self.adapter.checkpoints())
            except checkpoints.CheckpointRefused as exc:
                raise RpcError(ErrorType.INVALID_PARAMS, str(exc), field=exc.field) from exc

        return self.answer_off_reader(req, "checkpoints", answer, slow=True)  # runs git

    def _held_agent(self, session_id: str | None) -> Any:
        """The agent of a session this worker holds; None when it holds none."""
        session = self.sessions.get(session_id) if session_id is not None else None
        return session.agent if session is not None else None

    def _h_tool_list(self, req: Request, p: x.ToolListParams) -> Any:
        agent = self._held_agent(p.session_id)

        def listed() -> x.ToolListResult:
            found = self.adapter.offered_tools(agent)
            return x.ToolListResult(
                [x.ToolInfo(**tool) for tool in found["tools"]],
                found["enabled_toolsets"],
                found["disabled_toolsets"],
            )

        return self.answer_off_reader(req, "tools", listed, slow=True)

    def _h_model_list(self, req: Request, p: pv.ModelListParams) -> Any:
        agent = self._held_agent(p.session_id)

        def listing() -> pv.ModelListResult:
            catalog = self.adapter.model_catalog(agent, p.refresh, p.include_unconfigured)
            return _models(catalog, self.adapter.accounts().providers)

        return self.answer_off_reader(req, "models", listing, slow=True)

    def _h_session_estimateContext(self, req: Request, p: u.SessionContextParams) -> Any:
        self._fresh_runtime()

        def estimate() -> u.SessionContextResult:
            session = self._session(p.session_id)
            try:  # may build the agent: never on the reader thread
                agent = ready_agent(self.adapter, session)
            except AgentNotReady as exc:
                unavailable = exc.kind == t.RunErrorType.AGENT_UNAVAILABLE
                kind = ErrorType.AGENT_UNAVAILABLE if unavailable else ErrorType.AGENT_ERROR
                raise RpcError(kind, str(exc)) from exc
            history = p.messages if p.messages is not None else session.history
            instructions = p.instructions if p.instructions is not None else session.instructions
            figures = self.adapter.estimate_context(agent, list(history), instructions)
            model = self.adapter.model_of(agent) or session.model
            return u.SessionContextResult(session_id=p.session_id, model=model, **figures)

        return self.answer_off_reader(req, "estimate", estimate, slow=True)

    def _respond_with(self, req: Request) -> Callable[[Record], None]:
        """What answers ``req`` with a record (a sign-in's start: its end is told after)."""
        peer = self.peer
        assert peer is not None

        def respond(result: Record) -> None:
            peer.respond(req.id, encode(result))

        return respond

    def _h_session_goal(self, req: Request, p: t.SessionGoalParams) -> Any:
        for name, value in (("maxTurns", p.max_turns), ("index", p.index)):
            if value is not None and value < 1:
                raise RpcError(
                    ErrorType.INVALID_PARAMS, f"{name} must be 1 or more", field=f"params.{name}"
                )

        def apply() -> t.GoalInfo:
            try:
                return self.adapter.goal(p.session_id, p.action, p.text, p.index, p.max_turns)
            except ValueError as exc:
                raise RpcError(ErrorType.INVALID_PARAMS, str(exc), field="params.action") from exc

        return self.answer_off_reader(req, "goal", apply)

    def _h_session_history(self, req: Request, p: t.SessionHistoryParams) -> Any:
        if p.limit is not None:
            _page_bounds(p.limit, 0, 1000)
        if p.before is not None and p.before < 0:
            raise RpcError(
                ErrorType.INVALID_PARAMS, "before must be 0 or more", field="params.before"
            )

        def load() -> t.SessionHistoryResult:
            # Copying a long history is work too: off the reader, like the database read.
            session = self.sessions.get(p.session_id)
            if session is not None and not session.restore:
                return _history(p, session.history)
            stored = self.adapter.stored_history(p.session_id)
            if stored is None:
                raise RpcError(
                    ErrorType.UNKNOWN_SESSION,
                    f"unknown session {p.session_id!r}",
                    sessionId=p.session_id,
                )
            return _history(p, stored)

        return self.answer_off_reader(req, "history", load)


def _history(p: t.SessionHistoryParams, messages: list[dict[str, Any]]) -> t.SessionHistoryResult:
    whole = [m for m in list(messages) if isinstance(m, dict)]  # as public() counts them
    end = len(whole) if p.before is None else min(p.before, len(whole))
    start = 0 if p.limit is None else max(0, end - p.limit)
    return t.SessionHistoryResult(p.session_id, public(whole[start:end]), len(whole), start)


def session_busy(session_id: str, run_id: str) -> RpcError:
    return RpcError(
        ErrorType.SESSION_BUSY,
        f"session {session_id!r} is running {run_id}",
        sessionId=session_id,
        runId=run_id,
    )


def stored_only(session_id: str, act: Callable[[], Record]) -> Record:
    """``act`` on a stored session: ``unknown_session`` when the database has none."""
    try:
        return act()
    except UnknownSession as exc:
        raise RpcError(
            ErrorType.UNKNOWN_SESSION, f"unknown session {session_id!r}", sessionId=session_id
        ) from exc


def _ms(value: Any) -> int | None:
    return int(value * 1000) if isinstance(value, int | float) and value > 0 else None


def _text(value: Any) -> str | None:
    return str(value) if value else None


def _page_bounds(limit: int, offset: int, most: int) -> None:
    for name, value, low, high in (("limit", limit, 1, most), ("offset", offset, 0, None)):
        if value < low or (high is not None and value > high):
            bound = f"between {low} and {high}" if high else f"{low} or more"
            raise RpcError(
                ErrorType.INVALID_PARAMS, f"{name} must be {bound}", field=f"params.{name}"
            )


def _hit(found: Found, query: str) -> st.SessionSearchHit:
    row = found.row
    stamp = row.get("timestamp")
    parts = snippet_parts(str(row.get("snippet") or ""), query)
    return st.SessionSearchHit(
        session_id=found.session_id,
        title=found.title,
        archived=found.archived,
        role=str(row.get("role") or ""),
        tool_name=_text(row.get("tool_name")) if row.get("role") == "tool" else None,
        snippet=[st.SnippetPart(text, matched) for text, matched in parts],
        timestamp=float(stamp) if isinstance(stamp, int | float) else None,
    )


def _stored(row: dict[str, Any], used: Spent) -> st.StoredSession:
    """One of hermes' session rows; a compressed conversation is listed under the id
    its host knows (the chain's root), with its live continuation's figures."""
    count = row.get("message_count")
    return st.StoredSession(
        session_id=str(row.get("_lineage_root_id") or row.get("id") or ""),
        title=_text(row.get("title")),
        preview=_text(row.get("preview")),
        source=_text(row.get("source")),
        model=_text(row.get("model")),
        workspace=_text(row.get("cwd")),
        message_count=count if isinstance(count, int) else 0,
        started_at=_ms(row.get("started_at")),
        last_active_at=_ms(row.get("last_active")),
        usage=st.StoredUsage(
            used.input_tokens,
            used.output_tokens,
            used.cache_read_tokens,
            used.cache_write_tokens,
            used.reasoning_tokens,
            used.api_calls,
            used.cost_usd,
        ),
    )


def _models(payload: dict[str, Any], sign_in: frozenset[str]) -> pv.ModelListResult:
    """hermes' model picker payload, in this protocol's terms."""
    providers = []
    for row in payload.get("providers") or []:
        if not isinstance(row, dict) or not row.get("slug"):
            continue
        models = [str(m) for m in row.get("models") or [] if m]
        total = row.get("total_models")
        providers.append(
            pv.ProviderModels(
                slug=str(row["slug"]),
                name=str(row.get("name") or row["slug"]),
                current=bool(row.get("is_current")),
                user_defined=bool(row.get("is_user_defined")),
                models=models,
                total_models=total if isinstance(total, int) else len(models),
                authenticated=bool(row.get("authenticated")),
                sign_in=row["slug"] in sign_in,
                api_url=_text(row.get("api_url")),
                warning=_text(row.get("warning")),
            )
        )
    return pv.ModelListResult(
        _text(payload.get("model")), _text(payload.get("provider")), providers
    )
