"""One run, start to finish, on its own thread.

Contract: ``ready_agent`` prepares a session's agent (build, resume, model
switch) and is shared with requests that need one. ``execute_run`` builds the
session's agent if needed, emits ``run/started``, prepares the message
(``_prepare``: a leading slash command, ``@`` references and images, unless
the run says not to, each announced by a ``run/event``), runs the turn, has a
finished turn judged against the session's active goal (``goal.evaluated``)
and ends the run with ``run/completed``: ``interrupted`` if an interrupt was
requested (also while the judge thinks), ``error`` (type
``agent_unavailable`` or ``agent_error`` if the agent could not be built or
the turn failed, ``context_refused`` if hermes refused the references), else
``complete``. Each model call of the turn that reported usage is followed by a
``usage`` event before the run's next event (the last call's before
``run/completed``). A completed turn is handed to hermes' titling
(``announce_title`` hears the title). ``execute_compaction`` is the run of
``session/compress``: the same start and end around the adapter's
``compress`` instead of a turn. Callbacks that fire after the run ended are
dropped by ``Run``.
"""

from __future__ import annotations

import threading
import traceback
from collections.abc import Callable
from typing import Any

from ..protocol import encode
from ..protocol import events as ev
from ..protocol import types as t
from ..protocol.events import RunEvent
from ..transport.log import log
from .context_files import ContextUnreadable
from .contract import AgentAdapter, AgentUnavailable, Announce, UserContent
from .state import Run, Session
from .usage import UsageWatch

JUDGE_WAIT_S = 120.0  # hermes gives its judge 30 s


class SessionSink:
    """Routes an agent's callbacks to whatever run its session is running now, and
    hands the run's waiting steering text to the run's agent (``Run.steer_target``,
    through ``steer``) when the turn's first tool call starts. A cron job's agent
    reports through one too, into its run's session of its own."""

    def __init__(self, session: Session, steer: Callable[[Any, str], object]) -> None:
        self.session = session
        self._steer = steer

    def delta(self, text: str) -> None:
        run = self.session.run
        if run is not None:
            run.delta(text)

    def event(self, event: RunEvent) -> None:
        run = self.session.run
        if run is not None:
            report_usage(run)  # a model call that returned comes before what follows it
            if isinstance(event, ev.ToolStartedEvent):  # the turn's tool result can carry it
                agent = run.steer_target()
                for text in run.open_steering():
                    if agent is not None:
                        self._steer(agent, text)
            emit_event(run, event)


def emit_event(run: Run, event: RunEvent) -> None:
    run.emit("run/event", {"event": encode(event)})


def report_usage(run: Run) -> None:
    """A ``usage`` event, if the run's model calls used more since the last one,
    after a ``usage.limits`` event if a response told new rate limits meanwhile."""
    watch = run.usage
    if watch is not None:
        watch.report_limits(lambda event: emit_event(run, event))
        watch.report(lambda used: emit_event(run, ev.UsageEvent(usage=used)))


def _kind(exc: BaseException) -> t.RunErrorKind:
    if isinstance(exc, ContextUnreadable):
        return t.RunErrorType.CONTEXT_UNREADABLE
    return t.RunErrorType.AGENT_ERROR


def _error(kind: t.RunErrorKind, exc: BaseException) -> t.RunError:
    if isinstance(exc, ContextUnreadable):  # the host's to fix: no traceback
        log(f"worker: run refused: {exc}")
        return t.RunError(kind, str(exc))
    log(f"worker: run failed ({kind}):\n" + "".join(traceback.format_exception(exc)).rstrip())
    return t.RunError(
        kind,
        f"{type(exc).__name__}: {exc}" if kind != t.RunErrorType.AGENT_UNAVAILABLE else str(exc),
    )


class AgentNotReady(Exception):
    def __init__(self, kind: t.RunErrorKind, cause: BaseException) -> None:
        super().__init__(str(cause))
        self.kind = kind
        self.cause = cause


