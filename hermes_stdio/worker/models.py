"""A session's model: ``HermesModels``, a mixin of ``adapter.HermesAdapter``.

Contract:
- ``model_of(agent)`` is the model an agent runs, or None.
- ``resolve_model(model, provider)`` checks the model can be used (hermes'
  runtime provider resolution raises when it cannot) and is the provider it
  resolves to, or the one given when hermes names none.
- ``switch_model(agent, model, provider)`` switches a built agent, as hermes'
  ``/model`` does, and gives its context compressor the model's context
  length from the profile's config when the config sets one, as hermes'
  build does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .options import configured_context_length


class HermesModels:
    _modules: Callable[[], Any]

    def model_of(self, agent: Any) -> str | None:
        model = getattr(agent, "model", None)
        return model if isinstance(model, str) and model else None

    def _runtime(self, model: str, provider: str | None) -> dict[str, Any]:
        self._modules()
        from hermes_cli.runtime_provider import resolve_runtime_provider

        runtime: dict[str, Any] = resolve_runtime_provider(requested=provider, target_model=model)
        return runtime

    def resolve_model(self, model: str, provider: str | None) -> str | None:
        resolved = self._runtime(model, provider).get("provider")
        return str(resolved) if resolved else provider

    def switch_model(self, agent: Any, model: str, provider: str | None) -> None:
        from hermes_cli.config import load_config

        runtime = self._runtime(model, provider)
        agent.switch_model(
            model,
            runtime.get("provider") or provider or "",
            api_key=runtime.get("api_key") or "",
            base_url=runtime.get("base_url") or "",
            api_mode=runtime.get("api_mode") or "",
        )
        length = configured_context_length(load_config(), model, str(agent.provider or ""))
        compressor = getattr(agent, "context_compressor", None)
        if length is not None and compressor is not None:
            agent._config_context_length = length  # what hermes' build applies
            compressor.update_model(
                model=agent.model,
                context_length=length,
                base_url=agent.base_url,
                api_key=agent.api_key,
                provider=agent.provider,
                api_mode=agent.api_mode,
            )
