"""``reference/complete``: the ``@`` references a user may mean as they type one,
through ``completions``.

Contract (a mixin of ``WorkerService``, which provides ``adapter``,
``sessions`` and ``answer_off_reader``): answered off the reader (it may list a
tree, run git, import hermes-agent or read the profile's database). Paths are
completed in ``params.workspace`` if given (not an absolute path to a
directory: ``invalid_params``); else in the session's workspace, the one its
next turn would use: the one it has in this worker, else the one stored with
it; else (no session, or a session with none, or one nobody knows yet) in the
worker's own directory, as a new session's turn would. A ``text`` not starting
with ``@`` or a ``limit`` outside 1 to ``MAX_COMPLETIONS`` is
``invalid_params``; an agent that expands no references (the synthetic one) is
``agent_unavailable``.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from ..protocol import inputs as i
from ..wire import ErrorType, Request, RpcError
from . import completions, terminal_dir
from .checks import check_workspace
from .contract import AgentAdapter
from .parts import answer_through
from .repo_files import RepoFiles
from .state import Session


class ReferenceMethods:
    adapter: AgentAdapter
    sessions: dict[str, Session]
    answer_off_reader: Callable[..., object]
    repo_files: RepoFiles

    def _h_reference_complete(self, req: Request, p: i.ReferenceCompleteParams) -> object:
        if not p.text.startswith("@"):
            raise RpcError(ErrorType.INVALID_PARAMS, "text must start with @", field="params.text")
        if not 1 <= p.limit <= i.MAX_COMPLETIONS:
            raise RpcError(
                ErrorType.INVALID_PARAMS,
                f"limit must be 1 to {i.MAX_COMPLETIONS}",
                field="params.limit",
            )
        check_workspace(p.workspace)

        def complete(refused: Callable[[str], bool]) -> i.ReferenceCompleteResult:
            root = p.workspace or self._session_workspace(p.session_id) or terminal_dir.current()
            items, more = completions.complete(
                p.text, root, p.limit, refused, self.repo_files.listing
            )
            return i.ReferenceCompleteResult(items, more, root)

        return answer_through(
            self.answer_off_reader,
            req,
            "references",
            self.adapter.reference_refusal,
            complete,
            lambda _exc: None,
        )

    def _session_workspace(self, session_id: str | None) -> str | None:
        if session_id is None:
            return None
        session = self.sessions.get(session_id)
        if session is not None and (session.workspace or session.workspace_recalled):
            held = session.workspace
            return held if held and os.path.isdir(held) else None
        return self.adapter.stored_workspace(session_id)
