"""What a turn's scope does to hermes' process-wide state kept under a session's id."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import hermes_probe

from hermes_stdio.testing.home import make_home
from hermes_stdio.worker.keys import hermes_session_key
from hermes_stdio.worker.scope import TurnModules, forget_session, session_scope, set_auto_approve
from hermes_stdio.worker.state import Session

KEY = hermes_session_key("s1")


class Calls:
    """Fake hermes modules that record each call made to them, in order."""

    def __init__(self) -> None:
        self.log: list[tuple[str, tuple[Any, ...]]] = []

    def module(self, *names: str, **returns: Any) -> SimpleNamespace:
        def recorder(name: str) -> Any:
            def call(*args: Any, **kw: Any) -> Any:
                self.log.append((name, args))
                return returns.get(name)

            return call

        return SimpleNamespace(**{name: recorder(name) for name in names})

    def names(self) -> list[str]:
        return [name for name, _ in self.log]

    def made(self) -> set[tuple[str, tuple[Any, ...]]]:
        """The calls whose arguments hold no dict (what a set can hold)."""
        return {c for c in self.log if not any(isinstance(a, dict) for a in c[1])}


def modules(calls: Calls, *, forgetting: bool = True) -> TurnModules:
    helpers = ("clear_task_env_overrides", "clear_session_cwd", "_set_cached_sudo_password")
    return TurnModules(
        approval=calls.module(
            "set_current_session_key",
            "reset_current_session_key",
            "enable_session_yolo",
            "disable_session_yolo",
            *(("clear_session",) if forgetting else ()),
        ),
        session_context=calls.module("set_session_vars", "clear_session_vars"),
        runtime_cwd=calls.module("set_session_cwd", "clear_session_cwd"),
        terminal_tool=calls.module("register_task_env_overrides", *(helpers if forgetting else ())),
        file_tools=calls.module(
            *(("reset_file_dedup", "notify_other_tool_call") if forgetting else ())
        ),
    )


FORGET = {
    ("clear_session", (KEY,)),
    ("clear_task_env_overrides", ("s1",)),
    ("clear_session_cwd", (KEY,)),
    ("reset_file_dedup", ("s1",)),
    ("notify_other_tool_call", ("s1",)),
    ("_set_cached_sudo_password", ("",)),
}
READS = {("reset_file_dedup", ("s1",)), ("notify_other_tool_call", ("s1",))}


def turn(session: Session, hermes: TurnModules) -> None:
    with session_scope(session, hermes, None):
        pass


def test_a_sessions_first_turn_drops_what_hermes_kept_under_its_id_and_later_turns_do_not() -> None:
    calls = Calls()
    session = Session("s1", "default")
    turn(session, modules(calls))
    assert calls.made() >= FORGET
    # The sudo password is dropped once the session context (its cache key) is set.
    names = calls.names()
    assert names.index("set_session_vars") < names.index("_set_cached_sudo_password")
    assert names.index("clear_session") < names.index("set_current_session_key")

    calls.log.clear()
    turn(session, modules(calls))
    assert not FORGET & calls.made()


def test_a_forgetting_turn_registers_the_workspace_after_dropping_the_old_one() -> None:
    calls = Calls()
    turn(Session("s1", "default", workspace="/w"), modules(calls))
    names = calls.names()
    assert names.index("clear_task_env_overrides") < names.index("register_task_env_overrides")
    assert ("register_task_env_overrides", ("s1", {"cwd": "/w"})) in calls.log


def test_a_session_without_a_workspace_has_the_workers_terminal_directory_for_its_tools(
    tmp_path: Path, monkeypatch: Any
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TERMINAL_CWD", raising=False)
    monkeypatch.delenv("TERMINAL_ENV", raising=False)
    calls = Calls()
    turn(Session("s1", "default"), modules(calls))
    assert ("register_task_env_overrides", ("s1", {"cwd": str(tmp_path)})) in calls.log
    assert ("set_session_cwd", (str(tmp_path),)) in calls.log

    calls.log.clear()
    configured = tmp_path / "project"  # the profile's terminal.cwd, as hermes bridges it
    configured.mkdir()
    monkeypatch.setenv("TERMINAL_CWD", str(configured))
    turn(Session("s2", "default"), modules(calls))
    assert ("register_task_env_overrides", ("s2", {"cwd": str(configured)})) in calls.log
    assert ("set_session_cwd", (str(configured),)) in calls.log
    assert calls.names()[-1] != "set_session_cwd" and "clear_session_cwd" in calls.names()


def test_a_session_without_a_workspace_on_a_sandboxed_backend_gets_hermes_own_directory(
    monkeypatch: Any,
) -> None:
    monkeypatch.setenv("TERMINAL_ENV", "docker")
    calls = Calls()
    turn(Session("s1", "default"), modules(calls))
    assert not {"register_task_env_overrides", "set_session_cwd"} & set(calls.names())
    calls.log.clear()
    turn(Session("s2", "default", workspace="/w"), modules(calls))
    assert ("register_task_env_overrides", ("s2", {"cwd": "/w"})) in calls.log


def test_a_session_whose_history_was_replaced_forgets_only_what_it_read() -> None:
    calls = Calls()
    session = Session("s1", "default", forget_hermes=False, forget_reads=True)
    turn(session, modules(calls))
    assert FORGET & calls.made() == READS
    assert not session.forget_reads

    calls.log.clear()
    session.forget_hermes = True  # as session/delete leaves it
    turn(session, modules(calls))
    assert calls.made() >= FORGET


def test_without_hermes_helpers_to_forget_with_the_turn_still_runs() -> None:
    calls = Calls()
    session = Session("s1", "default")
    turn(session, modules(calls, forgetting=False))
    assert "set_current_session_key" in calls.names()
    assert not session.forget_hermes


def test_a_session_let_go_has_what_hermes_kept_of_it_dropped_outside_any_turn() -> None:
    calls = Calls()
    forget_session("s1", modules(calls))
    assert calls.made() >= FORGET
    names = calls.names()
    # The password's cache key is the session context's: set around the call, then cleared.
    assert (
        names.index("set_session_vars")
        < names.index("_set_cached_sudo_password")
        < names.index("clear_session_vars")
    )
    forget_session("s1", modules(Calls(), forgetting=False))  # without hermes' helpers: no-op


_PROBE = r"""
import json, threading
from agent import runtime_cwd
from gateway import session_context
from tools import approval, file_tools, terminal_tool
from hermes_stdio.worker.keys import hermes_session_key
from hermes_stdio.worker.scope import TurnModules, forget_session, session_scope
from hermes_stdio.worker.state import Session

