"""Defaults for agents that never ask the host anything and keep no database.

Contract: ``PlainAdapterMethods`` implements the parts of
``adapter.AgentAdapter`` that only a real hermes-agent needs (approvals,
clarifying questions, compression (``compress`` keeps the history as it is),
steering, slash commands, MCP servers, goals, stored history, model
resolution, a rough context estimate of about 4 characters per token); the
synthetic agent and test fakes inherit them and implement the rest. An agent
object gets a new model by attribute.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from ..protocol import events as ev
from ..protocol import insights as ins
from ..protocol import toolbox as tx
from ..protocol import types as t
from ..protocol.mcp_login import McpLoginResult
from ..protocol.processes import ProcessInfo, SubagentInfo
from ..protocol.projects import ProjectFacts
from ..protocol.providers import ModelOneShotParams
from .callbacks import EventSink, agent_callbacks
from .catalog import Deleted, Forked, Rewound, Spent, UnknownSession
from .config_file import ConfigFile
from .contract import (
    AgentUnavailable,
    Announce,
    CronRanNow,
    ShellRules,
    TurnOutcome,
    UserContent,
)
from .cron_fire import DueJobs
from .cron_run import Watch
from .cronjobs import CronJobs
from .env_vars import EnvVars
from .images import Attachment
from .memories import Memories
from .message_search import Found
from .notices import Notice
from .plugin_toggles import PluginToggles
from .profile_accounts import Accounts
from .runtime import Fingerprint
from .skill_docs import SkillDocs
from .skill_toggles import SkillToggles
from .state import Session
from .toolset_toggles import ToolsetToggles
from .watches import Change, ProgressDeliver


class PlainAdapterMethods:
    def end_session(self, agent: Any, history: list[dict[str, Any]], reason: str) -> None:
        return None  # keeps nothing past a session

    def answer_approval(
        self, session: Session, approval_id: str, decision: str, reason: str | None
    ) -> Literal["approved", "denied"] | None:
        return None  # never asks for approvals

    def set_auto_approve(self, session: Session, enabled: bool) -> None:
        session.auto_approve = enabled  # and nothing asks anyway

    def answer_clarify(self, session: Session, clarify_id: str, text: str) -> bool:
        return False  # nor asks questions

    def answer_sudo(
        self, session: Session, sudo_id: str, password: str | None
    ) -> Literal["answered", "declined"] | None:
        return None  # nor runs sudo

    def answer_secret(
        self, session: Session, secret_id: str, value: str | None
    ) -> Literal["answered", "skipped"] | None:
        return None  # nor loads skills

    def answer_compression(
        self,
        session: Session,
        compression_id: str,
        messages: list[dict[str, Any]] | None,
        error: str | None,
    ) -> Literal["compressed", "failed"] | None:
        return None  # nor asks the host to compress

    def steer(self, agent: Any, text: str) -> bool:
        return False  # takes no text mid-turn

    def expand_references(
        self, agent: Any, session: Session, message: str
    ) -> tuple[str, ev.ReferencesExpandedEvent] | None:
        return None  # reads no files for the model

    def reference_refusal(self) -> Callable[[str], bool] | None:
        return None  # expands no references

    def shell_policy(self) -> ShellRules | None:
        return None  # runs no commands

    def forget_session(self, session_id: str) -> None:
        return None  # keeps nothing under a session's id

    def stored_workspace(self, session_id: str) -> str | None:
        return None  # keeps no database

    def attach_images(
        self, agent: Any, message: str, attachments: list[Attachment]
    ) -> tuple[UserContent, ev.ImagesAttachedEvent]:
        skipped = [f"{a.label}: this agent takes no images" for a in attachments]
        return message, ev.ImagesAttachedEvent(mode="text", attached=0, skipped=skipped)

    def connect_mcp(self) -> None:
        pass  # no MCP servers

    def warm_build(self) -> None:
        pass  # builds cost nothing to warm

    def mcp_status(self) -> list[tx.McpServerInfo]:
        return []

    def connect_mcp_servers(self, wait_s: float) -> list[tx.McpServerInfo]:
        return []

    def mcp_login(
        self, name: str, redirect_uri: str | None, answer: Callable[[McpLoginResult], None]
    ) -> None:
        raise AgentUnavailable("this agent has no MCP servers")

    def mcp_login_callback(self, login_id: str, url: str) -> None:
        raise AgentUnavailable("this agent has no MCP servers")

    def mcp_logout(self, name: str) -> bool:
        raise AgentUnavailable("this agent has no MCP servers")

    def unknown_toolsets(self, names: list[str]) -> list[str]:
        return []  # no toolsets to check against: none is refused

    def shutdown(self, timeout: float) -> None:
        pass  # holds nothing beyond its agents

    def title_session(
        self, agent: Any, session: Session, message: str, final: str, announce: Announce
    ) -> None:
        pass  # titles nothing

    def process_registry(self) -> Any:
        return None  # starts no background processes

    def cron_jobs(self) -> CronJobs | None:
        return None  # schedules nothing

    def callbacks(self, sink: EventSink, session: Session) -> dict[str, Callable[..., None]]:
        return agent_callbacks(sink)

    def run_cron_job(
        self, session: Session, jobs: CronJobs, job_id: str, watch: Watch
    ) -> CronRanNow:
        raise AgentUnavailable("this agent keeps no cron jobs")

    def due_cron_jobs(self) -> DueJobs | None:
        return None  # schedules nothing

    def fire_cron_job(
        self, session: Session, due: DueJobs, job: dict[str, Any], watch: Watch
    ) -> CronRanNow:
        raise AgentUnavailable("this agent keeps no cron jobs")

    def config_file(self) -> ConfigFile | None:
        return None  # reads no profile settings

    def env_vars(self) -> EnvVars | None:
        return None  # likewise

    def memories(self) -> Memories | None:
        return None  # remembers nothing

    def skill_toggles(self) -> SkillToggles | None:
        return None  # has no skills

    def skill_docs(self) -> SkillDocs | None:
        return None  # has no skills

    def toolset_toggles(self) -> ToolsetToggles | None:
        return None  # has no toolsets

    def plugin_toggles(self) -> PluginToggles | None:
        return None  # loads no plugins

    def working_sessions(self, session_ids: list[str]) -> set[str]:
        return set()

    def end_background(self, session_id: str) -> list[str]:
        return []

    def watch_processes(self, deliver: Callable[[Change, str, ProcessInfo], None]) -> None:
        pass  # starts no background processes

    def watch_subagents(
        self,
        deliver: Callable[[Change, str, SubagentInfo], None],
        progress: ProgressDeliver | None = None,
    ) -> None:
        pass  # starts no subagents

    def watch_commands(self, deliver: Callable[[str], None]) -> None:
        pass  # has no skills

    def watch_mcp(self, deliver: Callable[[list[tx.McpServerInfo]], None]) -> None:
        pass  # has no MCP servers

    def watch_mcp_logins(self, deliver: Callable[[str, str, str | None], None]) -> None:
        pass  # likewise

    def watch_account_logins(self, deliver: Callable[[str, str, str | None], None]) -> None:
        pass  # signs in nowhere

    def accounts(self) -> Accounts:
        raise AgentUnavailable("this agent has no provider accounts")

    def subagents(self, session_id: str) -> list[SubagentInfo]:
        return []  # starts no subagents

    def interrupt_subagents(self, session_id: str) -> int:
        return 0

    def checkpoints(self) -> Any:
        return None  # changes no files

    def release(self, agent: Any) -> None:
        pass  # holds no clients

    def offered_tools(self, agent: Any) -> dict[str, Any]:
        return {"tools": [], "enabled_toolsets": None, "disabled_toolsets": []}  # offers none

    def model_catalog(self, agent: Any, refresh: bool, unconfigured: bool) -> dict[str, Any]:
        return {"providers": []}  # no providers to choose from

    def project_facts(self, workspace: str) -> ProjectFacts | None:
        raise AgentUnavailable("this worker has no hermes to ask")

    def one_shot(self, agent: Any, request: ModelOneShotParams) -> str:
        raise AgentUnavailable("this worker's agent has no model to ask")

    def stored_sessions(
        self,
        query: str | None,
        source: str | None,
        archived: bool,
        workspace: str | None,
        limit: int,
        offset: int,
    ) -> tuple[list[tuple[dict[str, Any], Spent]], int | None]:
        return [], None  # keeps no database

    def search_sessions(
        self,
        query: str,
        roles: list[str] | None,
        source: str | None,
        order: str,
        limit: int,
        offset: int,
    ) -> tuple[list[Found], int | None]:
        return [], None  # keeps no database

    def rename_session(self, session_id: str, title: str | None) -> str | None:
        raise UnknownSession(session_id)

    def archive_session(self, session_id: str, archived: bool) -> bool:
        raise UnknownSession(session_id)

    def export_session(
        self, session_id: str, fmt: str, redact: bool, lineage: bool
    ) -> tuple[str, int]:
        raise UnknownSession(session_id)

    def usage_summary(
        self, days: int, source: str | None, utc_offset_minutes: int
    ) -> ins.UsageSummaryResult | None:
        return None  # keeps no database

    def undo_turns(self, session_id: str, turns: int) -> Rewound:
        raise UnknownSession(session_id)

    def fork_session(self, session_id: str, branch: str, title: str | None) -> Forked:
        raise UnknownSession(session_id)

    def compress(
        self, agent: Any, session: Session, focus: str | None, stop_requested: Callable[[], bool]
    ) -> TurnOutcome:
        return TurnOutcome(None, list(session.history))  # has no summariser: nothing changes

    def recall_workspace(self, session: Session) -> None:
        pass  # keeps no database

    def save_workspace(self, session: Session) -> None:
        pass

    def recall_settings(self, session: Session) -> None:
        pass  # keeps no database

    def watch_background(self, deliver: Callable[[Notice], None]) -> None:
        pass  # starts no background work

    def keep_settings(self, session: Session) -> None:
        pass

    def delete_session(self, session_id: str) -> Deleted:
        raise UnknownSession(session_id)

    def list_commands(self) -> list[dict[str, str]]:
        return []  # has no skills

    def expand_command(
        self, session: Session, message: str
    ) -> tuple[str, ev.CommandExpandedEvent] | None:
        return None

    def goal(
        self,
        session_id: str,
        action: str,
        text: str | None,
        index: int | None,
        max_turns: int | None,
    ) -> t.GoalInfo:
        raise ValueError("this agent has no goals")

    def evaluate_goal(self, session_id: str, final_response: str) -> ev.GoalEvaluatedEvent | None:
        return None

    def runtime_changed(self) -> str | None:
        return None  # its code is ours

    def watch_loaded(self, loaded: Fingerprint) -> None:
        pass

    def save_transcript(self, agent: Any) -> None:
        pass  # keeps no database

    def stored_history(self, session_id: str) -> list[dict[str, Any]] | None:
        return None  # keeps no database

    def estimate_context(
        self, agent: Any, messages: list[dict[str, Any]], instructions: str | None
    ) -> dict[str, Any]:
        prompt = len(instructions or "") // 4
        return {
            "context_length": None,
            "tokens": prompt + sum(len(str(m)) // 4 for m in messages),
            "fixed_tokens": prompt,
            "system_prompt_tokens": prompt,
            "tool_tokens": 0,
            "message_count": len(messages),
            "tool_count": 0,
            "breakdown": [],
            "last_prompt_tokens": None,
        }

    def resolve_model(self, model: str, provider: str | None) -> str | None:
        return provider

    def switch_model(self, agent: Any, model: str, provider: str | None) -> None:
        agent.model = model
