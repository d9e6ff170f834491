"""worker/session_environ.py: a hermes module's ``os.environ`` reads the calling turn's
session variables (hermes' session context) before the process's, and is the real
environment for everything else."""

from __future__ import annotations

import contextvars
import os
import types
from collections.abc import Callable, Iterator

import pytest
from gateway import session_context

from hermes_stdio.worker import session_environ


@pytest.fixture
def module() -> Iterator[types.ModuleType]:
    """A hermes-like module that imported ``os``, with hermes' session names installed."""
    m = types.ModuleType("kanban_like")
    m.os = os  # type: ignore[attr-defined]
    assert session_environ.install_hermes(m)
    yield m


@pytest.fixture
def process_id(monkeypatch: pytest.MonkeyPatch) -> str:
    """What hermes leaves in the process: the id of the agent it built last."""
    monkeypatch.setenv("HERMES_SESSION_ID", "built-last")
    return "built-last"


def in_turn(session_id: str, read: Callable[[], object]) -> object:
    """``read()`` in a fresh context whose session id is ``session_id``, as a turn's."""

    def turn() -> object:
        session_context.set_session_vars(session_id=session_id)
        return read()

    return contextvars.Context().run(turn)


def test_a_turn_reads_its_own_session_id_not_the_one_hermes_left_in_the_process(
    module: types.ModuleType, process_id: str
) -> None:
    assert in_turn("s-a", lambda: module.os.environ.get("HERMES_SESSION_ID")) == "s-a"
    assert in_turn("s-b", lambda: module.os.getenv("HERMES_SESSION_ID")) == "s-b"
    assert in_turn("s-a", lambda: module.os.environ["HERMES_SESSION_ID"]) == "s-a"
    assert os.environ["HERMES_SESSION_ID"] == process_id  # the real one is untouched


def test_outside_any_turn_the_process_value_is_read(
    module: types.ModuleType, process_id: str
) -> None:
    read = contextvars.Context().run
    assert read(lambda: module.os.environ.get("HERMES_SESSION_ID")) == process_id


def test_a_variable_the_turn_cleared_reads_empty_and_one_set_nowhere_is_missing(
    module: types.ModuleType, process_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("HERMES_SESSION_CHAT_ID", raising=False)

    def read() -> tuple[object, ...]:
        env = module.os.environ
        return (env.get("HERMES_SESSION_PLATFORM", "unset"), "HERMES_SESSION_CHAT_ID" in env)

    # set_session_vars binds every name, "" for the ones not given, as hermes does.
    assert in_turn("s-a", read) == ("", True)
    assert contextvars.Context().run(read) == ("unset", False)


def test_other_names_and_all_writes_are_the_real_environment(
    module: types.ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HERMES_KANBAN_TASK", "t-1")
    assert module.os.environ.get("HERMES_KANBAN_TASK") == "t-1"
    assert module.os.environ.get("NOT_SET_ANYWHERE_XYZ") is None
    try:
        module.os.environ["HERMES_STDIO_TEST_WRITE"] = "w"
        assert os.environ["HERMES_STDIO_TEST_WRITE"] == "w"
        del module.os.environ["HERMES_STDIO_TEST_WRITE"]
        assert "HERMES_STDIO_TEST_WRITE" not in os.environ
    finally:
        os.environ.pop("HERMES_STDIO_TEST_WRITE", None)
    assert module.os.path is os.path and module.os.getpid() == os.getpid()


def test_iterating_lists_the_process_names_and_the_turns_own(module: types.ModuleType) -> None:
    def names() -> set[str]:
        return set(module.os.environ.copy())

    seen = in_turn("s-a", names)
    assert isinstance(seen, set) and set(os.environ) <= seen
    assert "HERMES_SESSION_KEY" in seen  # bound by the turn, maybe not in the process


def test_installing_again_adds_no_layer(module: types.ModuleType) -> None:
    wrapped = module.os
    assert session_environ.install_hermes(module)
    assert module.os is wrapped


def test_a_module_without_os_is_left_alone() -> None:
    m = types.ModuleType("no_os")
    assert not session_environ.install_hermes(m)
    assert not hasattr(m, "os")
