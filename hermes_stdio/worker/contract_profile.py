"""The profile-wide part of what the worker needs from an agent implementation
(``contract.AgentAdapter`` builds on these).

Contract:
- ``ProfileAdapter``: the profile's stores (config, keys, memory, skills,
  toolsets, cron jobs), its model and tool catalogs, the watches that push what
  changes, its MCP servers and its accounts with providers.
- ``StoredSessionsAdapter``: the sessions hermes keeps in the profile's
  database: listed, searched, renamed, archived, exported, counted, rewound,
  forked, deleted.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from ..protocol import insights as ins
from ..protocol import toolbox as tx
from ..protocol.mcp_login import McpLoginResult
from ..protocol.processes import ProcessInfo, SubagentInfo
from ..protocol.projects import ProjectFacts
from ..protocol.providers import ModelOneShotParams
from .catalog import Deleted, Forked, Rewound, Spent
from .config_file import ConfigFile
from .cronjobs import CronJobs
from .env_vars import EnvVars
from .memories import Memories
from .message_search import Found
from .notices import Notice
from .plugin_toggles import PluginToggles
from .profile_accounts import Accounts
from .skill_docs import SkillDocs
from .skill_toggles import SkillToggles
from .state import Session
from .toolset_toggles import ToolsetToggles
from .watches import Change, ProgressDeliver

if TYPE_CHECKING:
    from .contract import CronRanNow
    from .cron_fire import DueJobs
    from .cron_run import Watch


class ProfileAdapter(Protocol):
    def list_commands(self) -> list[dict[str, str]]: ...

    def model_catalog(self, agent: Any, refresh: bool, unconfigured: bool) -> dict[str, Any]:
        """hermes' picker payload: ``model``, ``provider`` (``agent``'s when given, else
        the profile's) and ``providers`` (``slug``, ``name``, ``models`` ...; with
        ``unconfigured``, those without credentials too)."""
        ...

    def project_facts(self, workspace: str) -> ProjectFacts | None:
        """The project ``workspace`` is in, as hermes' coding context detects it for
        its agents (``agent.coding_context.project_facts_for``); None in none.
        ``AgentUnavailable`` without hermes."""
        ...

    def one_shot(self, agent: Any, request: ModelOneShotParams) -> str:
        """One request to a model outside any conversation (``one_shot.ask``), with
        ``agent``'s model when given; ``AgentUnavailable`` for an agent without a
        model."""
        ...

    def offered_tools(self, agent: Any) -> dict[str, Any]:
        """``ToolListResult`` fields (``tools``): what ``agent`` offers its model, or a
        new agent of the profile when None."""
        ...

    def checkpoints(self) -> Any:
        """hermes' ``CheckpointManager`` with the profile's settings (``checkpoints``);
        None when the agent keeps no checkpoints."""
        ...

    def process_registry(self) -> Any:
        """hermes' background process registry (``background``); None without one."""
        ...

    def cron_jobs(self) -> CronJobs | None:
        """The profile's cron jobs through hermes' ``cronjob`` tool (``cronjobs``); None
        when the agent has none."""
        ...

    def run_cron_job(
        self, session: Session, jobs: CronJobs, job_id: str, watch: Watch
    ) -> CronRanNow:
        """``cron/run``: the job run now through ``jobs`` (``cron_jobs()``'s, which the
        request was checked in: hermes' ``cronjob`` tool), its agent working in the
        session's scope (its approvals asked in the session's run) and watched by
        ``watch`` (``cron_run``). Raises ``AgentUnavailable`` when the agent has no
        cron jobs."""
        ...

    def due_cron_jobs(self) -> DueJobs | None:
        """``cron/tick``: the profile's due jobs to claim and fire (``cron_fire``); None
        when the agent has no cron jobs."""
        ...

    def fire_cron_job(
        self, session: Session, due: DueJobs, job: dict[str, Any], watch: Watch
    ) -> CronRanNow:
        """One job ``due`` claimed, fired as ``run_cron_job`` runs one: in the session's
        scope, watched by ``watch``."""
        ...

    def config_file(self) -> ConfigFile | None:
        """The profile's config.yaml under hermes' rules (``config_file``); None when
        the agent reads no profile settings."""
        ...

    def env_vars(self) -> EnvVars | None:
        """The profile's environment variables through hermes (``env_vars``); None when
        the agent reads no profile settings."""
        ...

    def memories(self) -> Memories | None:
        """What the profile's agents remember, through hermes' memory store
        (``memories``); None when the agent keeps no memory."""
        ...

    def skill_toggles(self) -> SkillToggles | None:
        """The profile's skills, enabled or not, through hermes' scan and its
        config (``skill_toggles``); None when the agent has no skills."""
        ...

    def skill_docs(self) -> SkillDocs | None:
        """The profile's skills' ``SKILL.md`` files, through hermes' ``skill_manage``
        functions (``skill_docs``); None when the agent has no skills."""
        ...

    def toolset_toggles(self) -> ToolsetToggles | None:
        """The profile's toolsets, enabled or not, through hermes' rules and its
        config (``toolset_toggles``); None when the agent has no toolsets."""
        ...

    def plugin_toggles(self) -> PluginToggles | None:
        """The profile's hermes plugins, loaded or not and enabled or not, through
        hermes' discovery, its plugin manager and its config (``plugin_toggles``);
        None when the agent loads no plugins."""
        ...

    def watch_processes(self, deliver: Callable[[Change, str, ProcessInfo], None]) -> None:
        """Hand ``deliver`` each of the sessions' background processes that starts or
        ends (``watches.watch_processes``), from hermes' import on."""
        ...

    def watch_subagents(
        self,
        deliver: Callable[[Change, str, SubagentInfo], None],
        progress: ProgressDeliver | None = None,
    ) -> None:
        """Hand ``deliver`` each of the sessions' subagents of an async ``delegate_task``
        that starts or ends (``watches.watch_subagents``), from hermes' import on, and
        ``progress`` what each does meanwhile: ``(session_id, subagent_id, progress)``
        (``watches.SubagentWatch``), from the agents built after it on."""
        ...

    def watch_mcp(self, deliver: Callable[[list[tx.McpServerInfo]], None]) -> None:
        """Call ``deliver(servers)`` each time the profile's MCP servers' status
        changed (``mcp.McpServers.report``)."""
        ...

    def watch_mcp_logins(self, deliver: Callable[[str, str, str | None], None]) -> None:
        """Call ``deliver(login_id, name, error)`` as each ``mcp_login`` that gave its
        id ends (error None: signed in)."""
        ...

    def watch_account_logins(self, deliver: Callable[[str, str, str | None], None]) -> None:
        """Call ``deliver(login_id, provider, error)`` as each account sign-in that gave
        its id ends (error None: signed in)."""
        ...

    def accounts(self) -> Accounts:
        """The profile's accounts with providers (``profile_accounts.Accounts``).
        Raises ``AgentUnavailable`` without hermes."""
        ...

    def watch_commands(self, deliver: Callable[[str], None]) -> None:
        """Call ``deliver(fingerprint)`` with the state of the files behind the
        profile's slash commands once hermes is imported, then each time it
        changes, whoever changed it (``command_watch``)."""
        ...

    def watch_background(self, deliver: Callable[[Notice], None]) -> None:
        """Hand ``deliver`` each piece of a session's background work that finishes
        (``notices``), from hermes' import on."""
        ...

    def connect_mcp(self) -> None:
        """Start connecting the profile's MCP servers in the background (once the
        profile's environment is final); no-op after the first call."""
        ...

    def mcp_status(self) -> list[tx.McpServerInfo]: ...

    def unknown_toolsets(self, names: list[str]) -> list[str]:
        """Those of ``names`` that are not hermes toolsets (hermes' ``validate_toolset``)."""
        ...

    def connect_mcp_servers(self, wait_s: float) -> list[tx.McpServerInfo]:
        """Connect the profile's servers that are not connected, waiting at most
        ``wait_s`` (``mcp.McpServers.connect``); their status then."""
        ...

    def mcp_login(
        self, name: str, redirect_uri: str | None, answer: Callable[[McpLoginResult], None]
    ) -> None:
        """Start signing the profile in to an OAuth MCP server (``mcp_login.Logins``):
        ``answer`` gets the URL to send the user to; the login's end is told after.
        Raises ``AgentUnavailable`` without hermes."""
        ...

    def mcp_login_callback(self, login_id: str, url: str) -> None:
        """Hand a sign-in the URL the browser was sent back to (``mcp_login.Logins``)."""
        ...

    def mcp_logout(self, name: str) -> bool:
        """Sign the profile out of an OAuth MCP server (``mcp_login.Logins``): whether
        it held tokens."""
        ...


