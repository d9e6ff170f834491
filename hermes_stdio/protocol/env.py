"""A profile's environment variables (its ``.env``: API keys, tokens, endpoints),
which a host lists and sets as hermes' own setup and dashboard do; a secret's value
is never sent back. Names follow ``types``: snake_case here, camelCase on the wire.
"""

from __future__ import annotations

from typing import Annotated, Literal

from .model import Name
from .names import WorkerKey
from .record import Record, doc_field

EnvName = Annotated[str, Name(128)]
EnvSource = Literal["profile", "managed", "environment"]


class EnvVarInfo(Record):
    name: str = doc_field("The variable, e.g. OPENROUTER_API_KEY.")
    description: str = doc_field("What hermes says it is for; empty for one hermes does not know.")
    category: str | None = doc_field(
        "hermes' group for it: provider, tool, messaging, skill, setting; null for one"
        " hermes does not know."
    )
    secret: bool = doc_field(
        "Whether its value is a secret (an API key, a token, a password): never sent back."
        " A variable hermes does not know counts as one."
    )
    url: str | None = doc_field("Where to get one, as hermes links it; null when none.")
    advanced: bool = doc_field("hermes leaves it out of its basic setup.")
    source: EnvSource | None = doc_field(
        "Where the worker's value comes from: the profile's .env, the administrator's"
        " managed .env (which wins), or the environment the supervisor was started with;"
        " null when it is not set."
    )
    value: str | None = doc_field("Its value when it is set and not a secret; null otherwise.")


class EnvListResult(Record):
    variables: list[EnvVarInfo] = doc_field(
        "hermes' known variables, in hermes' order, then any other the profile's .env sets,"
        " by name."
    )
    read_only: str | None = doc_field(
        "Why env/set and env/remove refuse every change (hermes' install is managed by a"
        " package manager); null when they do not."
    )


class EnvSetParams(Record):
    name: EnvName = doc_field("The variable: letters, digits and _, not starting with a digit.")
    value: str = doc_field(
        "Its value: at most 65,536 characters, ASCII only; line breaks are dropped (as"
        " hermes does)."
    )
    profile: str | None = doc_field("Hermes profile; default when absent.", None)
    worker_key: WorkerKey | None = doc_field("Worker isolation key.", None)


class EnvRemoveParams(Record):
    name: EnvName = doc_field("The variable.")
    profile: str | None = doc_field("Hermes profile; default when absent.", None)
    worker_key: WorkerKey | None = doc_field("Worker isolation key.", None)


class EnvVarResult(Record):
    variable: EnvVarInfo = doc_field("The variable as it is now.")


class EnvRemoveResult(Record):
    removed: bool = doc_field(
        "Whether the profile had it (in its .env or hermes' credential pool)."
    )
    variable: EnvVarInfo = doc_field("The variable as it is now.")


class EnvChangedNotification(Record):
    profile: str = doc_field(
        "The profile whose .env changed: env/list gives its variables (never a secret's value)."
    )
