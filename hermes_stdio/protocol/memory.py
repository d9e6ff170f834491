"""What a profile's agents remember across sessions (hermes' MEMORY.md and
USER.md), which a host shows and edits as a "memories" screen does. Names follow
``types``: snake_case here, camelCase on the wire.
"""

from __future__ import annotations

from typing import Literal

from .names import WorkerKey
from .record import Record, doc_field

MemoryTarget = Literal["memory", "user"]


class MemoryEntry(Record):
    text: str = doc_field("The entry, as hermes keeps it (it may span lines).")
    blocked: str | None = doc_field(
        "Why hermes keeps it out of its agents' prompts (it looks like an injected"
        " instruction); null when it does not."
    )


class MemoryStoreInfo(Record):
    target: MemoryTarget = doc_field(
        "memory: the agent's own notes (MEMORY.md); user: what it knows of the user (USER.md)."
    )
    enabled: bool = doc_field(
        "Whether the profile's agents use it (config.yaml memory.memory_enabled or"
        " memory.user_profile_enabled)."
    )
    entries: list[MemoryEntry] = doc_field("In the file's order.")
    chars: int = doc_field("How many characters the entries take, as hermes counts them.")
    char_limit: int = doc_field("How many hermes allows (config.yaml memory.*_char_limit).")


class MemoryListResult(Record):
    memory: MemoryStoreInfo = doc_field("The agent's own notes.")
    user: MemoryStoreInfo = doc_field("What the agent knows of the user.")


class MemoryAddParams(Record):
    target: MemoryTarget = doc_field("Which store.")
    content: str = doc_field("The new entry.")
    profile: str | None = doc_field("Hermes profile; default when absent.", None)
    worker_key: WorkerKey | None = doc_field("Worker isolation key.", None)


class MemoryReplaceParams(Record):
    target: MemoryTarget = doc_field("Which store.")
    entry: str = doc_field("The entry to change: its whole text, as memory/list gives it.")
    content: str = doc_field("What it says from now on.")
    profile: str | None = doc_field("Hermes profile; default when absent.", None)
    worker_key: WorkerKey | None = doc_field("Worker isolation key.", None)


class MemoryRemoveParams(Record):
    target: MemoryTarget = doc_field("Which store.")
    entry: str = doc_field("The entry to remove: its whole text, as memory/list gives it.")
    profile: str | None = doc_field("Hermes profile; default when absent.", None)
    worker_key: WorkerKey | None = doc_field("Worker isolation key.", None)


class MemoryStoreResult(Record):
    store: MemoryStoreInfo = doc_field("The store as it is now.")


class MemoryChangedNotification(Record):
    profile: str = doc_field("The profile whose memory changed: memory/list gives it.")
    target: MemoryTarget = doc_field("Which store changed.")
