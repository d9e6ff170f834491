"""``project/facts``: the project a directory is in, as hermes' agents see it (its
coding context: root, project files, package managers, verify commands, context
files), for a host's verify buttons or project view, as hermes' TUI gives it.

Contract (a mixin of ``WorkerService``, which provides ``adapter`` and
``answer_off_reader``): a ``workspace`` that is not an absolute path to an
existing directory is ``invalid_params`` naming ``params.workspace``; otherwise
it is answered off the reader (hermes reads a few small files) with
``adapter.project_facts``: ``facts`` null outside any project; the synthetic
agent is ``agent_unavailable``.
"""

from __future__ import annotations

from collections.abc import Callable

from ..protocol import projects as pj
from ..wire import Request
from .checks import check_workspace
from .contract import AgentAdapter


class ProjectMethods:
    adapter: AgentAdapter
    answer_off_reader: Callable[..., object]

    def _h_project_facts(self, req: Request, p: pj.ProjectFactsParams) -> object:
        check_workspace(p.workspace)

        def answer() -> pj.ProjectFactsResult:
            return pj.ProjectFactsResult(self.adapter.project_facts(p.workspace))

        return self.answer_off_reader(req, "project facts", answer)