class StoredSessionsAdapter(Protocol):
    def stored_history(self, session_id: str) -> list[dict[str, Any]] | None:
        """The session's messages as the profile's session database holds them;
        None when the database does not know the session."""
        ...

    def stored_workspace(self, session_id: str) -> str | None:
        """The workspace stored with a session, if that is still a directory
        (``catalog.workspace_of``); None otherwise."""
        ...

    def stored_sessions(
        self,
        query: str | None,
        source: str | None,
        archived: bool,
        workspace: str | None,
        limit: int,
        offset: int,
    ) -> tuple[list[tuple[dict[str, Any], Spent]], int | None]:
        """A page of hermes' session rows from the profile's database, each with what its
        conversation's model calls used, and the next page's offset (``catalog``)."""
        ...

    def search_sessions(
        self,
        query: str,
        roles: list[str] | None,
        source: str | None,
        order: str,
        limit: int,
        offset: int,
    ) -> tuple[list[Found], int | None]:
        """A page of full-text matches in the profile's stored messages, and whether
        more follow (``catalog``)."""
        ...

    def rename_session(self, session_id: str, title: str | None) -> str | None:
        """Set or clear a stored session's title; the title as saved (``catalog``)."""
        ...

    def archive_session(self, session_id: str, archived: bool) -> bool:
        """Hide a stored session from the listing, or show it again (``catalog``)."""
        ...

    def export_session(
        self, session_id: str, fmt: str, redact: bool, lineage: bool
    ) -> tuple[str, int]:
        """A stored session rendered by hermes' exporters, and its message count;
        ``UnknownSession`` when the database has none."""
        ...

    def usage_summary(
        self, days: int, source: str | None, utc_offset_minutes: int
    ) -> ins.UsageSummaryResult | None:
        """The profile's usage over the last ``days`` days, as hermes' insights count
        it (``insights``); None when the agent keeps no session database."""
        ...

    def undo_turns(self, session_id: str, turns: int) -> Rewound:
        """Take back a stored session's last ``turns`` exchanges (``catalog``)."""
        ...

    def fork_session(self, session_id: str, branch: str, title: str | None) -> Forked:
        """Store a copy of a stored session as the new session ``branch`` (``catalog``)."""
        ...

    def delete_session(self, session_id: str) -> Deleted:
        """Remove a stored session's whole conversation from the database (``catalog``)."""
        ...
