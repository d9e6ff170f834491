"""soul/read and soul/write in-process, with a stand-in host: the file cases the
e2e tests (tests/e2e/test_soul.py) leave out."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest

from hermes_stdio.supervisor import server
from hermes_stdio.wire import ErrorType, Request

from .test_supervisor_server import supervisor


@pytest.fixture
def ask(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    sup, host = supervisor(tmp_path)
    monkeypatch.setattr(server, "spawn_thread", lambda fn: fn())

    def ask(method: str, params: dict[str, Any]) -> tuple[Any, Any]:
        sup.on_request(host, Request(len(host.answers), method, params))  # type: ignore[arg-type]
        _, result, error = host.answers[-1]
        return result, error

    ask.sup = sup  # type: ignore[attr-defined]
    return ask


def test_a_symlinked_soul_stays_a_symlink_and_its_target_is_written(
    tmp_path: Path, ask: Any
) -> None:
    target = tmp_path / "dotfiles" / "persona.md"
    target.parent.mkdir()
    target.write_text("old")
    link = tmp_path / "profiles" / "play" / "SOUL.md"
    link.symlink_to(target)
    result, error = ask("soul/write", {"profile": "play", "content": "new"})
    assert error is None and result == {"version": hashlib.sha256(b"new").hexdigest()}
    assert link.is_symlink() and target.read_text() == "new"
    result, _ = ask("soul/read", {"profile": "play"})
    assert result["path"] == str(link) and result["content"] == "new"


def test_a_dangling_symlink_reads_as_no_soul(tmp_path: Path, ask: Any) -> None:
    (tmp_path / "profiles" / "play" / "SOUL.md").symlink_to(tmp_path / "gone.md")
    result, _ = ask("soul/read", {"profile": "play"})
    assert (result["version"], result["content"]) == (None, "")


def test_the_default_profiles_soul_is_the_homes_own(tmp_path: Path, ask: Any) -> None:
    ask("soul/write", {"content": "root persona"})
    assert (tmp_path / "SOUL.md").read_text() == "root persona"
    assert not (tmp_path / "profiles" / "play" / "SOUL.md").exists()


def test_a_profile_being_deleted_or_renamed_has_its_soul_neither_read_nor_written(
    tmp_path: Path, ask: Any
) -> None:
    ask.sup.closing["play"] = "is being deleted"
    for method, params in [("soul/read", {}), ("soul/write", {"content": "x"})]:
        _, error = ask(method, {"profile": "play", **params})
        assert error["code"] == ErrorType.UNKNOWN_PROFILE.code
    assert not (tmp_path / "profiles" / "play" / "SOUL.md").exists()
