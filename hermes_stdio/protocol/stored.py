"""Sessions as a profile's database keeps them, for a host to browse and resume.
Names follow ``types``: snake_case here, camelCase on the wire.
"""

from __future__ import annotations

from typing import Literal

from .names import SessionId, WorkerKey
from .record import Record, doc_field

SearchRole = Literal["user", "assistant", "tool"]
SearchOrder = Literal["relevance", "newest", "oldest"]


class SessionListStoredParams(Record):
    profile: str | None = doc_field("Hermes profile; default when absent.", default=None)
    worker_key: WorkerKey | None = doc_field("Worker isolation key.", default=None)
    query: str | None = doc_field(
        "Only sessions whose title or id contains this (case-insensitive).", default=None
    )
    source: str | None = doc_field(
        "Only sessions started with this run/start source, e.g. vscode.", default=None
    )
    archived: bool = doc_field("List the archived ones (session/archive) instead.", default=False)
    workspace: str | None = doc_field(
        "Only sessions whose workspace is this absolute path or a directory in it.", default=None
    )
    limit: int = doc_field("At most this many (1 to 200).", default=50)
    offset: int = doc_field("Skip this many: nextOffset of the previous page.", default=0)


class StoredUsage(Record):
    input_tokens: int = doc_field("Prompt tokens sent, over all of the conversation's model calls.")
    output_tokens: int = doc_field("Tokens the model wrote.")
    cache_read_tokens: int = doc_field("Of the input, tokens the provider served from its cache.")
    cache_write_tokens: int = doc_field("Of the input, tokens the provider wrote to its cache.")
    reasoning_tokens: int = doc_field("Of the output, reasoning tokens.")
    api_calls: int = doc_field("Model calls made.")
    cost_usd: float | None = doc_field(
        "What they cost in US dollars, as hermes estimates it; null if it priced none."
    )


class StoredSession(Record):
    session_id: str = doc_field("The id to resume it with in run/start.")
    title: str | None = doc_field("Its title (hermes names sessions after the first turn).")
    preview: str | None = doc_field("The start of its first user message.")
    source: str | None = doc_field("Where it came from: run/start source, cli, and so on.")
    model: str | None = doc_field("The model it last ran with.")
    workspace: str | None = doc_field("The working directory stored with it (hermes' cwd).")
    message_count: int = doc_field("Messages it holds.")
    started_at: int | None = doc_field("When it started (ms since the epoch).")
    last_active_at: int | None = doc_field("When it last had a message (ms since the epoch).")
    usage: StoredUsage = doc_field("What its model calls used, over every turn so far.")


class SessionListStoredResult(Record):
    sessions: list[StoredSession] = doc_field("Most recently active first.")
    next_offset: int | None = doc_field("The offset of the next page; null on the last one.")


class SessionRenameParams(Record):
    session_id: SessionId = doc_field("The stored session.")
    title: str | None = doc_field("Its new title; null or blank clears it.")
    profile: str | None = doc_field("Profile to look in if no worker holds it.", default=None)
    worker_key: WorkerKey | None = doc_field("Worker isolation key.", default=None)


class SessionRenameResult(Record):
    session_id: str = doc_field("The session.")
    title: str | None = doc_field("The title as saved (hermes trims it); null when cleared.")


class SessionArchiveParams(Record):
    session_id: SessionId = doc_field("The stored session.")
    archived: bool = doc_field("True hides it from session/listStored; false shows it again.")
    profile: str | None = doc_field("Profile to look in if no worker holds it.", default=None)
    worker_key: WorkerKey | None = doc_field("Worker isolation key.", default=None)


class SessionArchiveResult(Record):
    session_id: str = doc_field("The session.")
    archived: bool = doc_field("Whether it is archived now.")


ExportFormat = Literal["markdown", "html", "json"]


class SessionExportParams(Record):
    session_id: SessionId = doc_field("The stored session.")
    format: ExportFormat = doc_field(
        "markdown (hermes' .md export, with its front matter), html (its self-contained"
        " page) or json (the session and its messages as hermes' database holds them).",
        "markdown",
    )
    redact: bool = doc_field(
        "Mask what hermes recognises as secrets (API keys, tokens, credentials) in the"
        " messages and tool calls, as hermes sessions export --redact does.",
        False,
    )
    lineage: bool = doc_field(
        "The whole conversation across hermes' compressions (its earlier ids first),"
        " not only this id's part.",
        False,
    )
    profile: str | None = doc_field("Profile to look in if no worker holds it.", default=None)
    worker_key: WorkerKey | None = doc_field("Worker isolation key.", default=None)


