"""What a session's AIAgent takes from the profile's config.yaml besides its
model, derived the way hermes' CLI and TUI derive it.

Contract: ``agent_options(cfg, model, provider, instructions, hermes,
left_out)`` returns ``AIAgent`` keyword arguments from the loaded config
``cfg`` and the session's own choices (each None for the profile's), with hermes' own
resolvers in ``hermes`` (``HermesOptions``):
- the model (the session's, else ``model.default``) and its provider's
  runtime (endpoint, key, API mode, credential pool) from hermes' runtime
  resolver; ``max_iterations`` from ``agent.max_turns`` (default 90); the
  ephemeral system prompt (the session's instructions, else
  ``agent.system_prompt``);
- ``reasoning_config``: ``agent.reasoning_effort`` and its per-model overrides;
- ``service_tier``: ``agent.service_tier`` (fast, priority or on: priority);
- ``enabled_toolsets``: the toolsets ``hermes tools`` enables for the CLI
  platform (the platform the agent reports), MCP servers included, and
  ``disabled_toolsets``: ``agent.disabled_toolsets`` and the session's
  ``left_out`` toolsets;
- OpenRouter's ``provider_routing`` preferences;
- ``fallback_model``: the fallback chain (``fallback_providers``, then the
  older ``fallback_model``);
- file checkpoints: ``checkpoints`` (a boolean, or ``enabled``,
  ``max_snapshots``, ``max_total_size_mb``, ``max_file_size_mb``), as
  ``checkpoint_settings`` reads them (also for ``checkpoint/*``).
A resolver that fails leaves its option out, so hermes' default applies.

``configured_context_length(cfg, model, provider)`` is ``model.context_length``
when ``model`` on ``provider`` is the profile's own model (``model.default``,
on ``model.provider`` if it names one), else None: hermes
drops that setting on every model switch, which is right for another model
but loses it when a session switches back to the profile's model.

Read at each call, once hermes-agent is importable: ``configured(key)`` is
``key`` as the profile's config.yaml writes it (hermes' defaults not merged);
``lists_mcp_servers()`` whether it names any MCP server;
``configured_approval_mode()`` its ``approvals.mode``; ``clarify_timeout_s()``
hermes' ``agent.clarify_timeout``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..transport.log import log
from .keys import PLATFORM


@dataclass(frozen=True)
class HermesOptions:
    runtime: Callable[..., dict[str, Any]]  # resolve_runtime_provider
    reasoning: Callable[[dict[str, Any], str], Any]  # resolve_reasoning_config
    platform_toolsets: Callable[[dict[str, Any], str], Any]  # tools_config._get_platform_tools
    fallback_chain: Callable[[dict[str, Any]], Any]  # fallback_config.get_fallback_chain


def _service_tier(agent_cfg: dict[str, Any]) -> str | None:
    raw = str(agent_cfg.get("service_tier") or "").strip().lower()
    return "priority" if raw in ("fast", "priority", "on") else None


def configured_context_length(cfg: dict[str, Any], model: str, provider: str) -> int | None:
    model_cfg = cfg.get("model")
    if not isinstance(model_cfg, dict) or model_cfg.get("default") != model:
        return None
    own = str(model_cfg.get("provider") or "").strip().lower()
    if own and own != provider.strip().lower():
        return None
    try:
        length = int(model_cfg.get("context_length"))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None  # hermes ignores an invalid one too
    return length if length > 0 else None


def checkpoint_settings(cfg: dict[str, Any]) -> dict[str, Any]:
    """hermes' ``CheckpointManager`` arguments from ``checkpoints``, as its CLI reads them."""
    raw = cfg.get("checkpoints")
    section: dict[str, Any] = (
        {"enabled": raw} if isinstance(raw, bool) else raw if isinstance(raw, dict) else {}
    )
    settings: dict[str, Any] = {"enabled": bool(section.get("enabled", False))}
    for key in ("max_snapshots", "max_total_size_mb", "max_file_size_mb"):
        value = section.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            settings[key] = value
    return settings


