"""watches with stand-ins of hermes' process registry and async_delegation: each start
and end of a session's background work is told once, its start first."""

from __future__ import annotations

import queue
from collections.abc import Callable
from typing import Any

from test_worker_background import Process

from hermes_stdio.worker import watches
from hermes_stdio.worker.keys import hermes_session_key


class SpawningRegistry:
    """hermes' registry as far as its processes' starts and ends go."""

    def __init__(self) -> None:
        self.finished: list[str] = []
        self.spawned: list[str] = []
        self.exit_at_once = False
        self.completion_queue: queue.Queue[dict[str, Any]] = queue.Queue()
        self.mark_while_finishing: Any = None  # a process hermes' tool marks meanwhile
        self.after_finishing: Callable[[Any], None] | None = None  # before the watch sees it

    def spawn_local(self, command: str, session_key: str = "") -> Process:
        proc = Process(f"proc_{len(self.spawned) + 1}", "s1")
        proc.session_key, proc.command = session_key, command
        self.spawned.append(proc.id)
        if self.exit_at_once:  # its reader thread saw it end before spawn returned
            self._move_to_finished(proc)
        return proc

    def spawn_via_env(self, env: object, command: str, session_key: str = "") -> Process:
        return self.spawn_local(command, session_key)

    def _move_to_finished(self, proc: Any) -> None:
        first = not proc.exited
        proc.exited = True
        self.finished.append(proc.id)
        if self.mark_while_finishing is proc:  # the tool's mark lands just before hermes reads it
            proc.notify_on_complete = True
        # hermes queues a completion only for a process marked when it first ends.
        if first and getattr(proc, "notify_on_complete", False):
            self.completion_queue.put({"type": "completion", "session_id": proc.id, "by": "hermes"})
        if self.after_finishing is not None:
            self.after_finishing(proc)


def watched() -> tuple[SpawningRegistry, list[tuple[str, str, Any]]]:
    registry, told = SpawningRegistry(), []
    assert watches.watch_processes(registry, lambda *change: told.append(change))
    assert not watches.watch_processes(registry, lambda *change: None)  # wraps once
    return registry, told


def test_each_start_and_end_of_one_of_our_sessions_processes_is_told_once() -> None:
    registry, told = watched()
    served = registry.spawn_local("npm run dev", session_key=hermes_session_key("s1"))
    assert [(c, sid, i.process_id, i.status) for c, sid, i in told] == [
        ("started", "s1", "proc_1", "running")
    ]
    served.exit_code, served.output_buffer = 0, "served\n"
    registry._move_to_finished(served)
    registry._move_to_finished(served)  # a kill racing its exit: hermes finishes it twice
    other = registry.spawn_via_env(object(), "make", session_key=hermes_session_key("s2"))
    foreign = registry.spawn_local("top", session_key="cli-session")  # not one of ours
    registry._move_to_finished(foreign)

    assert registry.finished == ["proc_1", "proc_1", "proc_3"]  # hermes' own work goes on
    assert [(c, sid, i.process_id) for c, sid, i in told] == [
        ("started", "s1", "proc_1"),
        ("exited", "s1", "proc_1"),
        ("started", "s2", other.id),
    ]
    _, _, ended = told[1]
    assert (ended.status, ended.exit_code, ended.output_tail) == ("exited", 0, "served\n")
    assert told[2][2].command == "make"


def test_a_process_that_ends_before_its_spawn_returns_is_told_started_then_exited() -> None:
    registry, told = watched()
    registry.exit_at_once = True
    registry.spawn_local("true", session_key=hermes_session_key("s1"))
    assert [(c, i.process_id, i.status) for c, _, i in told] == [
        ("started", "proc_1", "exited"),
        ("exited", "proc_1", "exited"),
    ]


def test_a_failing_listener_never_breaks_hermes_starting_or_finishing_a_process() -> None:
    registry = SpawningRegistry()

    def broken(change: str, sid: str, info: Any) -> None:
        raise RuntimeError("host gone")

    assert watches.watch_processes(registry, broken)
    proc = registry.spawn_local("serve", session_key=hermes_session_key("s1"))
    registry._move_to_finished(proc)
    assert registry.spawned == registry.finished == ["proc_1"]


