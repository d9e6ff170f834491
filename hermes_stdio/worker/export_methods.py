"""``session/export``: a stored session as hermes' exporters render it (``exports``).

Contract (a mixin of ``WorkerService``, which provides ``adapter`` and
``answer_off_reader``): answered off the reader from the profile's session
database, whichever worker holds the session; a session the database does not
have (or an agent that keeps none, the synthetic one) is ``unknown_session``.
"""

from __future__ import annotations

from collections.abc import Callable

from ..protocol import stored as st
from ..wire import Request
from .contract import AgentAdapter
from .queries import stored_only


class ExportMethods:
    adapter: AgentAdapter
    answer_off_reader: Callable[..., object]

    def _h_session_export(self, req: Request, p: st.SessionExportParams) -> object:
        def export() -> st.SessionExportResult:
            content, count = self.adapter.export_session(
                p.session_id, p.format, p.redact, p.lineage
            )
            return st.SessionExportResult(p.session_id, p.format, content, count)

        return self.answer_off_reader(req, "export", lambda: stored_only(p.session_id, export))