def enabled_toolsets(
    cfg: dict[str, Any], platform_toolsets: Callable[[dict[str, Any], str], Any]
) -> list[str]:
    """The toolsets ``hermes tools`` enables for the CLI platform, the one the agent reports."""
    return sorted(platform_toolsets(cfg, PLATFORM))


def disabled_toolsets(cfg: dict[str, Any]) -> list[str] | None:
    """``agent.disabled_toolsets``: toolsets left out whatever the platform enables."""
    agent_cfg = cfg.get("agent")
    disabled = agent_cfg.get("disabled_toolsets") if isinstance(agent_cfg, dict) else None
    return [str(x) for x in disabled] if isinstance(disabled, list) else None


def _without(profiles: list[str] | None, session: tuple[str, ...] | None) -> list[str] | None:
    return sorted({*(profiles or []), *session}) if session else profiles


def agent_options(
    cfg: dict[str, Any],
    model: str | None,
    provider: str | None,
    instructions: str | None,
    hermes: HermesOptions,
    left_out: tuple[str, ...] | None = None,
) -> dict[str, Any]:
    agent_cfg: dict[str, Any] = cfg["agent"] if isinstance(cfg.get("agent"), dict) else {}
    model_cfg = cfg.get("model")
    default = model_cfg.get("default") if isinstance(model_cfg, dict) else model_cfg
    model = model or str(default or "")
    runtime = hermes.runtime(requested=provider, target_model=model or None)
    routing = cfg.get("provider_routing")
    routing = routing if isinstance(routing, dict) else {}
    prompt = agent_cfg.get("system_prompt")
    options: dict[str, Any] = {
        "model": model,
        "max_iterations": int(agent_cfg.get("max_turns") or cfg.get("max_turns") or 90),
        "provider": runtime.get("provider"),
        "base_url": runtime.get("base_url"),
        "api_key": runtime.get("api_key"),
        "api_mode": runtime.get("api_mode"),
        "acp_command": runtime.get("command"),
        "acp_args": runtime.get("args"),
        "credential_pool": runtime.get("credential_pool"),
        "ephemeral_system_prompt": instructions or (str(prompt) if prompt else None),
        "service_tier": _service_tier(agent_cfg),
        "disabled_toolsets": _without(disabled_toolsets(cfg), left_out),
        "providers_allowed": routing.get("only"),
        "providers_ignored": routing.get("ignore"),
        "providers_order": routing.get("order"),
        "provider_sort": routing.get("sort"),
        "provider_require_parameters": bool(routing.get("require_parameters", False)),
        "provider_data_collection": routing.get("data_collection"),
    }
    resolvers: dict[str, Callable[[], Any]] = {
        "reasoning_config": lambda: hermes.reasoning(cfg, model),
        "enabled_toolsets": lambda: enabled_toolsets(cfg, hermes.platform_toolsets),
        "fallback_model": lambda: hermes.fallback_chain(cfg),
    }
    options.update(
        ("checkpoints_enabled" if key == "enabled" else f"checkpoint_{key}", value)
        for key, value in checkpoint_settings(cfg).items()
    )
    for name, resolve in resolvers.items():
        try:
            options[name] = resolve()
        except Exception as exc:
            log(f"worker: config: cannot resolve {name}: {exc!r}")
    return options


def clarify_timeout_s() -> float:
    """hermes' ``agent.clarify_timeout`` (seconds, default 3600)."""
    from tools.clarify_gateway import get_clarify_timeout

    return float(get_clarify_timeout())


def configured(key: str) -> Any:
    """``key`` as the profile's config.yaml writes it (hermes' defaults not merged)."""
    from hermes_cli.config import read_raw_config

    return (read_raw_config() or {}).get(key)


def lists_mcp_servers() -> bool:
    servers = configured("mcp_servers")
    return isinstance(servers, dict) and bool(servers)


def configured_approval_mode() -> object:
    approvals = configured("approvals")
    return approvals.get("mode") if isinstance(approvals, dict) else None
