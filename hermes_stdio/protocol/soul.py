"""A profile's SOUL.md: the agent's identity, the first part of the system prompt
hermes builds for each of the profile's new sessions. A host reads and replaces
it as hermes' dashboard does (its profile page's "soul"), for a persona editor.
Names follow ``types``: snake_case here, camelCase on the wire.
"""

from __future__ import annotations

from .record import Record, doc_field

MAX_SOUL_CHARS = 1_048_576


class SoulReadParams(Record):
    profile: str | None = doc_field("Hermes profile; default when absent.", None)


class SoulReadResult(Record):
    path: str = doc_field("The profile's SOUL.md (absolute; a symlink is not resolved).")
    version: str | None = doc_field(
        "The file's content, as a SHA-256 hex digest of its bytes: soul/write's"
        " expectedVersion, soul/changed's version. Null when there is no file."
    )
    content: str = doc_field(
        'Its text (UTF-8; a byte that is not is read as U+FFFD). "" when there is no file.'
    )


class SoulWriteParams(Record):
    content: str = doc_field(
        f"The new text, at most {MAX_SOUL_CHARS} characters. Empty: hermes' own default"
        " identity applies."
    )
    expected_version: str | None = doc_field(
        "The version the text was edited from (soul/read's): when the file now holds"
        " something else, nothing is written and the request fails with config_conflict."
        " Absent: written over whatever the file holds.",
        None,
    )
    profile: str | None = doc_field("Hermes profile; default when absent.", None)


class SoulWriteResult(Record):
    version: str = doc_field("The file's new version.")


class SoulChangedNotification(Record):
    profile: str = doc_field("The profile whose SOUL.md changed: soul/read gives it.")
    version: str | None = doc_field(
        "The file's new version (soul/read's); null once it is gone or is not a regular file."
    )
