"""worker/cd_record.py: hermes' record of where a session's commands cd-ed to is one,
whether its terminal files it under the session's approval key or its other tools
read it under the session's id."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from hermes_stdio.worker import cd_record
from hermes_stdio.worker.keys import hermes_session_key


def record_module() -> SimpleNamespace:
    """hermes' three functions over one dict, as terminal_tool has them."""
    store: dict[str, str] = {}

    def record(key: Any, cwd: str) -> None:
        store[str(key or "default")] = cwd

    def get(key: Any) -> str | None:
        return store.get(str(key or "default"))

    def clear(key: str) -> None:
        store.pop(key, None)

    return SimpleNamespace(
        store=store, record_session_cwd=record, get_session_cwd=get, clear_session_cwd=clear
    )


def test_the_terminals_key_and_the_tools_task_id_name_one_record() -> None:
    tt = record_module()
    assert cd_record.install(tt)
    tt.record_session_cwd(hermes_session_key("s1"), "/w/sub")
    assert tt.get_session_cwd("s1") == "/w/sub"
    tt.record_session_cwd("s1", "/w")
    assert tt.get_session_cwd(hermes_session_key("s1")) == "/w"
    tt.clear_session_cwd(hermes_session_key("s1"))
    assert tt.get_session_cwd("s1") is None and tt.store == {}


def test_other_keys_and_a_session_named_default_keep_their_own_records() -> None:
    tt = record_module()
    assert cd_record.install(tt)
    tt.record_session_cwd(None, "/nobody")  # a thread with no key: hermes' fallback
    tt.record_session_cwd(hermes_session_key("default"), "/host-default")
    tt.record_session_cwd("subagent-task", "/sub")
    assert tt.store == {
        "default": "/nobody",
        hermes_session_key("default"): "/host-default",
        "subagent-task": "/sub",
    }
    assert cd_record.task_key(hermes_session_key("")) == hermes_session_key("")


def test_installing_again_adds_no_layer() -> None:
    tt = record_module()
    assert cd_record.install(tt)
    wrapped = (tt.record_session_cwd, tt.get_session_cwd, tt.clear_session_cwd)
    assert cd_record.install(tt)
    assert (tt.record_session_cwd, tt.get_session_cwd, tt.clear_session_cwd) == wrapped


def test_a_module_without_the_three_functions_is_left_alone() -> None:
    tt = record_module()
    del tt.clear_session_cwd
    record = tt.record_session_cwd
    assert not cd_record.install(tt)
    assert tt.record_session_cwd is record