def ready_agent(adapter: AgentAdapter, session: Session, *, for_run: bool = False) -> Any:
    """The session's agent, given the settings stored with the session that no request
    has changed (and storing this run's): built if needed (built anew if it was built
    without other toolsets than the session's ``disabled_toolsets``), its stored history
    loaded if the session was resumed (and its stored workspace if it has none), a
    pending model switch applied (these two by the session's run, ``for_run``, or when
    it has none: a run in progress keeps its model and tools). Raises ``AgentNotReady``."""
    with session.build_lock:
        try:  # never with fewer choices than the host made (e.g. the tools it left out)
            adapter.recall_settings(session)
        except AgentUnavailable as exc:
            raise AgentNotReady(t.RunErrorType.AGENT_UNAVAILABLE, exc) from exc
        except Exception as exc:
            raise AgentNotReady(t.RunErrorType.AGENT_ERROR, exc) from exc
        try:
            adapter.keep_settings(session)
        except Exception as exc:  # kept in memory; stored by a later turn
            log(f"worker: storing the session's settings failed: {exc!r}")
        stale = session.built_without != session.disabled_toolsets
        # A run in progress keeps its tools; releasing keeps the session's processes.
        if session.agent is not None and stale and (for_run or session.run is None):
            adapter.release(session.agent)
            session.agent = None
        if session.agent is None:
            try:
                session.built_without = session.disabled_toolsets
                session.agent = adapter.build(session, SessionSink(session, adapter.steer))
            except AgentUnavailable as exc:
                raise AgentNotReady(t.RunErrorType.AGENT_UNAVAILABLE, exc) from exc
            except Exception as exc:
                raise AgentNotReady(_kind(exc), exc) from exc
        try:
            if session.restore:
                stored = adapter.stored_history(session.session_id)
                session.restore = False
                if stored:
                    session.history = stored
            adapter.recall_workspace(session)
            if session.switch_pending and (for_run or session.run is None):
                session.switch_pending = False  # a failed switch fails one run, not all
                adapter.switch_model(session.agent, session.model or "", session.provider)
        except Exception as exc:
            raise AgentNotReady(t.RunErrorType.AGENT_ERROR, exc) from exc
        return session.agent


def execute_run(
    adapter: AgentAdapter,
    session: Session,
    run: Run,
    message: str,
    announce_title: Announce | None = None,
) -> None:
    agent = _started(adapter, session, run)
    if agent is None:
        return
    try:
        content = _prepare(adapter, agent, session, run, message)
        if content is None:
            return
        run.usage = UsageWatch(agent)
        try:
            outcome = adapter.run_turn(agent, session, content, lambda: run.interrupt_requested)
        finally:
            report_usage(run)  # the last model call's, so every call has its event
            run.usage = None  # a finished run kept for run/result must not keep the agent
    except Exception as exc:
        run.complete("error", None, _error(_kind(exc), exc))
        return
    session.history = outcome.messages
    try:
        adapter.save_workspace(session)
    except Exception as exc:  # costs the stored workspace, never the run
        log(f"worker: storing the session's workspace failed: {exc!r}")
    output = t.RunOutput(
        outcome.final_response, len(outcome.messages), outcome.api_calls, outcome.usage
    )
    if outcome.interrupted or run.interrupt_requested:
        run.complete("interrupted", output, None)
        return
    if outcome.failed or (outcome.error and not outcome.final_response):
        run.complete(
            "error",
            None,
            t.RunError(t.RunErrorType.AGENT_ERROR, outcome.error or "the turn failed"),
        )
        return
    judged = _judge_goal(adapter, session, run, outcome.final_response or "")
    if judged and announce_title is not None:
        try:  # hermes titles in the background; a failure costs only the title
            adapter.title_session(
                agent, session, message, outcome.final_response or "", announce_title
            )
        except Exception as exc:
            log(f"worker: titling the session failed: {exc!r}")
    run.complete("complete" if judged else "interrupted", output, None)


