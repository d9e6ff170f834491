"""The profile's stored sessions, through hermes' session database.

Contract (each function takes hermes' ``SessionDB``):
- ``tip(db, session_id)``: where a session's conversation lives now. hermes'
  compression with ``compression.in_place: false`` continues it under a new
  id (a chain of ``parent_session_id``); this is the chain's newest row, as
  hermes' CLI resumes it (the id itself when there is no chain).
  ``open_tip(db, session_id)``: the same, for a worker loading the session:
  that row is marked open again if it was ended (by an earlier close), as
  hermes' CLI and TUI reopen a session they resume.
- ``page(db, query, source, archived, workspace, limit, offset)``: hermes'
  session rows, most recently active first, a compression chain as one row
  (projected to its newest continuation), only archived ones when
  ``archived``, only those whose ``cwd`` is ``workspace`` or under it; each
  with what its conversation's model calls used (``Spent``: every row of its
  chain added up; subagent runs count on their own rows). Also the offset
  the next page starts at (None on the last page).
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
- ``workspace_of(db, session_id)``: the working directory stored with the
  conversation (hermes' ``cwd``: its newest row's, else its first's), or None.
  ``keep_workspace(db, session_id, workspace)`` stores it on both rows (where
  the listing shows it and where hermes' ``cwd`` filter looks) and returns
  the newest row's id.
- ``delete(db, session_id, sessions_dir)``: removes the whole conversation for
  good, as hermes' ``sessions delete`` removes one row: every row of its
  compression chain with its messages, subagent runs and transcript files in
  ``sessions_dir``. Branches off it stay, as sessions of their own.
  ``UnknownSession`` for an unknown session.
Searching the stored messages is ``message_search``'s.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .usage import PRICED


class UnknownSession(LookupError):
    """The profile's database does not know the session."""


class SessionExists(Exception):
    """The profile's database already has a session with that id."""


class TitleRefused(ValueError):
    """hermes refuses the title: in use by another session, too long, ..."""


def page(
    db: Any,
    query: str | None,
    source: str | None,
    archived: bool,
    workspace: str | None,
    limit: int,
    offset: int,
) -> tuple[list[tuple[dict[str, Any], Spent]], int | None]:
    kept: list[dict[str, Any]] = []
    at = offset
    # hermes' filter finds nothing under "/" (it looks for "//..."): ours alone does.
    prefix = workspace if workspace and workspace.rstrip("/") else None
    while True:
        rows = db.list_sessions_rich(
            source=source,
            cwd_prefix=prefix,
            limit=limit + 1,  # one more than asked: whether there is a next page
            offset=at,
            order_by_last_active=True,  # the only order hermes searches in
            search_query=query,
            archived_only=archived,
            compact_rows=True,
        )
        for i, row in enumerate(rows):
            # hermes' filter is SQL LIKE, in which _ and % match any character.
            if workspace is None or _within(row.get("cwd"), workspace):
                if len(kept) == limit:
                    return _spent_by(db, kept), at + i
                kept.append(row)
        if len(rows) <= limit:
            return _spent_by(db, kept), None
        at += len(rows)


def _within(cwd: Any, workspace: str) -> bool:
    top = workspace.rstrip("/")
    return isinstance(cwd, str) and (cwd == (top or "/") or cwd.startswith(top + "/"))


def _spent_by(db: Any, rows: list[dict[str, Any]]) -> list[tuple[dict[str, Any], Spent]]:
    listed = []
    for row in rows:
        # A projected chain's row holds its first row's counts: add up every row's.
        first = row.get("_lineage_root_id")
        chain = (
            [db.get_session(s) or {} for s in db.get_compression_lineage(first)] if first else []
        )
        listed.append((row, spent(chain or [row])))
    return listed


@dataclass(frozen=True)
class Spent:
    """What a conversation's model calls used, as hermes counts them per row."""

    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    reasoning_tokens: int
    api_calls: int
    cost_usd: float | None  # hermes' estimate; None when it priced none of the calls


def spent(rows: list[dict[str, Any]]) -> Spent:
    def total(column: str) -> int:
        return sum(v for r in rows if isinstance(v := r.get(column), int) and v > 0)

    costs = [r.get("estimated_cost_usd") for r in rows]
    cost = sum(c for c in costs if isinstance(c, int | float) and c > 0)
    priced = cost > 0 or any(r.get("cost_status") in PRICED for r in rows)
    return Spent(
        total("input_tokens"),
        total("output_tokens"),
        total("cache_read_tokens"),
        total("cache_write_tokens"),
        total("reasoning_tokens"),
        total("api_call_count"),
        round(cost, 9) if priced else None,
    )


def tip(db: Any, session_id: str) -> str:
    return str(db.resolve_resume_session_id(session_id) or session_id)


def open_tip(db: Any, session_id: str) -> str:
    newest = tip(db, session_id)
    row = db.get_session(newest)  # None for a new session: its row comes with its first turn
    # A live row's end stays once set (hermes' first reason wins): an ended row
    # a worker goes on in would keep its first end, and could be pruned.
    if row and row.get("ended_at") is not None and row.get("end_reason") != "compression":
        db.reopen_session(newest)
    return newest


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


def workspace_of(db: Any, session_id: str) -> str | None:
    for row_id in (tip(db, session_id), session_id):  # its newest row's, else its first's
        row = db.get_session(row_id)
        cwd = row.get("cwd") if row else None
        if isinstance(cwd, str) and cwd:
            return cwd
    return None


def keep_workspace(db: Any, session_id: str, workspace: str) -> str:
    newest = tip(db, session_id)
    for row_id in dict.fromkeys((session_id, newest)):
        db.update_session_cwd(row_id, workspace)
    return newest


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