def test_a_registry_without_hermes_spawn_methods_is_left_unwrapped() -> None:
    class FinishOnly:
        def _move_to_finished(self, proc: Any) -> None:
            pass

    finish_only = FinishOnly()
    assert not watches.watch_processes(finish_only, lambda *change: None)
    assert "_move_to_finished" not in vars(finish_only)  # nothing wrapped
    assert not watches.watch_processes(object(), lambda *change: None)


class Delegation:
    """hermes' async_delegation as far as its subagents' starts and ends go."""

    def __init__(self) -> None:
        self.records: dict[str, dict[str, Any]] = {}
        self.pushed: list[tuple[str, str]] = []
        self.end_at_once: str | None = None
        self.reject = False

    def dispatch_async_delegation_batch(self, *, session_key: str, goal: str) -> dict[str, Any]:
        if self.reject:
            return {"status": "rejected", "error": "at capacity"}
        sub_id = f"deleg_{len(self.records) + 1}"
        self.records[sub_id] = {
            "delegation_id": sub_id,
            "session_key": session_key,
            "goal": goal,
            "status": "running",
            "dispatched_at": 10.0,
            "model": "m1",
        }
        if self.end_at_once:  # its worker thread ended before dispatch returned
            self.finish(sub_id, self.end_at_once)
        return {"status": "dispatched", "delegation_id": sub_id}

    def dispatch_async_delegation(self, *, session_key: str, goal: str) -> dict[str, Any]:
        return self.dispatch_async_delegation_batch(session_key=session_key, goal=goal)

    def list_async_delegations(self) -> list[dict[str, Any]]:
        return [dict(r) for r in self.records.values()]

    def finish(self, sub_id: str, status: str) -> None:
        """As hermes' _finalize: finalizing, the completion event stored, then the status."""
        record = self.records[sub_id]
        record["status"], record["completed_at"] = "finalizing", 12.5
        self._persist_completion({**record, "status": status}, {"summary": "done"})
        record["status"] = status

    def _persist_completion(self, event: dict[str, Any], result: Any) -> None:
        self.pushed.append((event["delegation_id"], event["status"]))


def watched_subagents() -> tuple[
    Delegation, list[tuple[str, str, Any, int]], watches.SubagentWatch
]:
    delegation, told = Delegation(), []

    def deliver(change: str, sid: str, info: Any) -> None:
        told.append((change, sid, info, len(delegation.pushed)))

    watch = watches.watch_subagents(delegation, deliver)
    assert watch is not None
    assert watches.watch_subagents(delegation, deliver) is None  # wraps once
    return delegation, told, watch


def test_each_start_and_end_of_a_sessions_subagent_is_told_once_the_end_before_its_report() -> None:
    delegation, told, _ = watched_subagents()
    ours = hermes_session_key("s1")
    delegation.dispatch_async_delegation_batch(session_key=ours, goal="count the kiwis")
    delegation.dispatch_async_delegation(session_key="cli-session", goal="not ours")
    delegation.finish("deleg_1", "completed")
    delegation.finish("deleg_2", "completed")
    assert delegation.pushed == [("deleg_1", "completed"), ("deleg_2", "completed")]
    assert [(c, sid, i.subagent_id, i.status, pushed) for c, sid, i, pushed in told] == [
        ("started", "s1", "deleg_1", "running", 0),
        ("ended", "s1", "deleg_1", "completed", 0),  # before hermes hands its report on
    ]
    started, ended = told[0][2], told[1][2]
    assert (started.goal, started.model, started.dispatched_at, started.completed_at) == (
        "count the kiwis",
        "m1",
        10_000,
        None,
    )
    assert ended.completed_at == 12_500


def test_a_subagent_that_ends_before_its_dispatch_returns_is_told_started_then_ended() -> None:
    delegation, told, _ = watched_subagents()
    delegation.end_at_once = "error"
    delegation.dispatch_async_delegation(session_key=hermes_session_key("s1"), goal="fail")
    assert [(c, i.status) for c, _, i, _ in told] == [("started", "error"), ("ended", "error")]


def test_a_rejected_dispatch_tells_nothing() -> None:
    delegation, told, _ = watched_subagents()
    delegation.reject = True
    delegation.dispatch_async_delegation_batch(session_key=hermes_session_key("s1"), goal="x")
    assert told == []


