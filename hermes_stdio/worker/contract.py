"""What the worker needs from an agent implementation.

Contract:
- ``AgentAdapter``: ``preload``, ``build`` (one agent per session),
  ``run_turn`` (returns a ``TurnOutcome``), ``interrupt``,
  ``answer_approval``, ``answer_clarify``, ``answer_compression``, ``steer``,
  ``list_commands``/``expand_command``, ``goal``/``evaluate_goal``,
  ``save_transcript``, ``runtime_changed``,
  ``resolve_model``/``switch_model``, ``estimate_context``,
  ``stored_history`` and ``close``. ``adapter.HermesAdapter`` implements it
  with hermes-agent; the synthetic agent and unit tests' fakes build on
  ``plain.PlainAdapterMethods``.
  Its profile-wide parts (the stores, watches, MCP servers and accounts) and
  its stored sessions are ``contract_profile``'s.
- ``AgentUnavailable``: hermes-agent cannot be imported.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

from ..protocol import events as ev
from ..protocol import types as t
from ..protocol.processes import SubagentInfo
from ..protocol.usage import TokenUsage
from .callbacks import EventSink
from .contract_profile import ProfileAdapter, StoredSessionsAdapter
from .images import Attachment
from .runtime import Fingerprint
from .state import Session

if TYPE_CHECKING:
    pass

UserContent = str | list[dict[str, Any]]  # a text, or OpenAI-style content parts
Announce = Callable[[str], None]


class AgentUnavailable(Exception):
    """hermes-agent cannot be imported in this worker's Python."""


@dataclass
class TurnOutcome:
    final_response: str | None
    messages: list[dict[str, Any]] = field(default_factory=list)
    interrupted: bool = False
    failed: bool = False
    error: str | None = None
    api_calls: int | None = None
    usage: TokenUsage | None = None

    @classmethod
    def of(
        cls, result: Any, history: list[dict[str, Any]], usage: TokenUsage | None = None
    ) -> TurnOutcome:
        """hermes' ``run_conversation`` result (``history``: the messages to keep when
        it names none; ``usage``: what its model calls used)."""
        if not isinstance(result, dict):
            return cls(final_response=None if result is None else str(result), usage=usage)
        messages, final = result.get("messages"), result.get("final_response")
        error = result.get("error") or result.get("failure_reason")
        calls = result.get("api_calls")
        return cls(
            final_response=final if isinstance(final, str) else None,
            messages=messages if isinstance(messages, list) else list(history),
            interrupted=bool(result.get("interrupted")),
            failed=bool(result.get("failed")),
            error=str(error) if error else None,
            api_calls=calls if isinstance(calls, int) else None,
            usage=usage,
        )


@dataclass(frozen=True)
class CronRanNow:
    """What ``run_cron_job`` gives: whether hermes ran the job (it claims it first),
    whether the job succeeded, hermes' reason when not, and its agent's turn (None
    when none finished)."""

    ran: bool
    ok: bool
    error: str | None
    turn: TurnOutcome | None


class ShellRules(Protocol):
    """hermes' rules for a command the host runs (``shell_policy.ShellPolicy``)."""

    def refusal(self, command: str) -> tuple[Literal["blocked", "dangerous"], str] | None: ...

    def env(self) -> dict[str, str]: ...


