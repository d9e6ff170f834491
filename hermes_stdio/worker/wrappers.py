"""The worker's changes to hermes-agent's modules, made once per worker, in order.

Contract: ``require()`` imports what ``install`` needs, raising as a broken
hermes-agent does, before anything is wrapped. ``install(home, run_agent,
after_identity)``, called once hermes-agent is imported (``adapter``),
installs each wrapper the adapter's contract names, in an order some of them
need: the profile's ``terminal.*`` settings are bridged before a cron job can
change them; ``after_identity()`` is called once commands run as their own
session (``shell_identity``), so a shell prelude it writes comes after that
one. A module hermes no longer has leaves its wrapper out (each logs or
changes nothing, as its own contract says); nothing here imports more than
``run_agent`` already did, but for hermes' shell hooks (about 1 ms).
"""

from __future__ import annotations

import contextlib
import contextvars
import importlib
import os
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from . import (
    agent_dirs,
    batch_plan,
    cd_record,
    cron_cwd,
    cron_guard,
    cron_run,
    edit_review,
    fence,
    file_dir,
    gated_calls,
    hook_runner,
    hooks,
    inturn,
    process_guard,
    reaper,
    relative_paths,
    session_environ,
    shell_identity,
    skill_files,
    steady_stdio,
    terminal_dir,
)
from .fence import hermes_root
from .secrets import SERVING

_USES = (  # what install imports, besides what it may go without
    *("agent.file_safety", "agent.prompt_builder", "agent.skill_utils", "hermes_cli.config"),
    *("tools.approval", "tools.async_delegation", "tools.daemon_pool", "tools.delegate_tool"),
    *("tools.file_operations", "tools.file_tools", "tools.process_registry", "tools.registry"),
    "tools.terminal_tool",
)


def require() -> None:
    """Import what ``install`` needs (all of it loaded by ``run_agent`` already):
    ImportError, or what a broken module raises, before anything is wrapped."""
    _hermes()


def _hermes() -> SimpleNamespace:
    """The modules of ``_USES``, each by its last name (``h.terminal_tool``)."""
    return SimpleNamespace(**{n.rpartition(".")[2]: importlib.import_module(n) for n in _USES})


def install(home: Path, run_agent: Any, after_identity: Callable[[], None]) -> None:
    h = _hermes()
    with contextlib.suppress(ImportError):  # a hermes without them swaps nothing
        from agent import agent_init, conversation_loop, process_bootstrap

        steady_stdio.install(process_bootstrap, agent_init, conversation_loop)
    with contextlib.suppress(ImportError):  # run_agent imports it: no cost
        from tools import code_execution_tool

        steady_stdio.keep(code_execution_tool)
    with contextlib.suppress(ImportError):  # run_agent imports it: no cost
        from tools import kanban_tools

        session_environ.install_hermes(kanban_tools)
    process_guard.install(h.process_registry, h.terminal_tool, h.approval, h.registry)
    cron_guard.install(h.approval)
    # The profile's terminal.* settings, before a cron job can change them.
    terminal_dir.bridge(h.terminal_tool)
    with contextlib.suppress(ImportError):  # run_agent imports it: no cost
        from cron import scheduler

        cron_cwd.install(scheduler, h.approval, h.terminal_tool)
    cron_run.install(run_agent.AIAgent)
    reaper.install(h.terminal_tool)
    cd_record.install(h.terminal_tool)
    file_dir.install(h.file_tools)
    relative_paths.install(h.registry.registry, h.file_tools)
    with contextlib.suppress(ImportError):  # run_agent imports them: no cost
        from agent import runtime_cwd, tool_dispatch_helpers

        agent_dirs.install(run_agent.AIAgent, h.file_tools, runtime_cwd)
        batch_plan.install(run_agent.AIAgent, tool_dispatch_helpers, h.file_tools)
        with contextlib.suppress(ImportError):  # about 1 ms, once
            from agent import shell_hooks
            from tools import interrupt

            hook_runner.install(shell_hooks, interrupt, run_agent, runtime_cwd.resolve_agent_cwd)
            hooks.install(shell_hooks, h.config, runtime_cwd)
    with contextlib.suppress(ImportError):  # run_agent imports it: no cost
        from hermes_cli import plugins

        gated_calls.install(plugins, _shown_args)
    shell_identity.install_hermes()
    after_identity()  # its prelude comes after the saved state too
    inturn.install(
        h.delegate_tool,
        h.async_delegation,
        h.daemon_pool,
        h.approval,
        h.terminal_tool,
        carry=(SERVING, edit_review.REVIEWING, *_turn_directory()),
        background_carry=(edit_review.REVIEWING,),
    )
    with contextlib.suppress(ImportError):  # without it, no run can review
        from acp_adapter import edit_approval

        edit_review.install(edit_approval)
    profile = os.environ.get("HERMES_STDIO_PROFILE")
    given = os.environ.get("HERMES_STDIO_ROOT")
    root = Path(given) if given else hermes_root(home, profile)
    fence.install([h.file_safety, h.file_tools, h.file_operations], home, root)
    skill_files.install(h.skill_utils, h.prompt_builder)


def _shown_args(name: str, args: Any) -> Any:
    """A tool call's arguments as hermes shows them in tool.started (secrets redacted)."""
    from agent.display import redact_tool_args_for_display  # loaded by then: tools ran

    return redact_tool_args_for_display(name, args)


def _turn_directory() -> tuple[contextvars.ContextVar[Any], ...]:
    """hermes' working directory of the calling context (``runtime_cwd``), which the
    worker sets for a turn: carried, a subagent's system prompt names the session's."""
    try:
        from agent import runtime_cwd
    except ImportError:
        return ()
    var = getattr(runtime_cwd, "_SESSION_CWD", None)
    return (var,) if isinstance(var, contextvars.ContextVar) else ()
