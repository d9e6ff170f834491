"""The profile's stored sessions, through hermes' session database.

Contract (each function takes hermes' ``SessionDB``):
- ``tip(db, session_id)``: where a session's conversation lives now. hermes'
  compression with ``compression.in_place: false`` continues it under a new
  id (a chain of ``parent_session_id``); this is the chain's newest row, as
  hermes' CLI resumes it (the id itself when there is no chain).
- ``page(db, query, source, archived, limit, offset)``: hermes' session rows,
  most recently active first, a compression chain as one row (projected to
  its newest continuation), only archived ones when ``archived``.
- ``rename(db, session_id, title)``: sets the title on the row the listing
  shows (the chain's newest continuation) and returns it as saved (None
  clears it); raises ``UnknownSession`` for a session the database does not
  know and ``ValueError`` for a title hermes refuses (in use, too long).
- ``archive(db, session_id, archived)``: hides the whole conversation from
  the default listing, or shows it again (messages stay); ``UnknownSession``
  for an unknown session.
- ``rewind(db, session_id, turns)``: takes back the conversation's last
  ``turns`` exchanges (fewer when it has fewer) as hermes' ``/undo`` does:
  from the chain's newest row, the rows from the earliest of those user
  messages on are marked inactive (kept for audit, hidden from the agent,
  history and search). ``UnknownSession`` for an unknown session.
- ``fork(db, session_id, branch, title, sidecar)``: stores a copy of the
  conversation's active messages (from the chain's newest row) as a new
  session ``branch``, linked to it as hermes' ``/branch`` does (its parent,
  and the ``_branched_from`` mark that keeps hermes' resume of the parent
  from following it). Titled ``title``, or hermes' next title in the
  parent's lineage ("Plan #2", "branch"). ``UnknownSession`` for an unknown
  session, ``SessionExists`` when ``branch`` is taken, ``TitleRefused`` (and
  no branch) for a title hermes refuses.
- ``delete(db, session_id, sessions_dir)``: removes the whole conversation for
  good, as hermes' ``sessions delete`` removes one row: every row of its
  compression chain with its messages, subagent runs and transcript files in
  ``sessions_dir``. Branches off it stay, as sessions of their own.
  ``UnknownSession`` for an unknown session.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any


class UnknownSession(LookupError):
    """The profile's database does not know the session."""


class SessionExists(Exception):
    """The profile's database already has a session with that id."""


class TitleRefused(ValueError):
    """hermes refuses the title: in use by another session, too long, ..."""


def page(
    db: Any, query: str | None, source: str | None, archived: bool, limit: int, offset: int
) -> list[dict[str, Any]]:
    rows = db.list_sessions_rich(
        source=source,
        limit=limit,
        offset=offset,
        order_by_last_active=True,  # the only order hermes searches in
        search_query=query,
        archived_only=archived,
        compact_rows=True,
    )
    return list(rows)


def tip(db: Any, session_id: str) -> str:
    return str(db.resolve_resume_session_id(session_id) or session_id)


def _known(db: Any, session_id: str) -> None:
    if db.get_session(session_id) is None:
        raise UnknownSession(session_id)


def rename(db: Any, session_id: str, title: str | None) -> str | None:
    _known(db, session_id)
    newest = tip(db, session_id)
    db.set_session_title(newest, title or "")
    saved = db.get_session_title(newest)
    return str(saved) if saved else None


def archive(db: Any, session_id: str, archived: bool) -> bool:
    _known(db, session_id)
    db.set_session_archived(session_id, archived)
    return archived


@dataclass(frozen=True)
class Rewound:
    turns: int  # exchanges taken back
    removed: int  # stored messages hidden
    message: str | None  # the earliest taken-back user message's text


def rewind(db: Any, session_id: str, turns: int) -> Rewound:
    _known(db, session_id)
    newest = tip(db, session_id)
    recent = db.list_recent_user_messages(newest, limit=turns)  # newest first
    if not recent:
        return Rewound(0, 0, None)
    done = db.rewind_to_message(newest, recent[-1]["id"])
    target = done.get("target_message") or {}
    return Rewound(len(recent), int(done.get("rewound_count") or 0), _text(target.get("content")))


@dataclass(frozen=True)
class Forked:
    title: str | None
    messages: int


# What a stored message carries, by its key in hermes' conversation form -> the
# matching append_message argument (what hermes' /branch copies, and the rest).
_COPIED = {
    "content": "content",
    "tool_name": "tool_name",
    "tool_calls": "tool_calls",
    "tool_call_id": "tool_call_id",
    "effect_disposition": "effect_disposition",
    "timestamp": "timestamp",
    "finish_reason": "finish_reason",
    "reasoning": "reasoning",
    "reasoning_content": "reasoning_content",
    "reasoning_details": "reasoning_details",
    "codex_reasoning_items": "codex_reasoning_items",
    "codex_message_items": "codex_message_items",
    "message_id": "platform_message_id",
    "observed": "observed",
}


def fork(
    db: Any,
    session_id: str,
    branch: str,
    title: str | None,
    sidecar: Callable[[dict[str, Any]], str | None],
) -> Forked:
    _known(db, session_id)
    if db.get_session(branch) is not None:
        raise SessionExists(branch)
    newest = tip(db, session_id)
    parent = db.get_session(newest) or {}
    messages = db.get_messages_as_conversation(newest)
    db.create_session(
        branch,
        source=parent.get("source") or "cli",
        model=parent.get("model"),
        model_config={"_branched_from": newest},
        parent_session_id=newest,
        cwd=parent.get("cwd"),
    )
    try:
        wanted = title.strip() if title else ""
        base = db.get_session_title(session_id) or db.get_session_title(newest) or "branch"
        db.set_session_title(branch, wanted or db.get_next_title_in_lineage(base))
    except ValueError as exc:
        db.delete_session(branch)
        raise TitleRefused(str(exc)) from exc
    for msg in messages:
        copied = {arg: msg[key] for key, arg in _COPIED.items() if key in msg}
        db.append_message(
            session_id=branch, role=msg.get("role", "user"), api_content=sidecar(msg), **copied
        )
    saved = db.get_session_title(branch)
    return Forked(str(saved) if saved else None, len(messages))


@dataclass(frozen=True)
class Deleted:
    session_ids: tuple[str, ...]  # the rows removed, oldest first
    messages: int


def delete(db: Any, session_id: str, sessions_dir: Path) -> Deleted:
    _known(db, session_id)
    chain = list(db.get_compression_lineage(session_id) or [session_id])
    messages = sum(int(db.message_count(row)) for row in chain)
    for row in reversed(chain):  # newest first: each row's parent still exists
        db.delete_session(row, sessions_dir=sessions_dir)
    return Deleted(tuple(chain), messages)


def _text(content: Any) -> str | None:
    if isinstance(content, list):  # text parts and images: the text, as hermes' /undo shows it
        parts = [p.get("text") for p in content if isinstance(p, dict) and p.get("type") == "text"]
        content = "\n".join(p for p in parts if isinstance(p, str) and p)
    return content if isinstance(content, str) and content else None
