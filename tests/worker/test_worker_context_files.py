"""context_files: a context file hermes would read whole is refused, by name, when it is
there but is neither a regular file nor a directory; nothing else is."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hermes_stdio.worker.context_files import ContextUnreadable, check, project_dir


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "home" / "memories").mkdir(parents=True)
    return tmp_path / "home"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "ws").mkdir()
    return tmp_path / "ws"


def refused(home: Path, workspace: Path | None) -> Path | None:
    try:
        check(home, workspace)
    except ContextUnreadable as exc:
        assert str(exc.path) in str(exc)
        return exc.path
    return None


@pytest.mark.parametrize(
    "name", ["AGENTS.md", "agents.md", "CLAUDE.md", "claude.md", ".cursorrules"]
)
def test_a_fifo_in_the_workspace_named_as_a_context_file_is_refused(
    home: Path, workspace: Path, name: str
) -> None:
    os.mkfifo(workspace / name)
    assert refused(home, workspace) == workspace / name


@pytest.mark.parametrize("name", ["SOUL.md", "memories/MEMORY.md", "memories/USER.md"])
def test_a_fifo_among_the_profiles_context_files_is_refused_with_or_without_a_workspace(
    home: Path, workspace: Path, name: str
) -> None:
    os.mkfifo(home / name)
    assert refused(home, None) == home / name
    assert refused(home, workspace) == home / name


def test_a_cursor_rule_that_is_a_fifo_is_refused_and_other_names_there_are_not(
    home: Path, workspace: Path
) -> None:
    rules = workspace / ".cursor" / "rules"
    rules.mkdir(parents=True)
    (rules / "style.mdc").write_text("be brief")
    os.mkfifo(rules / "notes.txt")  # hermes reads only *.mdc
    assert refused(home, workspace) is None
    os.mkfifo(rules / "pipe.mdc")
    assert refused(home, workspace) == rules / "pipe.mdc"


def test_a_link_to_a_fifo_or_a_device_is_refused(
    home: Path, workspace: Path, tmp_path: Path
) -> None:
    os.mkfifo(tmp_path / "pipe")
    (workspace / "AGENTS.md").symlink_to(tmp_path / "pipe")
    assert refused(home, workspace) == workspace / "AGENTS.md"
    (workspace / "AGENTS.md").unlink()
    (workspace / "CLAUDE.md").symlink_to("/dev/zero")  # a read that never ends
    assert refused(home, workspace) == workspace / "CLAUDE.md"


def test_regular_files_directories_and_missing_or_dangling_ones_pass(
    home: Path, workspace: Path
) -> None:
    (home / "SOUL.md").write_text("calm")
    (home / "memories" / "MEMORY.md").write_text("notes")
    (workspace / "AGENTS.md").write_text("rules")
    (workspace / "CLAUDE.md").mkdir()  # hermes' read fails, and it skips it
    (workspace / ".cursorrules").symlink_to(workspace / "gone")
    (workspace / ".cursor").write_text("not a directory")
    assert refused(home, workspace) is None


def test_without_a_workspace_the_workspaces_files_are_not_looked_at(
    home: Path, workspace: Path
) -> None:
    os.mkfifo(workspace / "AGENTS.md")
    assert refused(home, None) is None


def test_the_project_directory_is_the_workspace_else_terminal_cwd_else_the_processs(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TERMINAL_CWD", str(tmp_path))
    assert project_dir(str(workspace)) == workspace
    assert project_dir(None) == tmp_path
    assert project_dir(str(tmp_path / "gone")) == Path.cwd()  # as hermes: not TERMINAL_CWD
    monkeypatch.setenv("TERMINAL_CWD", str(tmp_path / "missing"))
    assert project_dir(None) == Path.cwd()
    monkeypatch.delenv("TERMINAL_CWD")
    assert project_dir(None) == Path.cwd()
