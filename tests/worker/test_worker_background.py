"""background.working with a stand-in of hermes' process registry: which sessions'
background work goes on, from their running processes and async subagents."""

from __future__ import annotations

from typing import Any

from hermes_stdio.worker import background
from hermes_stdio.worker.keys import hermes_session_key


class Process:
    def __init__(self, process_id: str, session_id: str, exited: bool = False) -> None:
        self.id, self.session_key, self.exited = process_id, hermes_session_key(session_id), exited
        self.output_buffer, self.command, self.cwd = "", "serve", "/srv"
        self.exit_code: int | None = None


class Registry:
    def __init__(self, *running_for: str, processes: tuple[Process, ...] = ()) -> None:
        self.running_keys = {hermes_session_key(sid) for sid in running_for}
        self.asked: list[str] = []
        self.processes = {p.id: p for p in processes}

    def has_active_for_session(self, session_key: str) -> bool:
        self.asked.append(session_key)
        return session_key in self.running_keys

    def list_sessions(self, session_key: str) -> list[dict[str, Any]]:
        return [
            {"session_id": p.id, "command": "serve", "status": "exited" if p.exited else "running"}
            for p in self.processes.values()
            if p.session_key == session_key
        ]

    def get(self, process_id: str) -> Process | None:
        return self.processes.get(process_id)

    def kill_process(self, process_id: str) -> dict[str, Any]:
        self.processes[process_id].exited = True
        return {"status": "killed"}


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


class Delegation:
    """hermes' async_delegation: its records and who it was asked to interrupt."""

    def __init__(self, *records: dict[str, Any]) -> None:
        self.records = list(records)
        self.interrupted: list[str] = []

    def list_async_delegations(self) -> list[dict[str, Any]]:
        return self.records

    def interrupt_for_session(self, *, session_key: str, reason: str) -> int:
        self.interrupted.append(session_key)
        return 1


def test_ending_a_session_interrupts_its_subagents_and_kills_its_processes() -> None:
    mine = delegation("s1", "running")
    done = {**delegation("s1", "completed"), "delegation_id": "deleg_2"}
    hermes = Delegation(mine, done, delegation("s2", "running"))
    processes = (
        Process("proc_1", "s1"),
        Process("proc_2", "s1", exited=True),
        Process("proc_3", "s2"),
    )

    assert background.ending(Registry(processes=processes), hermes, "s1") == ["deleg_1", "proc_1"]
    assert hermes.interrupted == [hermes_session_key("s1")]
    assert [p.exited for p in processes] == [True, True, False]  # another session's runs on
    quiet = Delegation(done)
    assert background.ending(Registry(), quiet, "s1") == [] and quiet.interrupted == []
    lone = Registry(processes=(Process("proc_4", "s1"),))
    assert background.ending(lone, None, "s1") == ["proc_4"]  # no subagents imported yet


def test_a_sessions_subagents_are_listed_oldest_first_with_how_they_ended() -> None:
    late = {**delegation("s1", "running"), "delegation_id": "deleg_2", "dispatched_at": 20.0}
    early = {
        **delegation("s1", "completed"),
        "goal": "count the kiwis " * 20,
        "model": "m2",
        "dispatched_at": 10.0,
        "completed_at": 12.5,
    }
    closing = {**delegation("s1", "finalizing"), "delegation_id": "deleg_3", "completed_at": 30}
    hermes = Delegation(late, early, closing, delegation("s2", "running"))

    listed = background.subagents(hermes, "s1")

    assert [(s.subagent_id, s.status, s.completed_at) for s in listed] == [
        ("deleg_3", "running", None),  # its report is not out yet: still at work to a host
        ("deleg_1", "completed", 12_500),
        ("deleg_2", "running", None),
    ]
    assert listed[1].goal == ("count the kiwis " * 20)[:200] and listed[1].model == "m2"
    assert listed[1].dispatched_at == 10_000 and listed[2].model is None
    assert background.subagents(None, "s1") == []  # hermes not imported: none


def test_interrupting_a_sessions_subagents_asks_hermes_only_when_one_is_at_work() -> None:
    hermes = Delegation(delegation("s1", "running"), delegation("s2", "running"))
    assert background.interrupt_subagents(hermes, "s1") == 1
    assert hermes.interrupted == [hermes_session_key("s1")]
    idle = Delegation(delegation("s1", "completed"))
    assert background.interrupt_subagents(idle, "s1") == 0 and idle.interrupted == []
    assert background.interrupt_subagents(None, "s1") == 0


def test_a_subagents_report_keeps_what_hermes_says_of_it_with_the_wires_types() -> None:
    ident = {
        "task_index": 1,
        "task_count": 2,
        "tool_count": 3,
        "child_session_id": "c1",
        "subagent_id": "sa-1-ab",
        "parent_id": "sa-0-cd",
        "depth": 1,
    }
    tool = background.progress_of("subagent.tool", "terminal", "ls -la", {**ident, "status": "x"})
    assert (tool.name, tool.preview, tool.task_index, tool.task_count, tool.tool_count) == (
        "terminal",
        "ls -la",
        1,
        2,
        3,
    )
    assert (tool.child_session_id, tool.status, tool.duration_s) == ("c1", None, None)
    assert (tool.child_id, tool.parent_child_id, tool.depth) == ("sa-1-ab", "sa-0-cd", 1)
    done = background.progress_of(
        "subagent.complete", None, "y" * 5000, {"status": "failed", "duration_seconds": 2}
    )
    assert (done.status, done.duration_s, done.name, done.child_session_id) == (
        "failed",
        2.0,
        None,
        None,
    )
    assert (done.task_index, done.task_count, done.tool_count) == (0, 1, None)
    assert (done.child_id, done.parent_child_id, done.depth) == (None, None, 0)
    assert done.preview == "y" * background.TAIL_CHARS
    odd = background.progress_of("subagent.start", 7, None, {"task_index": True, "tool_count": "2"})
    assert (odd.name, odd.preview, odd.task_index, odd.tool_count) == ("7", None, 0, None)
