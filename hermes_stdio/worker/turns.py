"""A session's turns for ``adapter.HermesAdapter``: its agent's turn or compression,
run in the session's scope, and what the host does to a turn while it runs.

Contract: ``HermesTurns`` is a mixin of ``HermesAdapter`` (which provides
``home``, the profile's hermes home, ``_db``, its session database, the bridges
``_approvals``, ``_sudo`` and ``_secrets`` a turn asks through, ``_cron_turns``,
the cron jobs a turn's tool runs, and ``_mcp``, its MCP servers) and implements
the ``contract.AgentAdapter`` methods ``run_turn``, ``compress``,
``interrupt``, ``steer``, ``save_transcript`` and ``forget_session``:
- ``forceCompress`` compresses before the turn, and ``compress``
  (``session/compress``) without one, the way the session's compression
  says (``compression``). The choice is kept in the profile's database, so a
  session resumed by another worker keeps it.
- Steering text waits in the run until the turn's first tool call starts
  (``runner.SessionSink``): hermes attaches it to the history's last tool
  result, an earlier turn's until then. Each turn gets copies of the
  history's messages, so nothing hermes changes in place alters them.
- A turn runs under the session's scope (``scope``): its approvals, sudo and
  secrets are asked in the session's run, and so are its file edits when
  its ``review_edits`` is on (``edit_review``); a context file hermes would
  hang on fails it first (``context_files``).
- A turn that raises, or is still running when the worker stops, has what it
  did so far written to the session database (hermes' own flush, which skips
  rows already written); the next run of a session whose turn raised reloads
  it from there.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from . import context_files, cron_run, edit_review, usage
from .approvals import ApprovalBridge
from .compression import compress_now, recall_compression
from .contract import TurnOutcome, UserContent
from .mcp import McpServers
from .messages import flush_turn
from .scope import TurnModules, forget_session, session_scope
from .secrets import SecretBridge
from .state import Session
from .sudo import SudoBridge


class HermesTurns:
    home: Path  # the profile's hermes home
    _db: Any
    _approvals: ApprovalBridge | None
    _sudo: SudoBridge
    _secrets: SecretBridge
    _turn_modules: TurnModules | None
    _cron_turns: cron_run.TurnWatches
    _mcp: McpServers | None

    def run_turn(
        self,
        agent: Any,
        session: Session,
        message: UserContent,
        stop_requested: Callable[[], bool],
    ) -> TurnOutcome:
        before = usage.counters(agent)
        with self._turn(agent, session, stop_requested):
            if session.compress_next:
                session.compress_next = False
                session.history = compress_now(agent, session, None)
            result = agent.run_conversation(
                message,
                conversation_history=[dict(m) for m in session.history],
                task_id=session.session_id,
            )
        return TurnOutcome.of(result, session.history, usage.turn_usage(agent, before))

    def compress(
        self, agent: Any, session: Session, focus: str | None, stop_requested: Callable[[], bool]
    ) -> TurnOutcome:
        before = usage.counters(agent)
        with self._turn(agent, session, stop_requested):
            messages = compress_now(agent, session, focus)
        return TurnOutcome(None, messages, usage=usage.turn_usage(agent, before))

    @contextlib.contextmanager
    def _turn(
        self, agent: Any, session: Session, stop_requested: Callable[[], bool]
    ) -> Iterator[None]:
        """What the agent works under, for a turn or a compression."""
        skip = bool(getattr(agent, "skip_context_files", False))
        context_files.check(
            self.home, None if skip else context_files.project_dir(session.workspace)
        )
        from hermes_constants import parse_reasoning_effort

        if session.instructions is not None:
            agent.ephemeral_system_prompt = session.instructions
        if session.reasoning_effort is not None:  # wins over the profile's, as hermes' /reasoning
            agent.reasoning_config = parse_reasoning_effort(session.reasoning_effort)
        recall_compression(self._db, session)
        try:
            with self._scope(session), self._cron_turns.turn(agent):
                agent.clear_interrupt()  # a stale interrupt would otherwise carry into this turn
                if stop_requested():  # ...but not one meant for this run
                    agent.interrupt(None)
                yield
        except Exception:
            self.save_transcript(agent)
            session.restore = True  # the database is now the best record of the turn
            raise
        finally:
            if self._mcp is not None:
                self._mcp.report()  # a server may have dropped, or come back, meanwhile

    @contextlib.contextmanager
    def _scope(self, session: Session) -> Iterator[None]:
        """What hermes reads from the thread while the session's agent works (its
        approvals, sudo and secrets asked in the session's run)."""
        from agent import runtime_cwd
        from gateway import session_context
        from tools import approval, file_tools, terminal_tool

        self._turn_modules = hermes = TurnModules(
            approval, session_context, runtime_cwd, terminal_tool, file_tools
        )
        with (
            session_scope(session, hermes, self._approvals, self._sudo.callback(session)),
            self._secrets.serving(session),
            edit_review.reviewing(session),
        ):
            if session.review_edits and not edit_review.hooked():
                raise RuntimeError("this hermes-agent has no edit hook: edits cannot be reviewed")
            yield

    def interrupt(self, agent: Any, message: str | None) -> None:
        agent.interrupt(message)
        self._cron_turns.interrupt(agent, message)  # a cron job its tool runs now

    def steer(self, agent: Any, text: str) -> bool:
        return bool(agent.steer(text))

    def save_transcript(self, agent: Any) -> None:
        flush_turn(agent)

    def forget_session(self, session_id: str) -> None:
        if self._turn_modules is not None:  # else no turn ran: hermes keeps nothing of it
            forget_session(session_id, self._turn_modules)
