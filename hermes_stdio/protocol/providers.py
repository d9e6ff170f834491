"""The models a profile can use, by provider, for a host's model picker (to choose what
session/switchModel and run/start name), and one-shot requests to a model outside any
conversation. Names follow ``types``: snake_case here, camelCase on the wire.
"""

from __future__ import annotations

from .names import SessionId, WorkerKey
from .record import Record, doc_field


class ModelListParams(Record):
    session_id: SessionId | None = doc_field(
        "Mark this session's current model and provider; the profile's when absent.",
        default=None,
    )
    refresh: bool = doc_field(
        "Ask the user-defined endpoints for their models now (network) instead of"
        " asking only the current one.",
        default=False,
    )
    include_unconfigured: bool = doc_field(
        "Also list the providers the profile has no credentials for (authenticated false,"
        " no models), as hermes' TUI picker does: where a host offers to sign in (signIn)"
        " or to set a key.",
        default=False,
    )
    profile: str | None = doc_field("Hermes profile; default when absent.", default=None)
    worker_key: WorkerKey | None = doc_field("Worker isolation key.", default=None)


class ProviderModels(Record):
    slug: str = doc_field("The provider as run/start and session/switchModel name it.")
    name: str = doc_field("Its display name.")
    current: bool = doc_field("Whether it is the current provider.")
    user_defined: bool = doc_field("A custom endpoint of the profile's config.yaml.")
    models: list[str] = doc_field("Its models, as hermes curates them for agents.")
    total_models: int = doc_field("How many models it has; models may list fewer.")
    authenticated: bool = doc_field("Whether the profile has credentials for it.")
    sign_in: bool = doc_field(
        "Whether account/login can sign the profile in to its account (and account/logout"
        " out); its other credentials are API keys (env/set)."
    )
    api_url: str | None = doc_field("A user-defined endpoint's URL.")
    warning: str | None = doc_field("What to know before choosing it, if anything.")


class ModelListResult(Record):
    model: str | None = doc_field("The current model (the session's, else the profile's).")
    provider: str | None = doc_field("The current provider.")
    providers: list[ProviderModels] = doc_field(
        "The providers the profile can use (with credentials), in hermes' order."
    )


MAX_ONE_SHOT_TEXT = 1_048_576  # characters of a one-shot's instructions, input or diff


class CommitMessagePrompt(Record):
    diff: str = doc_field("The changes to describe (hermes sends the first 12,000 characters).")
    recent_commits: str | None = doc_field(
        "Recent commit subjects of the repository, whose style to match.", default=None
    )
    avoid: str | None = doc_field(
        "A message proposed already: write a different one (for a Regenerate button).",
        default=None,
    )


class ModelOneShotParams(Record):
    instructions: str | None = doc_field("The request's system instructions.", default=None)
    input: str | None = doc_field("The text the model answers.", default=None)
    commit_message: CommitMessagePrompt | None = doc_field(
        "Ask with hermes' own prompt for a commit message (Conventional Commits) instead of"
        " instructions and input.",
        default=None,
    )
    temperature: float | None = doc_field(
        "Sampling temperature, 0 to 2; hermes' 0.3 when absent.", default=None
    )
    session_id: SessionId | None = doc_field(
        "Use this session's model and provider (when its worker has it loaded); else hermes'"
        " model for auxiliary tasks (its title model).",
        default=None,
    )
    profile: str | None = doc_field("Hermes profile; default when absent.", default=None)
    worker_key: WorkerKey | None = doc_field("Worker isolation key.", default=None)


class ModelOneShotResult(Record):
    text: str = doc_field("The model's answer, without a code fence around it.")
