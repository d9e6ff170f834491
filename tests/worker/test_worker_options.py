"""AIAgent options from a profile's config with fake hermes resolvers: the session's
choices win, config fills the rest, and a resolver that fails leaves hermes' default."""

from __future__ import annotations

from typing import Any

from hermes_stdio.worker.options import HermesOptions, agent_options, configured_context_length


def runtime(requested: str | None, target_model: str | None) -> dict[str, Any]:
    return {"provider": requested or "custom", "base_url": "http://x/v1", "api_key": "k"}


def failing(cfg: dict[str, Any]) -> Any:
    raise RuntimeError("broken fallback config")


HERMES = HermesOptions(
    runtime,
    lambda cfg, model: {"enabled": True, "effort": f"high-for-{model}"},
    lambda cfg, platform: {"web", f"hermes-{platform}"},
    failing,
)
CONFIG = {
    "model": {"default": "m-default"},
    "agent": {
        "max_turns": 7,
        "system_prompt": "be brief",
        "service_tier": "Fast",
        "disabled_toolsets": ["terminal"],
    },
    "provider_routing": {"only": ["a"], "sort": "price", "require_parameters": True},
}


def test_config_fills_what_the_session_leaves_open() -> None:
    options = agent_options(CONFIG, None, None, None, HERMES)
    assert options["model"] == "m-default"
    assert (options["provider"], options["base_url"]) == ("custom", "http://x/v1")
    assert (options["max_iterations"], options["ephemeral_system_prompt"]) == (7, "be brief")
    assert options["service_tier"] == "priority"
    assert options["enabled_toolsets"] == ["hermes-cli", "web"]
    assert options["disabled_toolsets"] == ["terminal"]
    assert options["reasoning_config"] == {"enabled": True, "effort": "high-for-m-default"}
    assert (options["providers_allowed"], options["provider_sort"]) == (["a"], "price")
    assert options["provider_require_parameters"] is True
    assert "fallback_model" not in options  # its resolver failed: hermes' default


def test_the_sessions_model_provider_and_instructions_win() -> None:
    options = agent_options(CONFIG, "m-chosen", "openrouter", "be thorough", HERMES)
    assert (options["model"], options["provider"]) == ("m-chosen", "openrouter")
    assert options["ephemeral_system_prompt"] == "be thorough"
    assert options["reasoning_config"]["effort"] == "high-for-m-chosen"


def test_the_sessions_left_out_toolsets_add_to_the_profiles() -> None:
    options = agent_options(CONFIG, None, None, None, HERMES, ("web", "file", "terminal"))
    assert options["disabled_toolsets"] == ["file", "terminal", "web"]
    assert agent_options({}, None, None, None, HERMES, ("file",))["disabled_toolsets"] == ["file"]


def test_an_empty_config_gives_hermes_defaults() -> None:
    options = agent_options({}, None, None, None, HERMES)
    assert (options["model"], options["max_iterations"]) == ("", 90)
    assert options["service_tier"] is None and options["disabled_toolsets"] is None
    assert options["ephemeral_system_prompt"] is None
    assert options["checkpoints_enabled"] is False


def test_checkpoints_are_read_as_hermes_cli_reads_them() -> None:
    on = agent_options({"checkpoints": True}, None, None, None, HERMES)
    assert on["checkpoints_enabled"] is True and "checkpoint_max_snapshots" not in on
    tuned = {"checkpoints": {"enabled": True, "max_snapshots": 5, "max_file_size_mb": "big"}}
    options = agent_options(tuned, None, None, None, HERMES)
    assert (options["checkpoints_enabled"], options["checkpoint_max_snapshots"]) == (True, 5)
    assert "checkpoint_max_file_size_mb" not in options  # not a number: hermes' default


def test_the_configured_context_length_belongs_to_the_profiles_own_model_only() -> None:
    cfg = {"model": {"default": "m", "provider": "custom", "context_length": "131072"}}
    assert configured_context_length(cfg, "m", "custom") == 131072
    assert configured_context_length(cfg, "other", "custom") is None
    assert configured_context_length(cfg, "m", "openrouter") is None
    unset = {"model": {"default": "m"}}
    assert configured_context_length(unset, "m", "custom") is None
    assert (
        configured_context_length({"model": {"default": "m", "context_length": "128K"}}, "m", "x")
        is None
    )
    assert configured_context_length({"model": "m"}, "m", "custom") is None
