"""The stored-session half of ``adapter.HermesAdapter``: a profile's sessions as hermes'
session database keeps them.

Contract: ``HermesSessions`` is a mixin of ``HermesAdapter`` (which provides
``_modules``, importing hermes-agent, ``_db``, the profile's ``SessionDB``,
``home``, its hermes home, and ``resolve_model``) and implements the ``contract.AgentAdapter``
methods that read or edit stored sessions, each through ``catalog`` (and
``usage_summary``, through ``insights``; ``export_session``, through
``exports``). With the adapter and ``profile``, ``models``,
``profile_settings`` and ``exports`` it is the only code that imports
hermes-agent.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..protocol import insights as ins
from . import catalog, exports, insights, message_search, settings
from .state import Session


class HermesSessions:
    home: Path  # the profile's hermes home
    _db: Any
    _modules: Callable[[], Any]
    resolve_model: Callable[[str, str | None], str | None]

    def stored_history(self, session_id: str) -> list[dict[str, Any]] | None:
        self._modules()
        db = self._db
        if db.get_session(session_id) is None:
            return None
        # Repaired for replay: a turn cut short (a crash) may have left user;user.
        messages = db.get_messages_as_conversation(
            catalog.tip(db, session_id), repair_alternation=True
        )
        return list(messages) if isinstance(messages, list) else None

    def stored_sessions(
        self,
        query: str | None,
        source: str | None,
        archived: bool,
        workspace: str | None,
        limit: int,
        offset: int,
    ) -> tuple[list[tuple[dict[str, Any], catalog.Spent]], int | None]:
        self._modules()
        rows, next_offset = catalog.page(
            self._db, query, source, archived, workspace, limit, offset
        )
        for row, _used in rows:
            if row.get("cwd") == os.getcwd():  # hermes' stamp on a "cli" session: not a workspace
                row["cwd"] = None
        return rows, next_offset

    def search_sessions(
        self,
        query: str,
        roles: list[str] | None,
        source: str | None,
        order: str,
        limit: int,
        offset: int,
    ) -> tuple[list[message_search.Found], int | None]:
        self._modules()
        return message_search.search(self._db, query, roles, source, order, limit, offset)

    def rename_session(self, session_id: str, title: str | None) -> str | None:
        self._modules()
        return catalog.rename(self._db, session_id, title)

    def archive_session(self, session_id: str, archived: bool) -> bool:
        self._modules()
        return catalog.archive(self._db, session_id, archived)

    def export_session(
        self, session_id: str, fmt: str, redact: bool, lineage: bool
    ) -> tuple[str, int]:
        self._modules()
        db = self._db
        # A host names a conversation by its first id; hermes goes on under newer ones.
        newest = catalog.tip(db, session_id) if db.get_session(session_id) else session_id
        data = db.export_session_lineage(newest) if lineage else db.export_session(newest)
        if not data:
            raise catalog.UnknownSession(session_id)
        return exports.render(data, fmt, redact)

    def usage_summary(
        self, days: int, source: str | None, utc_offset_minutes: int
    ) -> ins.UsageSummaryResult:
        self._modules()  # hermes' SessionDB has made the database by now
        from agent.insights import InsightsEngine

        return insights.summarize(
            InsightsEngine, self.home / "state.db", days, source, utc_offset_minutes
        )

    def undo_turns(self, session_id: str, turns: int) -> catalog.Rewound:
        self._modules()
        return catalog.rewind(self._db, session_id, turns)

    def fork_session(self, session_id: str, branch: str, title: str | None) -> catalog.Forked:
        self._modules()
        from agent.turn_context import extract_api_content_sidecar

        forked = catalog.fork(self._db, session_id, branch, title, extract_api_content_sidecar)
        settings.copy(self._db, session_id, branch)
        return forked

    def recall_settings(self, session: Session) -> None:
        if not session.settings_recalled:
            self._modules()
            settings.recall(self._db, session, self.resolve_model)

    def keep_settings(self, session: Session) -> None:
        self._modules()
        settings.keep(self._db, session)

    def recall_workspace(self, session: Session) -> None:
        if session.workspace_recalled:
            return
        self._modules()
        session.workspace_recalled = True
        if session.workspace is None:
            session.workspace = self.stored_workspace(session.session_id)

    def stored_workspace(self, session_id: str) -> str | None:
        self._modules()
        kept = catalog.workspace_of(self._db, session_id)
        # hermes stamps a "cli" session with the worker's own directory: not a workspace.
        if kept and kept != os.getcwd() and os.path.isabs(kept) and os.path.isdir(kept):
            return kept
        return None

    def save_workspace(self, session: Session) -> None:
        workspace = session.workspace
        if workspace is None:
            return
        self._modules()
        # The row the agent writes to is the chain's newest: no database read per turn.
        newest = getattr(session.agent, "session_id", None) or catalog.tip(
            self._db, session.session_id
        )
        if session.workspace_stored != (workspace, newest):
            catalog.keep_workspace(self._db, session.session_id, workspace)
            session.workspace_stored = (workspace, newest)

    def delete_session(self, session_id: str) -> catalog.Deleted:
        self._modules()
        deleted = catalog.delete(self._db, session_id, self.home / "sessions")
        for row in {session_id, *deleted.session_ids}:  # the newer ids' records go too
            settings.forget(self._db, row)
        return deleted