class SessionExportResult(Record):
    session_id: str = doc_field("The session.")
    format: ExportFormat = doc_field("The format of content.")
    content: str = doc_field("The export, as hermes renders it.")
    message_count: int = doc_field("The messages it holds.")


class SessionUndoParams(Record):
    session_id: SessionId = doc_field("The session.")
    turns: int = doc_field("How many of its last exchanges to take back (1 or more).", default=1)
    profile: str | None = doc_field("Profile to look in if no worker holds it.", default=None)
    worker_key: WorkerKey | None = doc_field("Worker isolation key.", default=None)


class SessionUndoResult(Record):
    session_id: str = doc_field("The session.")
    turns_undone: int = doc_field("Exchanges taken back: fewer than asked when it had fewer.")
    messages_removed: int = doc_field("Stored messages hidden: user, assistant and tool ones.")
    message: str | None = doc_field(
        "The earliest taken-back user message's text, to offer for editing; null when none."
    )


class SessionForkParams(Record):
    session_id: SessionId = doc_field("The session to branch off.")
    new_session_id: SessionId | None = doc_field(
        "The branch's id; a new one when absent. It must be new to the profile.", default=None
    )
    title: str | None = doc_field(
        "The branch's title; when absent, the session's title numbered (Plan #2) or branch.",
        default=None,
    )
    profile: str | None = doc_field("Profile to look in if no worker holds it.", default=None)
    worker_key: WorkerKey | None = doc_field("Worker isolation key.", default=None)


class SessionForkResult(Record):
    session_id: str = doc_field("The branch: resume it with run/start.")
    parent_session_id: str = doc_field("The session it branched off.")
    title: str | None = doc_field("The branch's title as saved.")
    message_count: int = doc_field("Messages copied into it.")


class SessionDeleteParams(Record):
    session_id: SessionId = doc_field("The stored session.")
    profile: str | None = doc_field("Profile to look in if no worker holds it.", default=None)
    worker_key: WorkerKey | None = doc_field("Worker isolation key.", default=None)


class SessionDeleteResult(Record):
    session_id: str = doc_field("The session.")
    removed_session_ids: list[str] = doc_field(
        "The stored rows removed: its id and those hermes continued it under after compressions."
    )
    messages_removed: int = doc_field("Stored messages removed with them.")


class SessionSearchParams(Record):
    query: str = doc_field(
        'What to find, in hermes\' full-text syntax: words (all must appear), "a phrase", '
        "OR, NOT, prefix*. At most 1,000 characters."
    )
    profile: str | None = doc_field("Hermes profile; default when absent.", default=None)
    worker_key: WorkerKey | None = doc_field("Worker isolation key.", default=None)
    roles: list[SearchRole] | None = doc_field(
        "Only messages of these roles; every role when absent.", default=None
    )
    source: str | None = doc_field(
        "Only sessions started with this run/start source, e.g. vscode.", default=None
    )
    order: SearchOrder = doc_field(
        "relevance (hermes' ranking), or by the message's time: newest or oldest first.",
        default="relevance",
    )
    limit: int = doc_field("At most this many (1 to 100).", default=20)
    offset: int = doc_field("Skip this many: nextOffset of the previous page.", default=0)


class SnippetPart(Record):
    text: str = doc_field("A piece of the message, in order.")
    match: bool = doc_field("Whether the piece is what the query matched.")


class SessionSearchHit(Record):
    session_id: str = doc_field(
        "The conversation, as session/listStored lists it: resume it with run/start."
    )
    title: str | None = doc_field("The conversation's title, as session/listStored shows it.")
    archived: bool = doc_field("Whether the conversation is archived (session/archive).")
    role: str = doc_field("The matching message's role: user, assistant or tool.")
    tool_name: str | None = doc_field("The tool whose result matched; null for other roles.")
    snippet: list[SnippetPart] = doc_field(
        "The part of the message around the match (hermes cuts it to about 40 words)."
    )
    timestamp: float | None = doc_field(
        "When the message was stored (Unix seconds), as its timestamp in session/history."
    )


class SessionSearchResult(Record):
    hits: list[SessionSearchHit] = doc_field("One per matching message, in the order asked.")
    next_offset: int | None = doc_field("The offset of the next page; null on the last one.")
