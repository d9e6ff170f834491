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


class Ask:
    """The host, asked about input that is not flagged; approves unless told not to."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.answer = True

    def __call__(self, line: str) -> dict[str, Any]:
        self.lines.append(line)
        if self.answer:
            return {"approved": True, "message": None}
        return {"approved": False, "message": "BLOCKED: Action denied by user."}


ASK = Ask()


def guarded(session: str = "owner", ask: Ask = ASK) -> tuple[Registry, Check]:
    registry, check = Registry(), Check()
    assert process_guard.guard(registry, check, ask, lambda: session)
    return registry, check


def test_input_that_is_not_flagged_is_written_only_once_the_host_approves_it() -> None:
    ask = Ask()
    registry, _ = guarded(ask=ask)
    assert registry.submit_stdin("proc_1", "ls")["status"] == "ok"
    assert ask.lines == ["ls\n"]
    ask.answer = False
    result = registry.submit_stdin("proc_1", "alias x=rm")
    assert result["status"] == "blocked" and "denied by user" in result["error"]
    assert registry.written == [("proc_1", "ls\n")]


def test_a_flagged_line_the_host_approved_is_not_asked_about_twice() -> None:
    ask = Ask()
    registry, check = guarded(ask=ask)
    check.answer = True
    assert registry.submit_stdin("proc_1", "rm -rf /tmp/x")["status"] == "ok"
    assert ask.lines == []


def test_a_line_continued_with_a_backslash_is_checked_whole() -> None:
    registry, check = guarded()
    assert registry.write_stdin("proc_1", "r\\\n")["status"] == "ok"
    assert registry.submit_stdin("proc_1", "m -rf /tmp/x")["status"] == "ok"
    assert check.lines[-1] == "r\\\nm -rf /tmp/x\n"  # hermes joins a continuation


def test_what_a_shell_has_not_run_yet_is_kept_across_continuations() -> None:
    assert process_guard._unfinished("a\nb") == "b"
    assert process_guard._unfinished("a\nb\\\nc") == "b\\\nc"
    assert process_guard._unfinished("x\\\n") == "x\\\n"
    assert process_guard._unfinished("a\n") == ""


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
    assert process_guard.guard(registry, check, ASK, lambda: "owner")
    registry.write_stdin("proc_1", "ls")
    assert check.lines == ["ls"]


def test_without_a_check_or_a_way_to_ask_every_write_is_refused() -> None:
    for check, ask in ((None, ASK), (Check(), None)):
        registry = Registry()
        assert process_guard.guard(registry, check, ask, lambda: "owner") is False
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


def test_listing_shows_only_the_sessions_own_processes() -> None:
    registry = Registry()
    registry.procs["proc_2"] = Proc("stranger")
    entry = Entry()
    listed = {"processes": [{"session_id": "proc_1"}, {"session_id": "proc_2"}]}
    entry.handler = lambda args, **kw: json.dumps(listed)
    assert process_guard.scope_tool(entry, registry, lambda: "stranger")
    shown = json.loads(entry.handler({"action": "list"}))
    assert [p["session_id"] for p in shown["processes"]] == ["proc_2"]