hermes = TurnModules(approval, session_context, runtime_cwd, terminal_tool, file_tools)

def kept(sid):  # what the session's next turn in this worker would find
    with session_scope(Session(sid, "default", forget_hermes=False), hermes, None):
        password = terminal_tool._get_cached_sudo_password()
    return [password, approval.is_approved(hermes_session_key(sid), "recursive delete")]

for sid in ("s1", "s2"):
    with session_scope(Session(sid, "default"), hermes, None):
        terminal_tool._set_cached_sudo_password("pw-" + sid)
    approval.approve_session(hermes_session_key(sid), "recursive delete")
before = [kept("s1"), kept("s2")]
let_go = threading.Thread(target=forget_session, args=("s1", hermes))
let_go.start()
let_go.join()
print(json.dumps({"before": before, "after": [kept("s1"), kept("s2")]}))
"""


def test_a_session_let_go_loses_its_sudo_password_and_approvals_in_hermes_itself(
    tmp_path: Path,
) -> None:
    home = make_home(tmp_path, "http://127.0.0.1:9/v1")
    out = hermes_probe.probe(home, _PROBE)
    assert out["before"] == [["pw-s1", True], ["pw-s2", True]]
    assert out["after"] == [["", False], ["pw-s2", True]]  # the other session keeps its own


def yolo(calls: Calls) -> list[bool]:
    """hermes' YOLO switch for the session, as it was set, in order."""
    return [name == "enable_session_yolo" for name, args in calls.log if "yolo" in name]


def test_an_auto_approving_session_has_hermes_yolo_on_for_its_turn_only() -> None:
    calls = Calls()
    session = Session("s1", "default", auto_approve=True)
    with session_scope(session, modules(calls), None):
        assert yolo(calls) == [True]
    assert yolo(calls) == [True, False]
    assert calls.log[-1] == ("disable_session_yolo", (KEY,))

    calls.log.clear()
    session.auto_approve = False
    turn(session, modules(calls))
    assert yolo(calls) == [False, False]


def test_switching_auto_approve_during_a_turn_switches_hermes_at_once_and_after_it_not() -> None:
    calls = Calls()
    hermes = modules(calls)
    session = Session("s1", "default")
    with session_scope(session, hermes, None):
        set_auto_approve(session, True, hermes.approval)
        assert yolo(calls) == [False, True]
        set_auto_approve(session, False, hermes.approval)
        assert yolo(calls) == [False, True, False]
        set_auto_approve(session, True, hermes.approval)
    assert yolo(calls) == [False, True, False, True, False]  # off again on the way out

    set_auto_approve(session, False, hermes.approval)  # no turn inside: the setting only
    set_auto_approve(session, True, None)
    assert yolo(calls) == [False, True, False, True, False]
    assert session.auto_approve and session.turns_inside == 0
    turn(session, hermes)
    assert yolo(calls)[-2:] == [True, False]


_CD_PROBE = r"""
import json, os, tempfile
from agent import runtime_cwd
from gateway import session_context
from tools import approval, file_tools, terminal_tool
from hermes_stdio.worker import cd_record
from hermes_stdio.worker.scope import TurnModules, session_scope
from hermes_stdio.worker.state import Session

assert cd_record.install(terminal_tool)
hermes = TurnModules(approval, session_context, runtime_cwd, terminal_tool, file_tools)
top = tempfile.mkdtemp()
for d in ("w/sub", "w/gone", "v"):
    os.makedirs(os.path.join(top, d))
session = Session("s1", "default", workspace=os.path.join(top, "w"))
seen = []

def turn(cd_to=None):
    with session_scope(session, hermes, None):
        # where hermes' file tools look (the task id) as the turn starts
        seen.append(os.path.relpath(terminal_tool.get_session_cwd("s1"), top))
        if cd_to:  # what hermes' terminal files after a command that cd-ed
            key = approval.get_current_session_key()
            terminal_tool.record_session_cwd(key, os.path.join(top, cd_to))

turn("w/sub")
turn("w/gone")
os.rmdir(os.path.join(top, "w/gone"))
turn()
session.workspace = os.path.join(top, "v")
turn()
print(json.dumps(seen))
"""


def test_where_a_sessions_commands_cd_ed_is_kept_across_turns_until_its_workspace_changes(
    tmp_path: Path,
) -> None:
    home = make_home(tmp_path, "http://127.0.0.1:9/v1")
    # A directory the last turn cd-ed to that is gone since: the next starts over.
    assert hermes_probe.probe(home, _CD_PROBE) == ["w", "w/sub", "w", "v"]
