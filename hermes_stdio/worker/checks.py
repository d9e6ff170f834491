"""What a worker checks in params beyond their types, before it starts work.

Contract: each raises ``RpcError(INVALID_PARAMS)`` naming the field.
- ``check_workspace(path)``: a workspace is an absolute path to an existing
  directory (or absent).
- ``usable_model(adapter, model, provider)``: the model, with the provider,
  resolves (hermes' own provider resolution); returns the resolved provider.
  It may import hermes, so it never runs on the reader thread.
- ``check_toolsets(adapter, names)``: every name is one of hermes' toolsets
  (its own, a plugin's or a connected MCP server's). It may import hermes too.
"""

from __future__ import annotations

import os

from ..wire import ErrorType, RpcError
from .contract import AgentAdapter


def check_workspace(workspace: str | None) -> None:
    # Relative to what? The worker's directory is the profile's home, next to other
    # profiles': a workspace is named absolutely, and must exist for its tools.
    if workspace is not None and not (os.path.isabs(workspace) and os.path.isdir(workspace)):
        raise RpcError(
            ErrorType.INVALID_PARAMS,
            f"workspace must be an absolute path to an existing directory: {workspace[:200]!r}",
            field="params.workspace",
        )


def check_toolsets(adapter: AgentAdapter, names: list[str]) -> None:
    unknown = adapter.unknown_toolsets(names)
    if unknown:
        raise RpcError(
            ErrorType.INVALID_PARAMS,
            f"unknown toolsets: {', '.join(repr(n[:100]) for n in unknown[:10])}",
            field="params.disabledToolsets",
        )


def usable_model(adapter: AgentAdapter, model: str, provider: str | None) -> str | None:
    """The provider ``model`` resolves to; ``invalid_params`` when it cannot be used.
    May import hermes: never on the reader thread."""
    try:
        return adapter.resolve_model(model, provider)
    except Exception as exc:
        raise RpcError(
            ErrorType.INVALID_PARAMS,
            f"cannot use model {model!r} (provider {provider!r}): {exc}",
            field="params.provider" if provider else "params.model",
        ) from exc