def test_a_failing_listener_never_breaks_hermes_running_a_subagent() -> None:
    delegation = Delegation()

    def broken(change: str, sid: str, info: Any) -> None:
        raise RuntimeError("host gone")

    assert watches.watch_subagents(delegation, broken)
    delegation.dispatch_async_delegation(session_key=hermes_session_key("s1"), goal="x")
    delegation.finish("deleg_1", "completed")
    assert delegation.pushed == [("deleg_1", "completed")]
    assert not watches.watch_subagents(object(), broken)  # nothing to wrap: nothing done


def identity(goal: str, child: str, index: int = 0, count: int = 1) -> dict[str, Any]:
    """The child's identity hermes passes with each report it relays to the parent."""
    return {"goal": goal, "task_index": index, "task_count": count, "subagent_id": child}


def test_a_subagents_progress_names_the_delegation_of_its_session_whose_goal_and_task_match() -> (
    None
):
    delegation, _, watch = watched_subagents()
    s1, s2 = hermes_session_key("s1"), hermes_session_key("s2")
    delegation.dispatch_async_delegation(session_key=s1, goal="count the kiwis")
    delegation.dispatch_async_delegation(session_key=s2, goal="count the kiwis")
    delegation.records["deleg_3"] = {
        "delegation_id": "deleg_3",
        "session_key": s1,
        "goal": "2 parallel subagents: a; b",
        "goals": ["a", "b"],
        "is_batch": True,
        "status": "running",
        "dispatched_at": 11.0,
    }
    assert watch.delegation_of("s1", identity("count the kiwis ", "sa-0")) == "deleg_1"
    assert watch.delegation_of("s2", identity("count the kiwis", "sa-1")) == "deleg_2"
    assert watch.delegation_of("s1", identity("b", "sa-2", 1, 2)) == "deleg_3"
    assert watch.delegation_of("s1", identity("b", "sa-3", 0, 2)) is None  # not its task
    assert watch.delegation_of("s1", identity("elsewhere", "sa-4")) is None  # run within the turn
    delegation.dispatch_async_delegation(session_key=s1, goal="elsewhere")
    assert watch.delegation_of("s1", identity("elsewhere", "sa-4")) is None  # decided at first
    assert watch.delegation_of("s1", identity("elsewhere", "sa-5")) == "deleg_4"
    assert watch.delegation_of("s1", {"goal": "a"}) is None  # no task: nothing to match


def test_children_with_one_goal_each_claim_a_delegation_of_their_own_and_keep_it() -> None:
    delegation, _, watch = watched_subagents()
    ours = hermes_session_key("s1")
    delegation.dispatch_async_delegation(session_key=ours, goal="x")
    delegation.dispatch_async_delegation(session_key=ours, goal="x")
    assert watch.delegation_of("s1", identity("x", "sa-a")) == "deleg_1"
    assert watch.delegation_of("s1", identity("x", "sa-b")) == "deleg_2"
    delegation.finish("deleg_1", "completed")  # a late report still finds its own
    assert watch.delegation_of("s1", identity("x", "sa-a")) == "deleg_1"
    assert watch.delegation_of("s1", identity("x", "sa-c")) is None  # both taken


def test_a_subagents_own_subagent_reports_under_its_parents_delegation() -> None:
    delegation, _, watch = watched_subagents()
    delegation.dispatch_async_delegation(session_key=hermes_session_key("s1"), goal="plan")
    assert watch.delegation_of("s1", identity("plan", "sa-0")) == "deleg_1"
    nested = {**identity("a step of it", "sa-0-1"), "parent_id": "sa-0", "depth": 1}
    assert watch.delegation_of("s1", nested) == "deleg_1"
    stray = {**identity("a step of it", "sa-9-1"), "parent_id": "sa-9"}  # parent unknown
    assert watch.delegation_of("s1", stray) is None


