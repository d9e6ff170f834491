"""background.working with a stand-in of hermes' process registry: which sessions'
background work goes on, from their running processes and async subagents."""

from __future__ import annotations

from typing import Any

from hermes_stdio.worker import background
from hermes_stdio.worker.keys import hermes_session_key


class Registry:
    def __init__(self, *running_for: str) -> None:
        self.running_keys = {hermes_session_key(sid) for sid in running_for}
        self.asked: list[str] = []

    def has_active_for_session(self, session_key: str) -> bool:
        self.asked.append(session_key)
        return session_key in self.running_keys


def delegation(session_id: str, status: str) -> dict[str, Any]:
    return {
        "delegation_id": "deleg_1",
        "session_key": hermes_session_key(session_id),
        "status": status,
    }


def test_a_session_with_a_running_process_or_subagent_is_working() -> None:
    registry = Registry("served")
    subagents = [delegation("delegating", "running"), delegation("finalizing", "finalizing")]
    ids = ["served", "delegating", "finalizing", "quiet"]

    assert background.working(registry, subagents, ids) == {"served", "delegating", "finalizing"}


def test_finished_subagents_and_other_sessions_work_do_not_count() -> None:
    registry = Registry("elsewhere")
    subagents = [delegation("done", "completed"), delegation("elsewhere", "running")]

    assert background.working(registry, subagents, ["done", "quiet"]) == set()
    assert registry.asked == [hermes_session_key("done"), hermes_session_key("quiet")]
