"""worker/file_dir.py: the file operations hermes gives a task run their commands in
that task's directory, not in the live directory of the shell all tasks share."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from hermes_stdio.worker import file_dir


class SharedOps:
    """hermes' ShellFileOperations, in short: commands run in the env's live cwd."""

    def __init__(self, env: SimpleNamespace) -> None:
        self.env, self.cache = env, {}
        self.ran: list[tuple[str, str]] = []

    def _exec(self, command: str, cwd: str | None = None, timeout: int | None = None) -> str:
        where = cwd or self.env.cwd
        self.ran.append((command, where))
        return where

    def read_file(self, path: str) -> str:
        return self._exec(f"cat {path}")


def file_tools(bases: dict[str, str]) -> tuple[SimpleNamespace, SharedOps]:
    shared = SharedOps(SimpleNamespace(cwd="/where-another-session-left-it"))

    def get_file_ops(task_id: str = "default") -> Any:
        return shared

    def anchor(task_id: str = "default") -> str | None:
        return bases[task_id] or None

    def resolve_base_dir(task_id: str = "default") -> str:
        return bases[task_id] or "/the-process-directory"

    tools = SimpleNamespace(
        _get_file_ops=get_file_ops,
        _authoritative_workspace_root=anchor,
        _resolve_base_dir=resolve_base_dir,
    )
    return tools, shared


def test_a_tasks_commands_run_in_its_own_directory() -> None:
    tools, shared = file_tools({"s1": "/one", "s2": "/two"})
    assert file_dir.install(tools)
    assert tools._get_file_ops("s1").read_file("x.txt") == "/one"
    assert tools._get_file_ops("s2").read_file("x.txt") == "/two"
    assert shared.ran == [("cat x.txt", "/one"), ("cat x.txt", "/two")]


def test_a_command_that_names_its_directory_keeps_it_and_other_arguments_pass() -> None:
    tools, _ = file_tools({"s1": "/one"})
    assert file_dir.install(tools)
    ops = tools._get_file_ops("s1")
    assert ops._exec("ls", cwd="/elsewhere", timeout=5) == "/elsewhere"
    assert ops._exec("ls", timeout=5) == "/one"


def test_all_else_is_the_shared_objects() -> None:
    tools, shared = file_tools({"s1": "/one"})
    assert file_dir.install(tools)
    ops = tools._get_file_ops("s1")
    assert ops is not shared and ops.env is shared.env and ops.cache is shared.cache
    assert "_exec" not in vars(shared)  # the shared one is left as it was
    assert shared.read_file("x.txt") == "/where-another-session-left-it"


def test_a_task_without_a_directory_of_its_own_gets_the_shared_object() -> None:
    tools, shared = file_tools({"s1": ""})
    assert file_dir.install(tools)
    assert tools._get_file_ops("s1") is shared


def test_installing_again_adds_no_layer_and_a_module_without_the_functions_is_left_alone() -> None:
    tools, _ = file_tools({})
    assert file_dir.install(tools)
    wrapped = tools._get_file_ops
    assert file_dir.install(tools)
    assert tools._get_file_ops is wrapped
    bare = SimpleNamespace(_get_file_ops=wrapped)
    assert not file_dir.install(bare) and bare._get_file_ops is wrapped


def test_own_dir_gives_a_tasks_directory_or_none_when_hermes_finds_it_none() -> None:
    tools, _ = file_tools({"s1": "/one", "bare": ""})
    task_dir = file_dir.own_dir(tools)
    assert task_dir is not None
    assert task_dir("s1") == "/one"
    assert task_dir("bare") is None
    assert file_dir.own_dir(SimpleNamespace(_resolve_base_dir=lambda t: "/x")) is None
