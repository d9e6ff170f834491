"""references: a folder listing hermes builds for an ``@folder:`` reference names a FIFO
or a device in that folder without reading it; other files are read as hermes reads
them, and a message without references changes nothing.

The fake has the shape of hermes-agent 0.19's ``agent.context_references``: its
folder listing calls the module's ``_file_metadata`` for each file, looked up at call
time. Its helper notes the files it is given (``read``) rather than reading them, so a
regression fails instead of hanging."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from hermes_stdio.worker import references


def fake_refs() -> SimpleNamespace:
    refs = SimpleNamespace()

    def preprocess(message: str, cwd: str, allowed_root: str, context_length: int) -> Any:
        listing = [f"{p.name} ({refs._file_metadata(p)})" for p in sorted(Path(cwd).iterdir())]
        return SimpleNamespace(
            message="\n".join(listing),
            references=[SimpleNamespace(raw="@folder:.")],
            warnings=[],
            injected_tokens=len(listing),
            blocked=False,
        )

    refs.parse_context_references = lambda message: ["@folder:."] if "@folder:" in message else []
    refs.preprocess_context_references = preprocess
    refs.read = []

    def file_metadata(path: Path) -> str:
        refs.read.append(path.name)
        return "2 lines"

    refs._file_metadata = file_metadata
    return refs


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "main.py").write_text("a\nb\n")
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "zeros").symlink_to("/dev/zero")
    return tmp_path


def test_a_fifo_and_a_device_in_a_listed_folder_are_named_unread(folder: Path) -> None:
    refs = fake_refs()
    expanded = references.expand(refs, "see @folder:.", str(folder), 1000)
    assert expanded is not None and refs.read == ["main.py"]
    message, event = expanded
    assert message.splitlines() == [
        "main.py (2 lines)",
        "pipe (not a regular file)",
        "zeros (not a regular file)",
    ]
    assert event.references == ["@folder:."] and not event.blocked


def test_a_message_without_references_reads_nothing_and_wraps_nothing(folder: Path) -> None:
    refs = fake_refs()
    helper = refs._file_metadata
    assert references.expand(refs, "see it", str(folder), 1000) is None
    assert refs._file_metadata is helper


def test_expanding_again_wraps_hermes_helper_once(folder: Path) -> None:
    refs = fake_refs()
    references.expand(refs, "see @folder:.", str(folder), 1000)
    wrapped = refs._file_metadata
    references.expand(refs, "see @folder:.", str(folder), 1000)
    assert refs._file_metadata is wrapped


def test_without_hermes_helper_it_logs_once_and_expands_as_hermes_does(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "main.py").write_text("a\n")
    refs = fake_refs()
    del refs._file_metadata
    refs.preprocess_context_references = lambda message, **kw: SimpleNamespace(
        message="as hermes has it", references=[], warnings=[], injected_tokens=0, blocked=False
    )
    for _ in range(2):
        expanded = references.expand(refs, "see @folder:.", str(tmp_path), 1000)
        assert expanded is not None and expanded[0] == "as hermes has it"
    assert len([line for line in capfd.readouterr().err.splitlines() if "@folder:" in line]) == 1
