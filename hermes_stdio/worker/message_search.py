"""hermes' full-text search of a profile's stored messages, by conversation.

Contract (``db`` is hermes' ``SessionDB``):
- ``search(db, query, roles, source, order, limit, offset)``: hermes'
  full-text search of the stored messages (rewound ones left out), each match
  with the conversation it belongs to (``Found``: the compression chain's
  first row, the id ``catalog.page`` lists, with the title and archived mark
  the listing shows); matches in subagent runs are skipped, and the page is
  filled from the matches after them. Also the offset, in hermes' matches,
  the next page starts at (None on the last page).
- ``snippet_parts(snippet, query)`` splits a match's snippet into its matched
  and unmatched pieces.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Found:
    session_id: str  # the conversation's: its compression chain's first row
    title: str | None
    archived: bool
    row: dict[str, Any]  # hermes' match: role, tool_name, snippet, timestamp


def search(
    db: Any,
    query: str,
    roles: list[str] | None,
    source: str | None,
    order: str,
    limit: int,
    offset: int,
) -> tuple[list[Found], int | None]:
    conversations: dict[str, Found | None] = {}
    found: list[Found] = []
    at = offset
    while True:
        rows = db.search_messages(
            query,
            source_filter=[source] if source is not None else None,
            role_filter=roles,
            limit=limit + 1,  # one more than asked: whether there is a next page
            offset=at,
            sort=None if order == "relevance" else order,
        )
        for i, row in enumerate(rows):
            sid = str(row.get("session_id") or "")
            if sid not in conversations:
                conversations[sid] = _conversation(db, sid)
            match = conversations[sid]
            if match is None:  # a subagent's run: on to the next match
                continue
            if len(found) == limit:
                return found, at + i
            found.append(Found(match.session_id, match.title, match.archived, row))
        if len(rows) <= limit:
            return found, None
        at += len(rows)


def _conversation(db: Any, session_id: str) -> Found | None:
    """The listed conversation a stored row belongs to; None for a subagent's run."""
    row = db.get_session(session_id)
    if row is None or _delegated(row):
        return None
    chain = list(db.get_compression_lineage(session_id) or [session_id])
    first = db.get_session(chain[0]) or row
    title = db.get_session_title(chain[-1]) or first.get("title")
    return Found(chain[0], str(title) if title else None, bool(first.get("archived")), {})


def _delegated(row: dict[str, Any]) -> bool:
    raw = row.get("model_config")
    try:
        config = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        return False
    return isinstance(config, dict) and config.get("_delegate_from") is not None


_MARKED = re.compile(r">>>(.*?)<<<", re.DOTALL)  # how hermes' FTS5 snippet marks a match
_OPERATORS = {"AND", "OR", "NOT"}


def snippet_parts(snippet: str, query: str) -> list[tuple[str, bool]]:
    """hermes' snippet as (text, matched) pieces. A snippet hermes found by substring
    (a short CJK query) marks nothing: the query's words are marked in it instead."""
    snippet = snippet.strip()  # hermes indexes the message and tool names joined by spaces
    if _MARKED.search(snippet) is None:
        words = [w.strip('"*') for w in query.split() if w.upper() not in _OPERATORS]
        words = sorted({w for w in words if w}, key=len, reverse=True)
        if not words:
            return [(snippet, False)] if snippet else []
        pattern = re.compile("(" + "|".join(map(re.escape, words)) + ")", re.IGNORECASE)
    else:
        pattern = _MARKED
    parts: list[tuple[str, bool]] = []
    end = 0
    for hit in pattern.finditer(snippet):
        for text, matched in ((snippet[end : hit.start()], False), (hit.group(1), True)):
            if not text:
                continue
            if parts and parts[-1][1] == matched:
                text = parts.pop()[0] + text
            parts.append((text, matched))
        end = hit.end()
    if snippet[end:]:
        parts.append((snippet[end:], False))
    return parts
