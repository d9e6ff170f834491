"""A profile's settings (its ``config.yaml``), which a host reads and changes as
hermes' ``hermes config`` and its TUI's ``config.get`` / ``config.set`` do, for a
settings screen. Names follow ``types``: snake_case here, camelCase on the wire.
"""

from __future__ import annotations

from typing import Any

from .names import WorkerKey
from .record import Record, doc_field

JsonObject = dict[str, Any]


class ConfigReadResult(Record):
    path: str = doc_field("The profile's config.yaml (absolute).")
    version: str | None = doc_field(
        "The file's content, as a SHA-256 hex digest: config/write's expectedVersion,"
        " config/changed's version. Null when there is no file."
    )
    config: JsonObject = doc_field(
        "The file's settings as hermes parses it, ${VAR} references unexpanded; {} when"
        " there is no file. What YAML has and JSON lacks (a date, a key that is not a"
        " string) is given as a string."
    )
    defaults: JsonObject = doc_field(
        "hermes' own value for each setting the file leaves out (hermes' DEFAULT_CONFIG)."
    )
    managed: JsonObject = doc_field(
        "Settings the administrator's managed scope pins (hermes' /etc/hermes or"
        " HERMES_MANAGED_DIR): they win over the file, and config/write refuses them. {}"
        " when there are none."
    )
    read_only: str | None = doc_field(
        "Why config/write refuses every change (hermes' install is managed by a package"
        " manager, e.g. NixOS); null when it does not."
    )


class ConfigEdit(Record):
    key_path: list[str] = doc_field(
        'The setting, key by key from the top: ["agent", "max_turns"]. Keys may hold dots'
        " (a model name under a per-model override)."
    )
    value: Any = doc_field(
        "Its new value (a string, number, boolean, list or object); null removes the key,"
        " so hermes' default applies."
    )


class ConfigWriteParams(Record):
    edits: list[ConfigEdit] = doc_field(
        "1 to 64 changes, made in order and written at once, or not at all."
    )
    expected_version: str | None = doc_field(
        "The version the changes were made against (config/read's): when the file now"
        " holds something else, nothing is written and the request fails with"
        " config_conflict. Absent: written over whatever the file holds.",
        None,
    )
    profile: str | None = doc_field("Hermes profile; default when absent.", None)
    worker_key: WorkerKey | None = doc_field("Worker isolation key.", None)


class ConfigWriteResult(Record):
    version: str = doc_field("The file's new version.")
    config: JsonObject = doc_field("The file's settings now, as config/read gives them.")
    warnings: list[str] = doc_field(
        "For each key hermes does not know (written even so, as hermes' own config set"
        " does), what it says of it, with the key it suggests instead."
    )


class ConfigChangedNotification(Record):
    profile: str = doc_field("The profile whose config.yaml changed: config/read gives it.")
    version: str | None = doc_field(
        "The file's new version (config/read's); null once the file is gone."
    )
