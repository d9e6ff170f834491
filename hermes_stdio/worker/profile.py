"""The profile-wide half of ``adapter.HermesAdapter``: what hermes keeps for a profile
rather than for one agent (goals, skills and slash commands, background processes, file
checkpoints, the models it can use, the tools its agents offer and the toolsets
it knows; its cron jobs are ``profile_cron``'s, its MCP servers ``profile_mcp``'s).

Contract: ``HermesProfile`` is a mixin of ``HermesAdapter`` (which provides
``_modules``, importing hermes-agent under ``_import_lock``, and ``_secrets``,
which serves a skill's secret requests during a command's expansion too) and
implements those
``contract.AgentAdapter`` methods through hermes' own functions, passed to
``goals``, ``skills`` and friends; ``callbacks`` gives a session's agent its
callbacks. Like the adapter's other mixins, ``stored``, ``models`` and
``profile_settings``, it imports hermes-agent; nothing outside the worker does.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..protocol import events as ev
from ..protocol import types as t
from ..protocol.processes import ProcessInfo, SubagentInfo
from ..transport.log import log
from . import (
    background,
    command_watch,
    edits,
    goals,
    notices,
    skill_changes,
    skills,
    tools,
    watches,
)
from .callbacks import EventSink, SubagentHook, agent_callbacks
from .mcp import McpServers
from .options import checkpoint_settings, disabled_toolsets, enabled_toolsets
from .secrets import SecretBridge
from .state import Session
from .watches import ProgressDeliver


class HermesProfile:
    _modules: Callable[[], Any]
    _scope: Callable[[Session], contextlib.AbstractContextManager[None]]
    _secrets: SecretBridge
    _deliver: Callable[[notices.Notice], None] | None = None
    _process_changed: Callable[[watches.Change, str, ProcessInfo], None] | None = None
    _subagent_changed: Callable[[watches.Change, str, SubagentInfo], None] | None = None
    _subagent_progress: ProgressDeliver | None = None
    _subagent_watch: watches.SubagentWatch | None = None
    _process_watch: watches.ProcessWatch | None = None
    _commands_changed: Callable[[str], None] | None = None
    _mcp: McpServers | None = None  # profile_mcp's
    _import_lock: threading.Lock
    _watching: bool = False
    _warm_lock = threading.Lock()  # one adapter per worker process
    _build_started = False
    _warmed = False

    def watch_background(self, deliver: Callable[[notices.Notice], None]) -> None:
        self._deliver = deliver  # the watch starts once hermes is imported

    def watch_processes(self, deliver: Callable[[watches.Change, str, ProcessInfo], None]) -> None:
        self._process_changed = deliver  # likewise

    def watch_subagents(
        self,
        deliver: Callable[[watches.Change, str, SubagentInfo], None],
        progress: ProgressDeliver | None = None,
    ) -> None:
        self._subagent_changed = deliver  # likewise
        self._subagent_progress = progress

    def watch_commands(self, deliver: Callable[[str], None]) -> None:
        def changed(fingerprint: str) -> None:
            deliver(fingerprint)
            if self._mcp is not None:  # config.yaml may list other MCP servers now
                self._mcp.report(reread=True)

        self._commands_changed = changed  # likewise

    def subagent_hook(self, session_id: str) -> SubagentHook | None:
        """For a session's agent: its background subagents' activity, pushed as
        ``subagent/progress`` (None before the watch, or without ``progress``)."""
        watch, deliver = self._subagent_watch, self._subagent_progress
        if watch is None or deliver is None:
            return None

        def hook(kind: str, name: Any, preview: Any, identity: dict[str, Any]) -> bool:
            # hermes swallows what its relay raises, so it is said here.
            try:
                subagent_id = watch.delegation_of(session_id, identity)
            except Exception as exc:  # hermes' records changed shape: the run's, as before
                log(f"worker: matching a subagent's {kind} to its delegation failed: {exc!r}")
                return False
            if subagent_id is None:
                return False  # one run within the turn: the run's tool.progress
            try:
                deliver(
                    session_id, subagent_id, background.progress_of(kind, name, preview, identity)
                )
            except Exception as exc:
                log(f"worker: subagent {subagent_id}'s {kind} was not sent: {exc!r}")
            return True

        return hook

    def callbacks(self, sink: EventSink, session: Session) -> dict[str, Callable[..., None]]:
        """The callbacks of a session's agent (``callbacks``), with what they need of
        hermes: its subagents' and processes' watches, the files a call edits, and its
        reading of a tool's result."""
        hook = self.subagent_hook(session.session_id)
        return agent_callbacks(sink, hook, self.tool_returned, edits.for_session(session), _failed)

    def tool_returned(self) -> None:
        """After each tool of an agent returns: queue what hermes' race lost (an instant
        background command's completion; ``watches.ProcessWatch``)."""
        watch = self._process_watch
        if watch is None:
            return
        try:
            watch.report_late()
        except Exception as exc:  # hermes' agent must go on
            log(f"worker: reporting a background command that ended at once failed: {exc!r}")

    def _watch_notices(self) -> None:
        """Start the watch of hermes' completion queue, of its processes' and
        subagents' starts and ends, and of its agents' skill changes, once (from
        ``_modules``)."""
        if self._deliver is None or self._watching:
            return
        from tools import async_delegation
        from tools.ansi_strip import strip_ansi
        from tools.process_registry import format_process_notification, process_registry

        on_process, on_subagent = self._process_changed, self._subagent_changed
        if on_process is not None:
            self._process_watch = watches.watch_processes(process_registry, on_process, strip_ansi)
            if self._process_watch is None:
                log("worker: hermes' process registry changed: process/started, /exited not sent")
        if on_subagent is not None:
            self._subagent_watch = watches.watch_subagents(async_delegation, on_subagent)
            if self._subagent_watch is None:
                log("worker: hermes' async_delegation changed: subagent/started, /ended not sent")
        if self._commands_changed is not None:
            self._watch_commands(self._commands_changed)

        hermes = notices.Hermes(
            format_process_notification,
            process_registry.is_completion_consumed,
            async_delegation.claim_event_delivery,
            async_delegation.complete_event_delivery,
            async_delegation.release_event_delivery,
        )
        notices.watch(process_registry.completion_queue, hermes, self._deliver)
        self._watching = True

    def _watch_commands(self, deliver: Callable[[str], None]) -> None:
        """Report the state of the files behind the profile's slash commands now, on
        each change (``command_watch``) and after each ``skill_manage`` call, with
        hermes' in-process skill index for the system prompt dropped first."""
        try:
            from agent import skill_bundles, skill_utils
            from agent.prompt_builder import clear_skills_system_prompt_cache
            from hermes_constants import get_config_path
            from tools import skill_manager_tool, skills_tool
        except ImportError as exc:
            log(f"worker: hermes' skill modules changed ({exc}): command/listChanged not sent")
            return

        bundles_dir = getattr(skill_bundles, "_bundles_dir", None)  # private: optional

        def sources() -> command_watch.Sources:
            return command_watch.Sources(
                [Path(skills_tool.SKILLS_DIR), *skill_utils.get_external_skills_dirs()],
                Path(bundles_dir()) if callable(bundles_dir) else None,
                Path(get_config_path()),
                frozenset(skill_utils.EXCLUDED_SKILL_DIRS),
                frozenset(skill_utils.SKILL_SUPPORT_DIRS),
            )

        def changed(fingerprint: str) -> None:
            # hermes keeps its skill index for the system prompt per process, so a
            # skill changed on disk would reach no agent of this worker without this.
            clear_skills_system_prompt_cache()
            deliver(fingerprint)

        watch = command_watch.CommandWatch(sources, changed)
        watch.start()
        if not skill_changes.install(skill_manager_tool, watch.check):
            log("worker: hermes' skill_manage changed: its changes are pushed once seen on disk")

    def shutdown(self, timeout: float) -> None:
        if self._mcp is not None:
            self._mcp.close(timeout)

    def checkpoints(self) -> Any:
        self._modules()
        from hermes_cli.config import load_config
        from tools.checkpoint_manager import CheckpointManager

        return CheckpointManager(**checkpoint_settings(load_config() or {}))

    def process_registry(self) -> Any:
        self._modules()
        from tools.process_registry import process_registry

        return process_registry

    def end_background(self, session_id: str) -> list[str]:
        registry = sys.modules.get("tools.process_registry")
        if registry is None:
            return []  # hermes not imported yet: nothing of it runs
        delegation = sys.modules.get("tools.async_delegation")
        return background.ending(registry.process_registry, delegation, session_id)

    def subagents(self, session_id: str) -> list[SubagentInfo]:
        # Before hermes' import (None) no subagent runs, and none is kept from before.
        return background.subagents(sys.modules.get("tools.async_delegation"), session_id)

    def interrupt_subagents(self, session_id: str) -> int:
        delegation = sys.modules.get("tools.async_delegation")
        return background.interrupt_subagents(delegation, session_id)

    def working_sessions(self, session_ids: list[str]) -> set[str]:
        registry = sys.modules.get("tools.process_registry")
        if registry is None or not session_ids:
            return set()  # hermes not imported yet: nothing of it runs
        delegation = sys.modules.get("tools.async_delegation")
        delegations = delegation.list_async_delegations() if delegation is not None else []
        return background.working(registry.process_registry, delegations, session_ids)

    def _goals(self) -> tuple[Any, int]:
        self._modules()
        from hermes_cli import goals as hermes_goals
        from hermes_cli.config import load_config

        configured = (load_config() or {}).get("goals")
        turns = configured.get("max_turns") if isinstance(configured, dict) else None
        return hermes_goals, int(turns) if isinstance(turns, int) and turns > 0 else 20

    def goal(
        self,
        session_id: str,
        action: str,
        text: str | None,
        index: int | None,
        max_turns: int | None,
    ) -> t.GoalInfo:
        hermes_goals, turns = self._goals()
        return goals.apply(hermes_goals, session_id, action, text, index, max_turns, turns)

    def evaluate_goal(self, session_id: str, final_response: str) -> ev.GoalEvaluatedEvent | None:
        hermes_goals, turns = self._goals()
        return goals.evaluate(hermes_goals, session_id, final_response, turns)

    def list_commands(self) -> list[dict[str, str]]:
        self._modules()
        from agent import skill_bundles, skill_commands

        return skills.list_commands(skill_commands, skill_bundles)

    def expand_command(
        self, session: Session, message: str
    ) -> tuple[str, ev.CommandExpandedEvent] | None:
        from agent import skill_bundles, skill_commands

        # Loading the skill may ask for its secrets: the run built its agent first, which
        # installed the bridge.
        with self._secrets.serving(session):
            return skills.expand(skill_commands, skill_bundles, message, session.session_id)

    def model_catalog(self, agent: Any, refresh: bool, unconfigured: bool) -> dict[str, Any]:
        self._modules()
        from hermes_cli.inventory import build_models_payload, load_picker_context

        context = load_picker_context()
        if agent is not None:  # a live agent's choice wins over the profile's config
            context = context.with_overrides(
                current_provider=str(getattr(agent, "provider", "") or ""),
                current_model=str(getattr(agent, "model", "") or ""),
                current_base_url=str(getattr(agent, "base_url", "") or ""),
            )
        # As hermes' TUI asks for its picker, less pricing and capabilities (those are
        # looked up on the network, from models.dev).
        payload: dict[str, Any] = build_models_payload(
            context,
            picker_hints=True,
            canonical_order=True,
            include_unconfigured=unconfigured,
            pricing=False,
            capabilities=False,
            refresh=refresh,
            probe_custom_providers=refresh,
            probe_current_custom_provider=not refresh,
        )
        return payload

    def unknown_toolsets(self, names: list[str]) -> list[str]:
        self._modules()
        from toolsets import validate_toolset

        return [name for name in names if not validate_toolset(name)]

    def warm_build(self) -> None:
        # A first build pays for its tools' readiness checks and definitions (which
        # hermes then keeps, keyed on the toolsets, its tool registry and the
        # config file) and imports httpx's transport: 100-250 ms here, off a first run.
        with self._warm_lock:
            if self._build_started or self._warmed:
                return
            self._warmed = True
            with contextlib.suppress(Exception):  # a build would report it
                self.offered_tools(None)  # what a new session's agent is built with
                import httpcore  # noqa: F401

    def build_started(self) -> None:
        """Called as a build starts: it waits for a warm-up under way, then none starts."""
        if not self._build_started:
            with self._warm_lock:
                self._build_started = True

    def offered_tools(self, agent: Any) -> dict[str, Any]:
        self._modules()
        from model_tools import get_tool_definitions, get_toolset_for_tool

        if agent is not None:  # what this agent offers, MCP servers' tools included
            found = list(getattr(agent, "tools", None) or [])
            enabled = getattr(agent, "enabled_toolsets", None)
            disabled = getattr(agent, "disabled_toolsets", None)
        else:  # what a new agent would be built with (``options``)
            from hermes_cli.config import load_config
            from hermes_cli.tools_config import _get_platform_tools

            cfg = load_config() or {}
            enabled = enabled_toolsets(cfg, _get_platform_tools)
            disabled = disabled_toolsets(cfg)
            found = get_tool_definitions(enabled, disabled, quiet_mode=True)
        return tools.described(found, enabled, disabled, get_toolset_for_tool)


def _failed(name: str, result: str) -> bool:
    from agent.display import _detect_tool_failure  # how hermes' CLI marks a failed call

    return bool(_detect_tool_failure(name, result)[0])
