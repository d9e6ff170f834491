"""process_guard with a fake process registry, tool entry and command check."""

from __future__ import annotations

import json
from typing import Any

from hermes_stdio.worker import process_guard


class Proc:
    def __init__(self, session_key: str) -> None:
        self.session_key = session_key


class Registry:
    def __init__(self) -> None:
        self.procs = {"proc_1": Proc("owner")}
        self.written: list[tuple[str, str]] = []

    def get(self, process_id: str) -> Proc | None:
        return self.procs.get(process_id)

    def write_stdin(self, process_id: str, data: str) -> dict[str, Any]:
        if process_id not in self.procs:
            return {"status": "not_found"}
        self.written.append((process_id, data))
        return {"status": "ok", "bytes_written": len(data)}

    def submit_stdin(self, process_id: str, data: str = "") -> dict[str, Any]:
        return self.write_stdin(process_id, data + "\n")


class Check:
    """Flags lines containing "rm -rf"; approves them when ``answer`` says so."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.answer = False

    def __call__(self, line: str) -> dict[str, Any]:
        self.lines.append(line)
        if "rm -rf" not in line:
            return {"approved": True, "message": None}
        if self.answer:
            return {"approved": True, "user_approved": True}
        return {"approved": False, "message": "BLOCKED: recursive delete"}


def guarded(session: str = "owner") -> tuple[Registry, Check]:
    registry, check = Registry(), Check()
    assert process_guard.guard(registry, check, lambda: session)
    return registry, check


def test_harmless_input_from_the_owning_session_is_written() -> None:
    registry, _ = guarded()
    assert registry.submit_stdin("proc_1", "ls")["status"] == "ok"
    assert registry.written == [("proc_1", "ls\n")]


def test_a_flagged_line_is_not_written_unless_approved() -> None:
    registry, check = guarded()
    result = registry.submit_stdin("proc_1", "rm -rf /tmp/x")
    assert result["status"] == "blocked" and "recursive delete" in result["error"]
    assert registry.written == []
    check.answer = True
    assert registry.submit_stdin("proc_1", "rm -rf /tmp/x")["status"] == "ok"
    assert registry.written == [("proc_1", "rm -rf /tmp/x\n")]


def test_a_flagged_command_typed_in_pieces_is_checked_as_one_line() -> None:
    registry, check = guarded()
    assert registry.write_stdin("proc_1", "rm ")["status"] == "ok"
    assert registry.write_stdin("proc_1", "-rf /tmp/x")["status"] == "blocked"
    assert check.lines[-1] == "rm -rf /tmp/x"
    assert registry.written == [("proc_1", "rm ")]


def test_each_line_is_checked_from_its_own_start() -> None:
    registry, check = guarded()
    registry.submit_stdin("proc_1", "echo one")
    registry.write_stdin("proc_1", "echo two")
    assert check.lines == ["echo one\n", "echo two"]


def test_an_approved_line_is_not_asked_about_again_when_it_is_finished() -> None:
    registry, check = guarded()
    check.answer = True
    registry.write_stdin("proc_1", "rm -rf /tmp/x")
    check.answer = False
    assert registry.write_stdin("proc_1", "\n")["status"] == "ok"
    assert check.lines[-1] == "\n"


def test_another_sessions_process_is_not_written_to() -> None:
    registry, check = guarded(session="stranger")
    result = registry.submit_stdin("proc_1", "ls")
    assert result["status"] == "error" and "another session" in result["error"]
    assert registry.written == [] and check.lines == []


def test_an_unknown_process_gets_hermes_own_answer() -> None:
    registry, _ = guarded()
    assert registry.write_stdin("proc_9", "ls")["status"] == "not_found"


def test_guarding_twice_wraps_once() -> None:
    registry, check = guarded()
    assert process_guard.guard(registry, check, lambda: "owner")
    registry.write_stdin("proc_1", "ls")
    assert check.lines == ["ls"]


def test_without_a_check_every_write_is_refused() -> None:
    registry = Registry()
    assert process_guard.guard(registry, None, lambda: "owner") is False
    assert registry.submit_stdin("proc_1", "ls")["status"] == "error"
    assert registry.written == []


class Entry:
    """hermes' tool-registry entry for ``process``: records the calls it got."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []
        self.handler = self.handle

    def handle(self, args: dict[str, Any], **kw: Any) -> str:
        self.calls.append(args)
        return '{"status": "ok"}'


def scoped(session: str) -> Entry:
    entry = Entry()
    assert process_guard.scope_tool(entry, Registry(), lambda: session)
    return entry


def test_the_agent_acts_on_its_own_sessions_process() -> None:
    entry = scoped("owner")
    for action in ("poll", "log", "wait", "kill", "close"):
        assert entry.handler({"action": action, "session_id": "proc_1"}) == '{"status": "ok"}'
    assert len(entry.calls) == 5


def test_the_agent_cannot_read_wait_on_or_kill_another_sessions_process() -> None:
    entry = scoped("stranger")
    for action in ("poll", "log", "wait", "kill", "close", "write", "submit"):
        result = json.loads(entry.handler({"action": action, "session_id": "proc_1"}))
        assert "another session" in result["error"]
    assert entry.calls == []


def test_listing_and_unknown_processes_get_hermes_own_answer() -> None:
    entry = scoped("stranger")
    entry.handler({"action": "list"})
    entry.handler({"action": "poll", "session_id": "proc_9"})
    assert [c["action"] for c in entry.calls] == ["list", "poll"]


def test_scoping_twice_wraps_once() -> None:
    entry, registry = Entry(), Registry()
    assert process_guard.scope_tool(entry, registry, lambda: "stranger")
    wrapped = entry.handler
    assert process_guard.scope_tool(entry, registry, lambda: "owner")
    assert entry.handler is wrapped


def test_an_entry_without_a_handler_is_left_alone() -> None:
    assert process_guard.scope_tool(object(), Registry(), lambda: "owner") is False