class AgentAdapter(ProfileAdapter, StoredSessionsAdapter, Protocol):
    def preload(self) -> None: ...

    def build(self, session: Session, sink: EventSink) -> Any: ...

    def callbacks(self, sink: EventSink, session: Session) -> dict[str, Callable[..., None]]:
        """The callbacks ``build`` gives a session's agent (``AIAgent`` keyword
        names), for an agent hermes builds itself (a cron job's)."""
        ...

    def model_of(self, agent: Any) -> str | None: ...

    def resolve_model(self, model: str, provider: str | None) -> str | None:
        """Check that ``model`` (with ``provider``) can be used; the provider it resolves
        to. Raises when it cannot."""
        ...

    def switch_model(self, agent: Any, model: str, provider: str | None) -> None:
        """Switch a built agent to ``model`` before its next turn."""
        ...

    def estimate_context(
        self, agent: Any, messages: list[dict[str, Any]], instructions: str | None
    ) -> dict[str, Any]:
        """Rough token figures of a request with ``messages``: the keyword fields of
        ``SessionContextResult`` after ``session_id`` and ``model``."""
        ...

    def run_turn(
        self,
        agent: Any,
        session: Session,
        message: UserContent,
        stop_requested: Callable[[], bool],
    ) -> TurnOutcome: ...

    def compress(
        self, agent: Any, session: Session, focus: str | None, stop_requested: Callable[[], bool]
    ) -> TurnOutcome:
        """``session/compress``: the session's history compressed now, as its compression
        setting says (``focus``: what the summary keeps above all); the messages are
        unchanged when there was nothing to compress."""
        ...

    def expand_references(
        self, agent: Any, session: Session, message: str
    ) -> tuple[str, ev.ReferencesExpandedEvent] | None:
        """The message with its ``@`` references expanded (``references.expand``)
        and the ``references.expanded`` event; None when it has none."""
        ...

    def reference_refusal(self) -> Callable[[str], bool] | None:
        """hermes' rule for what an ``@`` reference may attach: true for an absolute
        path it would refuse (``reference/complete`` offers none); None when the
        agent expands no references."""
        ...

    def shell_policy(self) -> ShellRules | None:
        """hermes' rules for ``shell/exec``; None when the agent runs no commands."""
        ...

    def attach_images(
        self, agent: Any, message: str, attachments: list[Attachment]
    ) -> tuple[UserContent, ev.ImagesAttachedEvent]:
        """The turn's message with its images attached (``images.attach``), and the
        ``images.attached`` event."""
        ...

    def interrupt(self, agent: Any, message: str | None) -> None: ...

    def answer_approval(
        self, session: Session, approval_id: str, decision: str, reason: str | None
    ) -> Literal["approved", "denied"] | None:
        """Resolve a pending approval of ``session``: its outcome, or None if not pending."""
        ...

    def set_auto_approve(self, session: Session, enabled: bool) -> None:
        """Set ``session.auto_approve``, for the turn in progress too (session/autoApprove)."""
        ...

    def answer_clarify(self, session: Session, clarify_id: str, text: str) -> bool:
        """Answer a pending clarifying question of ``session``; False if not pending."""
        ...

    def answer_sudo(
        self, session: Session, sudo_id: str, password: str | None
    ) -> Literal["answered", "declined"] | None:
        """Answer a pending sudo password request of ``session``; None if not pending."""
        ...

    def answer_secret(
        self, session: Session, secret_id: str, value: str | None
    ) -> Literal["answered", "skipped"] | None:
        """Answer a pending secret request of ``session``; None if not pending."""
        ...

    def answer_compression(
        self,
        session: Session,
        compression_id: str,
        messages: list[dict[str, Any]] | None,
        error: str | None,
    ) -> Literal["compressed", "failed"] | None:
        """Answer a pending compression request of ``session``: its outcome, or None if
        not pending."""
        ...

    def steer(self, agent: Any, text: str) -> bool:
        """Give a running agent text to read with its next tool result."""
        ...

    def title_session(
        self, agent: Any, session: Session, message: str, final: str, announce: Announce
    ) -> None:
        """Have the session titled after one of its first exchanges, in the
        background; ``announce(title)`` once it is saved (``titles``)."""
        ...

    def end_background(self, session_id: str) -> list[str]:
        """As the host deletes a session: interrupt its subagents still at work, as
        hermes does when a session ends, and kill its processes still running; the ids
        of both (``background.ending``)."""
        ...

    def subagents(self, session_id: str) -> list[SubagentInfo]:
        """The session's subagents, running and recently finished (``background``)."""
        ...

    def interrupt_subagents(self, session_id: str) -> int:
        """Tell the session's subagents still at work to stop; how many (``background``)."""
        ...

    def working_sessions(self, session_ids: list[str]) -> set[str]:
        """Those of ``session_ids`` whose background work goes on (``background.working``);
        cheap, and never imports hermes (before its import nothing runs)."""
        ...

    def recall_workspace(self, session: Session) -> None:
        """Once per session: give a session no run/start named a workspace for the one
        stored with it, if that is still a directory (``catalog.workspace_of``)."""
        ...

    def save_workspace(self, session: Session) -> None:
        """Store the session's workspace with it, after a turn (``catalog``)."""
        ...

    def recall_settings(self, session: Session) -> None:
        """Once per session: give it the settings stored with it that no request has
        chosen since (``settings.recall``)."""
        ...

    def keep_settings(self, session: Session) -> None:
        """Store the session's settings with it when they changed (``settings.keep``)."""
        ...

    def warm_build(self) -> None:
        """Pay ahead, once, what only a worker's first agent build pays (from the
        background warm-up, after ``preload``); nothing once a build has started, and
        a build that starts meanwhile waits for it rather than paying it again."""
        ...

    def shutdown(self, timeout: float) -> None:
        """Release what the process holds besides its agents (MCP server
        connections), taking at most ``timeout`` seconds."""
        ...

    def goal(
        self,
        session_id: str,
        action: str,
        text: str | None,
        index: int | None,
        max_turns: int | None,
    ) -> t.GoalInfo:
        """Apply a session/goal action; the goal's state.
        Raises ``ValueError`` when the action cannot apply."""
        ...

    def evaluate_goal(self, session_id: str, final_response: str) -> ev.GoalEvaluatedEvent | None:
        """Judge a finished turn against the session's active goal: the
        ``goal.evaluated`` event, or None without an active goal."""
        ...

    def runtime_changed(self) -> str | None:
        """What changed on disk since the agent's code was loaded; None if nothing
        did (or nothing is loaded yet)."""
        ...

    def watch_loaded(self, loaded: Fingerprint) -> None:
        """Files of the agent's code loaded before this process was forked (by the
        worker template), watched by ``runtime_changed`` too."""
        ...

    def save_transcript(self, agent: Any) -> None:
        """Write what the agent's current turn did so far to the session database."""
        ...

    def expand_command(
        self, session: Session, message: str
    ) -> tuple[str, ev.CommandExpandedEvent] | None: ...

    def close(self, agent: Any) -> None: ...

    def end_session(self, agent: Any, history: list[dict[str, Any]], reason: str) -> None:
        """A session's agent is let go of, before ``close``: it is over (``reason``
        ``closed`` by the host, or ``shutdown`` of its worker: hermes' end of a
        session), or unloaded for idleness (``idle``: it goes on later, its memory
        provider keeps what it learned so far, and ``close`` leaves it open in
        hermes' DB). See ``session_end``. Call it
        on a thread that runs no turn."""
        ...

    def forget_session(self, session_id: str) -> None:
        """Drop what hermes keeps process-wide under a session's id (its cached sudo
        password, "session" approvals, working directory, record of reads), for a
        session this worker let go of (``scope.forget_session``). Call it on a
        thread that runs no turn."""
        ...

    def release(self, agent: Any) -> None:
        """Free an agent's model clients but keep its session's tool state (background
        processes, terminal, browser), for a session that goes on with a new agent."""
        ...