def execute_compaction(
    adapter: AgentAdapter, session: Session, run: Run, focus: str | None
) -> None:
    """A run that compresses the session's history and nothing else: ``complete`` with
    the messages left, also when an interrupt came too late to stop it; ``interrupted``
    only when the history was left as it was."""
    agent = _started(adapter, session, run)
    if agent is None:
        return
    history = session.history
    run.usage = UsageWatch(agent)
    try:
        outcome = adapter.compress(agent, session, focus, lambda: run.interrupt_requested)
    except Exception as exc:
        run.complete("error", None, _error(_kind(exc), exc))
        return
    finally:
        report_usage(run)
        run.usage = None
    session.history = outcome.messages
    output = t.RunOutput(None, len(outcome.messages), outcome.api_calls, outcome.usage)
    untouched = run.interrupt_requested and outcome.messages == history
    run.complete("interrupted" if untouched else "complete", output, None)


def _started(adapter: AgentAdapter, session: Session, run: Run) -> Any | None:
    """The session's agent, once ``run/started`` is out; None when the run ended
    here instead (the agent could not be built, or an interrupt came first)."""
    try:
        agent = ready_agent(adapter, session, for_run=True)
    except AgentNotReady as exc:
        _announce_trigger(session, run)
        run.complete("error", None, _error(exc.kind, exc.cause))
        return None
    session.model = adapter.model_of(agent) or session.model
    if run.interrupt_requested:
        _announce_trigger(session, run)
        run.complete("interrupted", t.RunOutput(None, len(session.history), 0), None)
        return None
    _announce(session, run)
    return agent


def _announce(session: Session, run: Run) -> None:
    trigger = None if run.trigger is None else encode(run.trigger)
    started = {"profile": session.profile, "model": session.model, "trigger": trigger}
    run.emit("run/started", started)


def _announce_trigger(session: Session, run: Run) -> None:
    """A run the worker started is announced even when it ends before its turn: the
    host learns of it only from ``run/started``."""
    if run.trigger is not None:
        _announce(session, run)


def _prepare(
    adapter: AgentAdapter, agent: Any, session: Session, run: Run, message: str
) -> UserContent | None:
    """What the turn sends: the message after its slash command, its ``@``
    references and its images, each announced by a run/event; None when the run
    ended here (hermes refused the references)."""

    expanded = adapter.expand_command(session, message) if run.expand_commands else None
    if expanded is not None:
        message = expanded[0]
        emit_event(run, expanded[1])
    if run.expand_references:
        referenced = adapter.expand_references(agent, session, message)
        if referenced is not None:
            message = referenced[0]
            emit_event(run, referenced[1])
            if referenced[1].blocked:
                refused = "; ".join(referenced[1].warnings) or "@ context refused"
                run.complete("error", None, t.RunError(t.RunErrorType.CONTEXT_REFUSED, refused))
                return None
    if not run.images:
        return message
    content, attached = adapter.attach_images(agent, message, run.images)
    emit_event(run, attached)
    return content


def _judge_goal(adapter: AgentAdapter, session: Session, run: Run, final: str) -> bool:
    """A finished turn of a session with an active goal: the judge's verdict, as the
    run's last event. A judge that fails (or outlasts ``JUDGE_WAIT_S``) costs the
    event, never the run. The judge thinks on a thread of its own, so an interrupt
    ends the run at once: False then, and its verdict (still recorded in the goal
    by hermes) is not sent."""
    verdicts: list[ev.GoalEvaluatedEvent | None] = []
    wake = threading.Event()

    def judge() -> None:
        try:
            verdicts.append(adapter.evaluate_goal(session.session_id, final))
        except Exception as exc:
            log(f"worker: judging the session's goal failed: {exc!r}")
        finally:
            wake.set()

    forget = run.wake_on_stop(wake)
    try:
        if not run.interrupt_requested:
            threading.Thread(target=judge, name="goal-judge", daemon=True).start()
            wake.wait(JUDGE_WAIT_S)
    finally:
        forget()
    if run.interrupt_requested:
        return False
    if verdicts and verdicts[0] is not None:
        emit_event(run, verdicts[0])
    return True
