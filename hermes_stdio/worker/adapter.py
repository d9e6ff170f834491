"""The module that imports hermes-agent, with its mixins ``stored`` (stored sessions),
``profile`` (what hermes keeps per profile), ``bridged`` (the host's answers),
``models`` (a session's model) and ``turns`` (a session's turns): ``HermesAdapter``,
the ``contract.AgentAdapter`` that drives hermes' real ``AIAgent``.

Contract:
- One agent per session, its callbacks bound to the session's *current* run
  (``callbacks``).
- The agent's ``clarify`` tool asks the host (``clarify.ClarifyBridge``,
  waiting at most hermes' ``agent.clarify_timeout``), and so does a terminal
  command's ``sudo`` for a password (``sudo.SudoBridge``), and a skill the
  agent loads for a secret the profile lacks (``secrets.SecretBridge``; hermes
  asks only on an interactive surface, so ``HERMES_INTERACTIVE=1`` is set, as
  hermes' TUI gateway does).
- A session whose ``compression`` is ``host`` has hermes' context compression
  done by the host (``compression``); its turns compress as ``turns`` says.
- Once hermes-agent is loaded, ``runtime_changed`` says whether its files
  (with those a worker template loaded for it: ``watch_loaded``) changed on
  disk since (``runtime``).
- Goals (``goals``) are hermes' own, kept in the profile's session database.
- A session the host closes, or that its worker stops with, is ended as hermes'
  CLI ends one on exit (``session_end``: its memory provider, then
  ``on_session_finalize``).
- A context file hermes would read and hang on (``context_files``) fails the
  build, turn or compression first, as ``ContextUnreadable``; such a skill
  file is left out of hermes' skill scans (``skill_files``).
- The profile's MCP servers (``mcp``) connect in the background once
  ``connect_mcp`` is called (or the first agent is built, which waits for them
  a bounded while); ``shutdown`` closes them.
- hermes-agent is imported lazily (``preload`` warms it, and the openai
  package hermes imports on its first agent build, on a background thread);
  a failed import raises ``AgentUnavailable``.
- Session databases use the explicit path ``$HERMES_HOME/state.db``;
  ``stored_history`` reads a session back from it (resuming after a restart),
  from the tip of its compression chain, where a resumed agent goes on
  (``stored``: the stored-session methods, the adapter's other half).
- Dangerous commands always wait for the host (``HERMES_EXEC_ASK=1``):
  approvals are scoped per session (``scope``) and go through
  ``approvals.ApprovalBridge`` while a turn runs; with no bridge (hermes
  internals changed) hermes refuses them, so nothing dangerous runs unasked.
  A subagent hermes runs within the turn is asked about in the turn's run
  (``inturn``); a background one asks nobody, and what it flags never runs.
  Input the agent types into a background process (hermes' ``process``
  tool) is checked the same way, and only its own session may write to,
  read, wait on or kill it (``process_guard``). hermes' read deny-list also
  refuses another profile's files (``fence``), for its file tools and ``@``
  references alike.
- hermes leaves the worker's ``sys.stdout`` and ``sys.stderr`` in place
  (``steady_stdio``): swapping them under another thread's ``print`` crashed it.
- What it changes in hermes for speed alone is ``shortcuts``' and
  ``plugin_scope``'s (the web dashboard's plugins are not loaded); its idle shells
  are reaped by a timer (``reaper``), its commands run as their own session
  (``shell_identity``), its tools share one record of where a session's
  commands ``cd``-ed to (``cd_record``), its file tools work there
  (``file_dir``) and so do its media tools' relative paths
  (``relative_paths``), as do an agent's checkpoints and directory hints
  (``agent_dirs``) and its plan of which tool calls run at once
  (``batch_plan``); its kanban tools read the turn's session id
  (``session_environ``), and a subagent within the turn is told the turn's
  working directory (``inturn``).
- The profile's shell hooks run as in hermes' gateway (``hooks``), in the
  session's directory, and an interrupt stops one that is running
  (``hook_runner``); a tool
  call a plugin sends for approval is named in ``approval/requested``
  (``gated_calls``).
- The wrappers of hermes' modules named here are installed once per worker, in
  the order they need (``wrappers``).
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..protocol import events as ev
from ..protocol.projects import ProjectFacts
from ..protocol.providers import ModelOneShotParams
from . import (
    catalog,
    context_files,
    cron_run,
    images,
    one_shot,
    plugin_scope,
    references,
    session_end,
    terminal_dir,
    wrappers,
)
from .approvals import ApprovalBridge
from .bridged import HermesAnswers
from .callbacks import EventSink
from .clarify import ClarifyBridge
from .compression import CompressionBridge, delegate_compression, estimate
from .contract import AgentUnavailable, Announce, UserContent
from .keys import PLATFORM
from .models import HermesModels
from .options import (
    HermesOptions,
    agent_options,
    clarify_timeout_s,
    configured_approval_mode,
)
from .profile import HermesProfile
from .profile_accounts import HermesAccounts
from .profile_cron import HermesCron
from .profile_mcp import HermesMcp
from .profile_settings import HermesSettings
from .profile_toggles import HermesToggles
from .runtime import Fingerprint, loaded_files
from .scope import TurnModules
from .secrets import SecretBridge
from .shell_policy import ShellPolicy
from .shortcuts import cache_tool_scan, pay_tls_setup_once
from .state import Session
from .stored import HermesSessions
from .sudo import SudoBridge
from .titles import auto_title
from .turns import HermesTurns


class HermesAdapter(
    HermesTurns,  # first: the others' _scope annotations are checked against its method
    HermesProfile,
    HermesMcp,
    HermesAccounts,
    HermesCron,
    HermesSessions,
    HermesAnswers,
    HermesModels,
    HermesSettings,
    HermesToggles,
):
    def __init__(self, home: Path) -> None:
        self.home = home
        # Dangerous commands wait for an approval; with no notify callback registered
        # hermes refuses to run them, so nothing dangerous runs without the host.
        os.environ["HERMES_EXEC_ASK"] = "1"
        # hermes asks for a skill's secrets only on an interactive surface. Approvals
        # are unchanged by it: with HERMES_EXEC_ASK they always wait for the host.
        os.environ["HERMES_INTERACTIVE"] = "1"
        plugin_scope.install()  # before hermes imports its plugin manager
        self._import_lock = threading.Lock()
        self._db: Any = None
        self._approvals: ApprovalBridge | None = None
        self._clarify = ClarifyBridge(clarify_timeout_s)
        self._sudo = SudoBridge()
        self._secrets = SecretBridge()
        self._compression = CompressionBridge()
        self._loaded: Fingerprint | None = None
        self._preloaded = Fingerprint(())
        self._turn_modules: TurnModules | None = None  # once a turn has imported them
        self._cron_turns = cron_run.TurnWatches()

    def preload(self) -> None:
        """Import hermes-agent, and what its first agent build and turn would import, and
        load the CA bundles they would load, ahead of the first run (call from a background
        thread)."""
        with contextlib.suppress(AgentUnavailable):  # reported when a run needs it
            self._modules()
            # hermes imports openai only when it builds the first agent (~0.9 s here),
            # and openai its resources at the first request (~0.5 s, in the turn).
            # After run_agent, so the profile's .env is already in the environment.
            with contextlib.suppress(Exception):
                import openai.resources  # noqa: F401
            # The bundles hermes checks at each build and its clients load, shared from
            # now on (sslshare); a failing check is not remembered: the build reports it.
            with contextlib.suppress(Exception):
                from agent import ssl_guard
                from httpx._transports import default

                default.create_ssl_context()  # type: ignore[attr-defined]
                ssl_guard.verify_ca_bundle_with_fallback()

    def _modules(self) -> Any:
        with self._import_lock:
            verdicts = cache_tool_scan()  # None after the first call
            try:
                import run_agent
                from hermes_cli import config, runtime_provider  # noqa: F401
                from hermes_state import SessionDB
                from tools import approval, skills_tool

                wrappers.require()  # a broken install is AgentUnavailable, not a half-wrap
            except Exception as exc:  # ImportError, or a broken install
                raise AgentUnavailable(
                    f"cannot import hermes-agent: {type(exc).__name__}: {exc}"
                ) from exc
            if verdicts is not None:
                verdicts.save()
            if self._loaded is None:
                own = Fingerprint.of(loaded_files(run_agent, "hermes-agent"))
                self._loaded = self._preloaded + own
                pay_tls_setup_once()
            if self._db is None:
                self._db = SessionDB(db_path=self.home / "state.db")
            if self._approvals is None:  # once: the guards wrap hermes' module functions
                self.watch_env()  # the .env hermes' import just loaded
                self._approvals = ApprovalBridge(approval, configured_approval_mode)
                wrappers.install(self.home, run_agent, after_identity=self.watch_shells)
            self._watch_notices()
            self._secrets.install(skills_tool, config.save_env_value_secure)
            return run_agent

    def build(self, session: Session, sink: EventSink) -> Any:
        self.build_started()
        context_files.check(self.home, None)  # hermes loads the memories here
        self._mcp_servers().wait()  # tools of MCP servers that connect in time
        run_agent = self._modules()
        self.refresh_env()  # a key another worker or the user's editor saved since
        from hermes_cli.config import load_config
        from hermes_cli.fallback_config import get_fallback_chain
        from hermes_cli.runtime_provider import resolve_runtime_provider
        from hermes_cli.tools_config import _get_platform_tools
        from hermes_constants import resolve_reasoning_config

        hermes = HermesOptions(
            resolve_runtime_provider,
            resolve_reasoning_config,
            _get_platform_tools,
            get_fallback_chain,
        )
        chosen = (session.model, session.provider, session.instructions)
        options = agent_options(load_config() or {}, *chosen, hermes, session.disabled_toolsets)
        agent = run_agent.AIAgent(
            **options,
            quiet_mode=True,
            verbose_logging=False,
            platform=PLATFORM,
            session_id=catalog.open_tip(self._db, session.session_id),
            session_db=self._db,
            clarify_callback=self._clarify.callback(session),
            **self.callbacks(sink, session),
        )
        from agent.model_metadata import estimate_request_tokens_rough

        delegate_compression(agent, session, self._compression, estimate_request_tokens_rough)
        return agent

    def estimate_context(
        self, agent: Any, messages: list[dict[str, Any]], instructions: str | None
    ) -> dict[str, Any]:
        from agent.model_metadata import estimate_request_tokens_rough

        try:
            from agent.context_breakdown import compute_session_context_breakdown as parts
        except ImportError:  # a hermes without it: no segments
            parts = None
        return estimate(agent, messages, instructions, estimate_request_tokens_rough, parts)

    def project_facts(self, workspace: str) -> ProjectFacts | None:
        self._modules()
        from agent.coding_context import project_facts_for

        found = project_facts_for(workspace)
        if not isinstance(found, dict):
            return None
        lists = ("manifests", "packageManagers", "verifyCommands", "contextFiles")
        return ProjectFacts(str(found["root"]), *([str(v) for v in found[k]] for k in lists))

    def one_shot(self, agent: Any, request: ModelOneShotParams) -> str:
        self._modules()  # the profile's keys and config, as for a turn
        from agent.oneshot import run_oneshot

        return one_shot.ask(run_oneshot, agent, request)

    def expand_references(
        self, agent: Any, session: Session, message: str
    ) -> tuple[str, ev.ReferencesExpandedEvent] | None:
        from agent import context_references

        length = getattr(getattr(agent, "context_compressor", None), "context_length", None)
        window = length if isinstance(length, int) and length > 0 else 128_000
        cwd = session.workspace or terminal_dir.current()
        return references.expand(context_references, message, cwd, window)

    def reference_refusal(self) -> Callable[[str], bool]:
        self._modules()  # the fence is on hermes' read rule from then on
        from agent import context_references

        return references.refusal(context_references)

    def shell_policy(self) -> ShellPolicy:
        self._modules()  # the profile's environment applied, as for a turn
        from tools import approval
        from tools.environments import local

        return ShellPolicy(approval, local)

    def attach_images(
        self, agent: Any, message: str, attachments: list[images.Attachment]
    ) -> tuple[UserContent, ev.ImagesAttachedEvent]:
        from agent.image_routing import build_native_content_parts, decide_image_input_mode
        from gateway.platforms.base import cache_image_from_bytes
        from hermes_cli.config import load_config
        from tools.vision_tools import vision_analyze_tool

        mode = decide_image_input_mode(str(agent.provider or ""), str(agent.model), load_config())
        describe = images.describer(vision_analyze_tool)
        hermes = images.HermesImages(
            mode, cache_image_from_bytes, build_native_content_parts, describe
        )
        return images.attach(message, attachments, hermes)

    def title_session(
        self, agent: Any, session: Session, message: str, final: str, announce: Announce
    ) -> None:
        from agent.title_generator import maybe_auto_title

        auto_title(maybe_auto_title, self._db, agent, session.history, message, final, announce)

    def runtime_changed(self) -> str | None:
        return self._loaded.changed() if self._loaded is not None else None

    def watch_loaded(self, loaded: Fingerprint) -> None:
        self._preloaded = loaded

    def release(self, agent: Any) -> None:
        releaser = getattr(agent, "release_clients", None)  # hermes' soft teardown
        if callable(releaser):
            with contextlib.suppress(Exception):
                releaser()

    def end_session(self, agent: Any, history: list[dict[str, Any]], reason: str) -> None:
        session_end.end(agent, history, reason)

    def close(self, agent: Any) -> None:
        closer = getattr(agent, "close", None)
        if callable(closer):
            with contextlib.suppress(Exception):
                closer()