def test_a_report_that_comes_before_its_dispatch_returned_is_preceded_by_its_start() -> None:
    delegation, told, watch = watched_subagents()
    # hermes' worker thread runs the child before dispatch returns to the wrapper.
    delegation.records["deleg_1"] = {
        "delegation_id": "deleg_1",
        "session_key": hermes_session_key("s1"),
        "goal": "x",
        "status": "running",
        "dispatched_at": 10.0,
    }
    assert watch.delegation_of("s1", identity("x", "sa-0")) == "deleg_1"
    assert [(change, sid) for change, sid, _, _ in told] == [("started", "s1")]
    assert watch.delegation_of("s1", identity("x", "sa-0")) == "deleg_1"
    delegation.finish("deleg_1", "completed")
    assert [change for change, _, _, _ in told] == ["started", "ended"]  # the start told once


def process_watch(strip: Any = str) -> tuple[SpawningRegistry, watches.ProcessWatch]:
    registry = SpawningRegistry()
    watch = watches.watch_processes(registry, lambda *change: None, strip=strip)
    assert watch is not None
    return registry, watch


def queued(registry: SpawningRegistry) -> list[dict[str, Any]]:
    found = []
    while not registry.completion_queue.empty():
        found.append(registry.completion_queue.get_nowait())
    return found


def test_a_command_that_ends_before_hermes_marks_it_gets_the_completion_hermes_skipped() -> None:
    registry, watch = process_watch(strip=str.upper)
    registry.exit_at_once = True
    proc = registry.spawn_local("echo kiwi", session_key=hermes_session_key("s1"))
    proc.exit_code, proc.output_buffer, proc.started_at = 0, "kiwi\n", 12.5
    proc.completion_reason, proc.termination_source = "exited", ""
    watch.report_late()  # another tool returned first: not marked yet, nothing to tell
    assert queued(registry) == []
    proc.notify_on_complete = True  # what hermes' terminal tool does after spawning it
    watch.report_late()
    watch.report_late()  # once only
    assert queued(registry) == [
        {
            "type": "completion",
            "session_id": "proc_1",
            "session_key": hermes_session_key("s1"),
            "command": "echo kiwi",
            "exit_code": 0,
            "completion_reason": "exited",
            "termination_source": "",
            "output": "KIWI\n",  # through hermes' strip_ansi
            "started_at": 12.5,
        }
    ]


def test_a_command_marked_and_its_tool_returned_while_hermes_finished_it_is_reported_once() -> None:
    registry, watch = process_watch()

    def tool_marks_and_returns(proc: Any) -> None:  # on the tool's thread, in that moment
        proc.notify_on_complete = True
        watch.report_late()

    registry.after_finishing = tool_marks_and_returns
    proc = registry.spawn_local("echo kiwi", session_key=hermes_session_key("s1"))
    registry._move_to_finished(proc)  # no tool returns after: the turn may be over
    events = [(e["session_id"], e.get("by", "worker")) for e in queued(registry)]
    assert events == [("proc_1", "worker")]  # hermes saw it unmarked: the worker's, once


def test_a_command_marked_before_it_ends_is_left_to_hermes_alone() -> None:
    registry, watch = process_watch()
    proc = registry.spawn_local("make", session_key=hermes_session_key("s1"))
    proc.notify_on_complete = True
    registry._move_to_finished(proc)
    watch.report_late()
    assert [e["by"] for e in queued(registry)] == ["hermes"]


def test_a_mark_in_the_moment_hermes_finishes_it_may_report_twice_for_the_consumer_to_drop() -> (
    None
):
    registry, watch = process_watch()
    proc = registry.spawn_local("echo", session_key=hermes_session_key("s1"))
    registry.mark_while_finishing = proc
    registry._move_to_finished(proc)
    watch.report_late()
    # hermes' own first, so notices.watch keeps it (and drops the second).
    assert [e.get("by", "worker") for e in queued(registry)] == ["hermes", "worker"]


def test_unmarked_commands_of_other_programs_or_never_marked_are_never_reported() -> None:
    registry, watch = process_watch()
    registry.exit_at_once = True
    foreign = registry.spawn_local("top", session_key="cli-session")
    foreign.notify_on_complete = True
    for n in range(watches.MAX_UNMARKED + 5):  # background without notify: never marked
        registry.spawn_local(f"true {n}", session_key=hermes_session_key("s1"))
    watch.report_late()
    assert queued(registry) == []
    assert len(watch._unmarked) == watches.MAX_UNMARKED  # bounded
